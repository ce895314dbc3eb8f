/** `invoice-service serve` (what `npm start` runs). */
import type { Config } from '../config/config.js'
import { DEMO_OWNER_EMAIL, printDemo } from './demo-banner.js'
import { createHttpApp } from './http.js'
import { createRuntime } from './runtime.js'
import { startWorkers } from './workers.js'

/** Migrate, print the demo merchant on a fresh database, listen, and shut down cleanly on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<void> {
  const rt = await createRuntime(config)
  const app = await createHttpApp(rt)
  if (!config.isProduction) {
    const demo = await rt.useCases.accounts.ensureDemoMerchant()
    if (demo !== undefined) {
      // docs/dashboard.md#invitations: the demo merchant's owner, with the one-time link to set a password
      const owner = await rt.useCases.users.invite({ merchantId: demo.merchant.id, email: DEMO_OWNER_EMAIL })
      printDemo(config, demo.merchant.id, demo.apiKey, demo.webhookSecret, { email: DEMO_OWNER_EMAIL, url: owner.url })
    }
  }
  if (config.database.kind === 'sqlite') {
    // One process per SQLite database: claims found now are a dead process's; send them again at once.
    const released = await rt.useCases.dispatch.releaseOrphanedClaims()
    if (released > 0)
      rt.logger.warn(
        { deliveries: released },
        'webhook claims left by a previous process released; those attempts are sent again',
      )
  }
  const onSandbox = Object.keys(config.providers.bindings).filter((s) => config.providers.bindings[s] === 'sandbox')
  if (config.isProduction && config.sandbox && onSandbox.length > 0) {
    // the default, so that a first start works end to end; in production it is worth a word. The test controls act
    // only on the invoices of services bound to the sandbox (docs/providers.md#the-sandbox): none, no warning.
    rt.logger.warn(
      { services: onSandbox },
      "SANDBOX is on: the payment pages of these services' invoices have test controls, and anyone holding such an invoice's payment link can mark it paid; set SANDBOX=false unless this is a test installation",
    )
  }
  // Before listen: it logs "Server listening" for its first address and resolves only once every address of the
  // host (localhost: 127.0.0.1 and ::1) listens, and a SIGTERM in between must still shut down cleanly.
  let closing = false
  const shutdown = (signal: string): void => {
    if (closing) return
    closing = true
    rt.logger.info({ signal }, 'shutting down')
    void rt.close().finally(() => process.exit(0))
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
  await app.listen({ port: config.port, host: config.host })
  if (!closing) startWorkers(rt)
}
