/**
 * The evm module of the composition root (docs/stablecoins.md): a chain client per service bound to evm, the
 * detector and the sweeper loops over them, and the factory's deployment for the CLI.
 */
import { randomUUID } from 'node:crypto'
import { createEvmMetrics } from '../adapters/metrics/evm-metrics.js'
import { detectEvmPayments } from '../app/detect-evm-payments.js'
import { sweepEvmDeposits } from '../app/sweep-evm-deposits.js'
import type { Config, EvmConfig } from '../config/config.js'
import type { EvmChain } from '../ports/evm-chain.js'
import { startEvmLoop, type EvmLoop } from '../worker/evm-loop.js'
import type { Runtime } from './runtime.js'

/** How long one round may hold a service's cursor before another instance may take it over. */
export const EVM_LEASE_MS = 60_000
export const EVM_SWEEP_BATCH = 20
export const EVM_MAX_BACKOFF_MS = 60_000

/** viem is loaded only when a service is bound to evm: every start and every CLI command would pay its import. */
const chainModule = () => import('../adapters/providers/evm/chain.js')

async function chains(evm: EvmConfig, timeoutMs: number): Promise<Map<string, EvmChain>> {
  const { createEvmChain } = await chainModule()
  return new Map(
    Object.values(evm.services).map((s) => [
      s.service,
      createEvmChain({
        rpcUrl: s.rpcUrl,
        chainId: s.chainId,
        token: s.token,
        factory: evm.factory,
        relayerKey: evm.relayerKey,
        timeoutMs,
      }),
    ]),
  )
}

export interface EvmWorkers {
  /** A detector round of every service, then a sweeper round (tests call these instead of waiting). */
  detect(): Promise<void>
  sweep(): Promise<void>
  stop(): Promise<void>
}

/** Starts the detector (one loop per service) and the sweeper; undefined when no service is bound to evm. */
export function startEvmWorkers(
  rt: Runtime,
  opts: { intervalMs?: number; owner?: string } = {},
): EvmWorkers | undefined {
  const evm = rt.config.providers.evm
  if (evm === undefined) return undefined
  const loading = chains(evm, rt.config.providers.timeoutMs)
  // a failed load rejects every round, which logs it and retries
  loading.catch(() => undefined)
  const owner = opts.owner ?? randomUUID()
  const intervalMs = opts.intervalMs ?? evm.pollMs
  const metrics = createEvmMetrics(rt.metricsRegistry, { sweepStats: () => rt.store.evm.sweepStats() })
  const loops: EvmLoop[] = []
  for (const s of Object.values(evm.services)) {
    loops.push(
      startEvmLoop(
        `evm-detector:${s.service}`,
        async () => {
          try {
            const chain = (await loading).get(s.service)
            if (chain === undefined) return
            await detectEvmPayments(rt.deps, {
              service: s.service,
              chain,
              chainId: s.chainId,
              confirmations: s.confirmations,
              decimals: s.decimals,
              owner,
              leaseMs: EVM_LEASE_MS,
              blockRange: evm.blockRange,
              addressBatch: evm.addressBatch,
            })
          } catch (err) {
            metrics.detectorFailure(s.service)
            throw err
          }
        },
        { intervalMs, maxBackoffMs: EVM_MAX_BACKOFF_MS, log: rt.logger },
      ),
    )
  }
  const detectors = [...loops]
  const sweeper = startEvmLoop(
    'evm-sweeper',
    async () => {
      const byService = await loading
      await sweepEvmDeposits(rt.deps, {
        chainOf: (service) => byService.get(service),
        batch: EVM_SWEEP_BATCH,
        retryMs: Math.max(intervalMs, 1000),
        onFailure: metrics.sweepFailure,
      })
    },
    { intervalMs, maxBackoffMs: EVM_MAX_BACKOFF_MS, log: rt.logger },
  )
  loops.push(sweeper)
  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      forget()
      await Promise.all(loops.map((l) => l.stop()))
      // the next process (a restart, another instance) need not wait for the lease to run out
      for (const service of Object.keys(evm.services))
        await rt.store.evm.releaseCursor(service, owner).catch((err: unknown) => {
          rt.logger.warn({ err, service }, 'the evm detector could not give its lease back; it runs out by itself')
        })
    })())
  const forget = rt.stopOnClose('workers', stop)
  return {
    detect: async () => {
      for (const d of detectors) await d.tick()
    },
    sweep: () => sweeper.tick(),
    stop,
  }
}

/** `invoice-service evm deploy-factory`: deploys the ForwarderFactory on the chain of `service` (the first evm one). */
export async function deployEvmFactory(
  config: Config,
  service?: string,
): Promise<{ service: string; address: string }> {
  const evm = config.providers.evm
  const s = service === undefined ? Object.values(evm?.services ?? {})[0] : evm?.services[service]
  if (evm === undefined || s === undefined)
    throw new Error(
      service === undefined ? 'no service is bound to evm (SERVICE_PROVIDERS)' : `${service} is not bound to evm`,
    )
  const { deployFactory } = await chainModule()
  const address = await deployFactory({
    rpcUrl: s.rpcUrl,
    chainId: s.chainId,
    token: s.token,
    factory: undefined,
    relayerKey: evm.relayerKey,
    timeoutMs: config.providers.timeoutMs,
  })
  return { service: s.service, address }
}
