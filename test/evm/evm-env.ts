/** Shared set-up of the EVM tests: the service's environment over a running anvil, the factory deployed by the CLI. */
import { pino } from 'pino'
import { runCli } from '../../src/cli/run-cli.js'
import { loadConfig } from '../../src/config/config.js'
import { currencyExponent } from '../../src/domain/currencies.js'
import { cliCommands } from '../../src/wiring/cli.js'
import { createRuntime } from '../../src/wiring/runtime.js'
import type { Anvil } from '../helpers/anvil.js'
import type { TestApp } from '../helpers/build-test-app.js'

export const CONFIRMATIONS = 3

/** The environment of a `usdc` service bound to evm on `chain` (the factory added once deployed). */
export function evmEnv(chain: Anvil, factory?: string): Record<string, string> {
  return {
    SERVICES: 'card,usdc',
    SERVICE_PROVIDERS: 'usdc=evm',
    EVM_USDC_RPC_URL: chain.url,
    EVM_USDC_CHAIN_ID: String(chain.chain.id),
    EVM_USDC_TOKEN: chain.token,
    EVM_USDC_DECIMALS: '6',
    EVM_USDC_CONFIRMATIONS: String(CONFIRMATIONS),
    EVM_USDC_CURRENCY: 'USD',
    EVM_RELAYER_KEY: chain.keys.relayer,
    EVM_POLL_INTERVAL: '600000',
    EVM_LATE_WINDOW: '86400',
    PROVIDER_TIMEOUT: '1',
    ...(factory !== undefined && { EVM_FACTORY_ADDRESS: factory }),
  }
}

/** `invoice-service evm deploy-factory --json`, as an operator runs it; resolves to the factory's address. */
export async function deployFactoryByCli(chain: Anvil): Promise<string> {
  const config = loadConfig(
    { DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', ...evmEnv(chain) },
    currencyExponent,
    { evmFactoryOptional: true },
  )
  const out: string[] = []
  const err: string[] = []
  const rt = createRuntime(config, { logger: pino({ level: 'silent' }) })
  try {
    const code = await runCli(
      ['evm', 'deploy-factory', '--json'],
      cliCommands(() => rt),
      {
        out: (s) => void out.push(s),
        err: (s) => void err.push(s),
      },
    )
    if (code !== 0) throw new Error(`deploy-factory exited ${code}: ${err.join('')}`)
  } finally {
    await (await rt).close()
  }
  return (JSON.parse(out.join('')) as { factory_address: string }).factory_address
}

/** `invoice-service merchant set-payout`, through the CLI's commands over the app's runtime. */
export async function setPayout(t: TestApp, merchantId: string, address: string): Promise<number> {
  const err: string[] = []
  return runCli(
    ['merchant', 'set-payout', '--merchant', merchantId, '--service', 'usdc', '--address', address],
    cliCommands(t.rt),
    { out: () => undefined, err: (s) => void err.push(s) },
  )
}

/** The fake clock at the chain's latest block time, so expired_at and block times compare as on the real chain. */
export async function syncClock(t: TestApp, chain: Anvil): Promise<Date> {
  const block = await chain.client.getBlock({ blockTag: 'latest' })
  const at = new Date(Number(block.timestamp) * 1000)
  t.clock.set(at)
  return at
}
