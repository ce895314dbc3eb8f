// Medusa's integration runner is written for jest (it registers describe/beforeAll itself); @swc/jest compiles the
// TypeScript of the provider and the tests, as in Medusa's own starter.
module.exports = {
  transform: {
    '^.+\\.[jt]s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, target: 'es2022' } }],
  },
  testEnvironment: 'node',
  // jest cannot require an ES module (the built client is one): the client's TypeScript sources are compiled like
  // ours instead, their ESM-style './x.js' imports pointed at the sources. A Medusa app loads the built client.
  moduleNameMapper: {
    '^@invoice-service/client$': '<rootDir>/../../packages/client/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  moduleFileExtensions: ['js', 'ts', 'json'],
  modulePathIgnorePatterns: ['dist/', '<rootDir>/.medusa/'],
  setupFiles: ['./integration-tests/setup.js'],
  testMatch: ['**/integration-tests/unit/*.spec.ts', '**/integration-tests/http/*.spec.ts'],
  testTimeout: 120000,
}
