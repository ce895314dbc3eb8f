/**
 * The `evm` provider's configuration (docs/stablecoins.md#configuration): per service bound to it, one token on one
 * chain (EVM_<SERVICE>_RPC_URL, _CHAIN_ID, _TOKEN, _DECIMALS, _CONFIRMATIONS, _CURRENCY), and for all of them the
 * factory deploying deposit forwarders, the relayer key paying the sweeps' gas, and the detector's bounds. The
 * relayer key is a secret: never quoted back.
 */
import type { EnvReader, Report } from './env.js'

export interface EvmServiceConfig {
  readonly service: string
  readonly rpcUrl: string
  readonly chainId: number
  /** The token contract (0x + 40 hex; checksummed by the adapter). */
  readonly token: string
  /** The token's decimals: its units per major unit of the peg currency are 10^decimals. */
  readonly decimals: number
  /** Blocks on top of a transfer's (its own included) before it counts. */
  readonly confirmations: number
  /** The token's peg: the one currency its invoices take (USD for USDC/USDT, EUR for EURC). */
  readonly currency: string
}

export interface EvmConfig {
  readonly services: Readonly<Record<string, EvmServiceConfig>>
  /** The ForwarderFactory (`invoice-service evm deploy-factory`); undefined only while deploying it. */
  readonly factory: string | undefined
  /** The relayer's private key (0x + 64 hex): pays the sweeps' gas, and the factory's deployment. */
  readonly relayerKey: string | undefined
  /** EVM_LATE_WINDOW seconds: after expired_at, transfers to a deposit address are still watched (late payments). */
  readonly lateWindow: number
  /** EVM_POLL_INTERVAL milliseconds between the detector's and the sweeper's rounds. */
  readonly pollMs: number
  /** EVM_BLOCK_RANGE: the most blocks one eth_getLogs asks about. */
  readonly blockRange: number
  /** EVM_ADDRESS_BATCH: the most deposit addresses one eth_getLogs names. */
  readonly addressBatch: number
}

/** The prefix of a service's variables: `usdc` → `EVM_USDC_`, `usd-coin` → `EVM_USD_COIN_`. */
export const evmPrefix = (service: string): string => `EVM_${service.toUpperCase().replace(/-/g, '_')}_`

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const KEY = /^0x[0-9a-fA-F]{64}$/

function httpUrl(name: string, text: string, bad: Report): string {
  try {
    const url = new URL(text)
    if (url.protocol === 'https:' || url.protocol === 'http:') return text
  } catch {
    // reported below
  }
  bad(name, 'must be an http(s) URL of a JSON-RPC endpoint')
  return ''
}

/**
 * The configuration of the services `bindings` gives to evm, or undefined when none is. `factoryOptional`: the
 * factory is being deployed (`invoice-service evm deploy-factory`), so it has no address yet.
 */
export function readEvm(
  env: EnvReader,
  services: readonly string[],
  currencies: readonly string[],
  bad: Report,
  factoryOptional = false,
): EvmConfig | undefined {
  if (services.length === 0) return undefined
  const out: Record<string, EvmServiceConfig> = {}
  const requiredText = (name: string, service: string): string | undefined => {
    const v = env.raw(name)
    if (v === undefined) bad(name, `is required: SERVICE_PROVIDERS binds ${service} to evm`)
    return v
  }
  for (const service of services) {
    const p = evmPrefix(service)
    const rpc = requiredText(`${p}RPC_URL`, service)
    const chainText = requiredText(`${p}CHAIN_ID`, service)
    const token = requiredText(`${p}TOKEN`, service)
    const chainId = chainText !== undefined && /^[0-9]{1,15}$/.test(chainText) ? Number(chainText) : 0
    if (chainText !== undefined && chainId < 1) bad(`${p}CHAIN_ID`, 'must be the chain id, a whole number, e.g. 1')
    if (token !== undefined && !ADDRESS.test(token)) bad(`${p}TOKEN`, "must be the token contract's address (0x…)")
    const currency = (env.raw(`${p}CURRENCY`) ?? 'USD').toUpperCase()
    if (!currencies.includes(currency)) bad(`${p}CURRENCY`, `"${currency}" is not an enabled currency (CURRENCIES)`)
    out[service] = {
      service,
      rpcUrl: rpc === undefined ? '' : httpUrl(`${p}RPC_URL`, rpc, bad),
      chainId,
      token: token ?? '',
      decimals: env.int(`${p}DECIMALS`, 6, 0, 36),
      confirmations: env.int(`${p}CONFIRMATIONS`, 12, 1, 10_000),
      currency,
    }
  }
  const factory = env.raw('EVM_FACTORY_ADDRESS')
  if (factory === undefined && !factoryOptional)
    bad('EVM_FACTORY_ADDRESS', 'is required: deploy the factory with `invoice-service evm deploy-factory`')
  if (factory !== undefined && !ADDRESS.test(factory))
    bad('EVM_FACTORY_ADDRESS', "must be the ForwarderFactory's address (0x…)")
  const relayerKey = env.raw('EVM_RELAYER_KEY')
  if (relayerKey === undefined) bad('EVM_RELAYER_KEY', 'is required: the relayer pays the gas of the sweeps')
  // never quoted back: a secret
  else if (!KEY.test(relayerKey)) bad('EVM_RELAYER_KEY', 'must be a private key: 0x and 64 hexadecimal digits')
  return {
    services: out,
    factory,
    relayerKey,
    lateWindow: env.int('EVM_LATE_WINDOW', 86_400, 0, 2_592_000),
    pollMs: env.int('EVM_POLL_INTERVAL', 4000, 10, 600_000),
    blockRange: env.int('EVM_BLOCK_RANGE', 2000, 1, 100_000),
    addressBatch: env.int('EVM_ADDRESS_BATCH', 500, 1, 10_000),
  }
}
