/**
 * The dependency arrows of docs/architecture.md#dependency-rules, enforced by `npm run lint`.
 * Type-only imports count too: a layer must not even know the shapes of a layer it may not call.
 */
const layer = (name) => `^src/${name}/`
/** bindUseCases and its parts by module (src/wiring/use-cases.ts, src/wiring/use-cases/). */
const USE_CASE_BINDINGS = '^src/wiring/use-cases(\\.ts$|/)'
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ imports nothing outside domain/ and no node: I/O modules',
      severity: 'error',
      from: { path: layer('domain') },
      to: { pathNot: [layer('domain')] },
    },
    {
      name: 'ports-only-domain',
      severity: 'error',
      from: { path: layer('ports') },
      to: { pathNot: [layer('domain'), layer('ports')] },
    },
    {
      name: 'app-only-domain-and-ports',
      severity: 'error',
      from: { path: layer('app') },
      to: { pathNot: [layer('domain'), layer('ports'), layer('app')] },
    },
    {
      name: 'adapters-not-upwards',
      comment: 'adapters implement ports; they never reach app/, http/, worker/, cli/, the wiring or main',
      severity: 'error',
      from: { path: layer('adapters') },
      to: { path: [layer('app'), layer('http'), layer('worker'), layer('cli'), layer('wiring'), '^src/main\\.ts$'] },
    },
    {
      name: 'http-no-adapters',
      comment: 'the HTTP shell calls use cases; it never touches adapters, workers or the CLI',
      severity: 'error',
      from: { path: layer('http') },
      to: { path: [layer('adapters'), layer('worker'), layer('cli'), '^src/main\\.ts$'] },
    },
    {
      name: 'worker-only-app',
      severity: 'error',
      from: { path: layer('worker') },
      to: { path: [layer('adapters'), layer('http'), layer('cli'), '^src/main\\.ts$'] },
    },
    {
      name: 'cli-no-adapters',
      severity: 'error',
      from: { path: layer('cli') },
      to: { path: [layer('adapters'), layer('http'), layer('worker'), '^src/main\\.ts$'] },
    },
    {
      name: 'config-only-domain',
      comment: 'the configuration reads text with domain/ rules (addresses, currencies) and nothing else of src/',
      severity: 'error',
      from: { path: layer('config') },
      to: { path: '^src/', pathNot: [layer('config'), layer('domain')] },
    },
    {
      name: 'only-the-wiring-wires-adapters',
      comment:
        'the composition root (main.ts and wiring/) is the one place adapters are imported from outside adapters/',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/main\\.ts$', layer('wiring'), layer('adapters')] },
      to: { path: layer('adapters') },
    },
    {
      name: 'use-case-bindings-only-app',
      comment:
        'wiring/use-cases binds app/ functions to their deps and imports nothing else: the shells may type-import it',
      severity: 'error',
      from: { path: USE_CASE_BINDINGS },
      to: { pathNot: [layer('app'), layer('domain'), layer('ports'), USE_CASE_BINDINGS] },
    },
    {
      name: 'wiring-is-imported-by-main-only',
      comment: 'the composition root is at the top: only main.ts imports it (the HTTP shell takes types, below)',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/main\\.ts$', layer('wiring'), layer('http')] },
      to: { path: layer('wiring') },
    },
    {
      name: 'http-takes-use-case-types-only',
      comment: 'http/deps.ts derives its types from the bound use cases; the shell never calls into the wiring',
      severity: 'error',
      from: { path: layer('http') },
      to: { path: layer('wiring'), pathNot: USE_CASE_BINDINGS },
    },
    {
      name: 'http-imports-use-case-bindings-as-types',
      severity: 'error',
      from: { path: layer('http') },
      to: { path: USE_CASE_BINDINGS, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
}
