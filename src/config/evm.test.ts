import { describe, expect, it } from 'vitest'
import { currencyExponent } from '../domain/currencies.js'
import { ConfigError, loadConfig } from './config.js'

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const GOOD = {
  SERVICES: 'card,usdc',
  SERVICE_PROVIDERS: 'usdc=evm',
  EVM_USDC_RPC_URL: 'http://127.0.0.1:8545',
  EVM_USDC_CHAIN_ID: '31337',
  EVM_USDC_TOKEN: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  EVM_FACTORY_ADDRESS: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  EVM_RELAYER_KEY: KEY,
}

function problems(env: Record<string, string>, opts?: { evmFactoryOptional?: boolean }): readonly string[] {
  try {
    loadConfig(env, currencyExponent, opts)
    return []
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
}

describe('the evm configuration (docs/stablecoins.md#configuration)', () => {
  it('when a service is bound to evm with its variables, then each is read, with the defaults', () => {
    const c = loadConfig(GOOD, currencyExponent).providers
    expect(c.bindings['usdc']).toBe('evm')
    expect(c.evm?.services['usdc']).toEqual({
      service: 'usdc',
      rpcUrl: 'http://127.0.0.1:8545',
      chainId: 31337,
      token: GOOD.EVM_USDC_TOKEN,
      decimals: 6,
      confirmations: 12,
      currency: 'USD',
    })
    expect(c.evm?.lateWindow).toBe(86_400)
  })

  it('when no service is bound to evm, then none of its variables is needed', () => {
    expect(problems({ SERVICES: 'card' })).toEqual([])
    expect(loadConfig({}, currencyExponent).providers.evm).toBeUndefined()
  })

  it('when variables are missing or malformed, then the start names every one, and never the relayer key', () => {
    const bad = problems({
      SERVICES: 'card,usdc',
      SERVICE_PROVIDERS: 'usdc=evm',
      EVM_USDC_CHAIN_ID: 'mainnet',
      EVM_USDC_TOKEN: '0x1234',
      EVM_USDC_CURRENCY: 'XYZ',
      EVM_USDC_CONFIRMATIONS: '0',
      EVM_RELAYER_KEY: '0xnot-a-key-but-a-secret-all-the-same',
    })
    const names = bad.map((p) => p.split(':')[0])
    expect(names).toEqual(
      expect.arrayContaining([
        'EVM_USDC_RPC_URL',
        'EVM_USDC_CHAIN_ID',
        'EVM_USDC_TOKEN',
        'EVM_USDC_CURRENCY',
        'EVM_USDC_CONFIRMATIONS',
        'EVM_FACTORY_ADDRESS',
        'EVM_RELAYER_KEY',
      ]),
    )
    expect(bad.join('\n')).not.toContain('secret-all-the-same')
    expect(problems({ ...GOOD, EVM_RELAYER_KEY: `${KEY}0` }).join('\n')).not.toContain(KEY)
  })

  it('when the factory is being deployed, then its address is not needed yet', () => {
    const { EVM_FACTORY_ADDRESS: _factory, ...env } = GOOD
    expect(problems(env)).toEqual([expect.stringMatching(/^EVM_FACTORY_ADDRESS: is required/)])
    expect(problems(env, { evmFactoryOptional: true })).toEqual([])
  })

  it('when an evm service is listed in HOLD_SERVICES, then the start refuses it', () => {
    expect(problems({ ...GOOD, HOLD_SERVICES: 'usdc' })).toEqual([expect.stringMatching(/^HOLD_SERVICES: "usdc"/)])
  })
})
