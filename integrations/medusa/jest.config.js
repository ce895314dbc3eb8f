// Medusa's integration runner is written for jest (it registers describe/beforeAll itself); @swc/jest compiles the
// TypeScript of the provider and the tests, as in Medusa's own starter.
module.exports = {
  transform: {
    '^.+\\.[jt]s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, target: 'es2022' } }],
  },
  testEnvironment: 'node',
  moduleFileExtensions: ['js', 'ts', 'json'],
  modulePathIgnorePatterns: ['dist/', '<rootDir>/.medusa/'],
  setupFiles: ['./integration-tests/setup.js'],
  testMatch: ['**/integration-tests/http/*.spec.ts'],
  testTimeout: 120000,
}
