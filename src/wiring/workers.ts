/** The in-process workers of every instance, over a runtime's use cases. */
import { startSweeper, type Sweeper } from '../worker/sweeper.js'
import { startWebhookDispatcher } from '../worker/webhook-dispatcher.js'
import { startEvmWorkers } from './evm.js'
import type { Runtime } from './runtime.js'

export const SWEEP_BATCH = 200
/** Acquirer attempts asked about per round, and how often reconciliation looks for due ones. */
export const RECONCILE_BATCH = 50
export const RECONCILE_POLL_MS = 1000

/** Dead dashboard sessions, links and sign-in failure windows: deleted this many at a time, this often. */
export const PURGE_BATCH = 500
export const PURGE_EVERY_MS = 60_000
/** How often the database's planner statistics are refreshed (store.optimize). */
export const OPTIMIZE_EVERY_MS = 3600_000

/** The dispatcher's fallback poll; new events ring the doorbell and retries set a timer, so this is rarely the path. */
export const WEBHOOK_POLL_MS = 1000
/** On shutdown, attempts under way get this long to finish before they are aborted and their claims given back. */
export const WEBHOOK_SHUTDOWN_GRACE_MS = 5000

/**
 * The clock-driven transitions (expiry, hold lifetime), reconciliation with acquirers and, unless `webhooks: false`, the webhook dispatcher.
 * `rt.close()` stops them after the HTTP apps; `stop()` may also be called before (again, it does nothing more).
 */
export function startWorkers(
  rt: Runtime,
  intervalMs = 500,
  opts: { webhooks?: boolean; webhookShutdownGraceMs?: number; evm?: boolean } = {},
): Sweeper {
  const { sweeps, dispatch } = rt.useCases
  const sweeper = startSweeper(
    [
      { name: 'expire-invoices', run: () => sweeps.expireDue(SWEEP_BATCH) },
      { name: 'fail-stale-holds', run: () => sweeps.failStaleHolds(SWEEP_BATCH) },
    ],
    { intervalMs, log: rt.logger, batch: SWEEP_BATCH },
  )
  // its own loop: an acquirer that answers slowly delays no expiry (docs/providers.md#reconciliation)
  const reconciler = startSweeper(
    [
      { name: 'reconcile-payments', run: async () => (await sweeps.reconcile(RECONCILE_BATCH)).checked },
      // refunds left pending by an acquirer that did not answer (docs/refunds.md#outcomes)
      { name: 'reconcile-refunds', run: async () => (await rt.useCases.refunds.reconcile(RECONCILE_BATCH)).checked },
    ],
    { intervalMs: Math.max(intervalMs, RECONCILE_POLL_MS), log: rt.logger, batch: RECONCILE_BATCH },
  )
  // what can never sign anyone in again (docs/dashboard.md#sessions)
  const purger = startSweeper([{ name: 'purge-dashboard-records', run: () => rt.useCases.users.purge(PURGE_BATCH) }], {
    intervalMs: Math.max(intervalMs, PURGE_EVERY_MS),
    log: rt.logger,
    batch: PURGE_BATCH,
  })
  const optimizer = startSweeper(
    [{ name: 'optimize-statistics', run: async () => (await rt.deps.store.optimize(), 0) }],
    { intervalMs: Math.max(intervalMs, OPTIMIZE_EVERY_MS), log: rt.logger, batch: 1 },
  )
  // stablecoin payments: the detector and the sweeper, when a service is bound to evm (docs/stablecoins.md)
  const evm = opts.evm === false ? undefined : startEvmWorkers(rt)
  const dispatcher =
    opts.webhooks === false
      ? undefined
      : startWebhookDispatcher({
          cycle: dispatch.cycle,
          send: dispatch.send,
          subscribe: (listener) => rt.deps.eventSignal.subscribe(listener),
          now: () => rt.deps.clock.now(),
          concurrency: rt.config.webhookConcurrency,
          merchantConcurrency: rt.config.webhookMerchantConcurrency,
          pollMs: WEBHOOK_POLL_MS,
          log: rt.logger,
        })
  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      forget()
      await sweeper.stop()
      await reconciler.stop()
      await purger.stop()
      await optimizer.stop()
      await evm?.stop()
      await dispatcher?.stop(opts.webhookShutdownGraceMs ?? WEBHOOK_SHUTDOWN_GRACE_MS)
    })())
  const forget = rt.stopOnClose('workers', stop)
  return {
    tick: async () => {
      // the chain first: a payment mined before expired_at keeps its invoice from expiring (docs/stablecoins.md#states)
      await evm?.detect()
      await sweeper.tick()
      await reconciler.tick()
      await purger.tick()
      await evm?.sweep()
    },
    stop,
  }
}
