/**
 * Entry point of the `invoice-service` binary: `serve` (what `npm start` runs) or a CLI command. The wiring of
 * adapters to use cases, the composition root, is src/wiring/: runtime.ts (logger, store, adapters, the shutdown
 * order), use-cases.ts (every use case bound once), http.ts, workers.ts, cli.ts, serve.ts.
 */
import { pino } from 'pino'
import { runCli } from './cli/run-cli.js'
import { ConfigError, loadConfig, type Config } from './config/config.js'
import { currencyExponent } from './domain/currencies.js'
import { cliCommands } from './wiring/cli.js'
import { createRuntime, type Runtime } from './wiring/runtime.js'
import { serve } from './wiring/serve.js'

/** Runs the command `argv` names; resolves to its exit code, or to -1 when the server keeps running. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let config: Config
  try {
    config = loadConfig(env, currencyExponent, {
      evmFactoryOptional: argv[0] === 'evm' && argv[1] === 'deploy-factory',
    })
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`)
      return 78 // EX_CONFIG
    }
    throw err
  }
  // `serve` alone (or nothing) starts the server; `serve` with anything more is the CLI's usage error
  if (argv.length === 0 || (argv.length === 1 && argv[0] === 'serve')) {
    await serve(config)
    return -1 // keep running
  }
  let opened: Promise<Runtime> | undefined
  const open = (): Promise<Runtime> => (opened ??= createRuntime(config, { logger: pino({ level: 'silent' }) }))
  try {
    return await runCli(argv, cliCommands(open), {
      out: (s) => process.stdout.write(s),
      err: (s) => process.stderr.write(s),
    })
  } finally {
    // a runtime that failed to open has nothing to close (its error is the one runCli reported or threw)
    if (opened !== undefined)
      await opened.then(
        (rt) => rt.close(),
        () => undefined,
      )
  }
}
