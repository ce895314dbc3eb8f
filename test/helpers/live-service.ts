import { buildTestApp, type TestApp, type TestMerchant } from './build-test-app.js'
import { freePort } from './free-port.js'

export { freePort }

/** A free TCP port on 127.0.0.1 (the service must know its PUBLIC_URL before it listens). */

export interface LiveService {
  readonly t: TestApp
  /** The service's base URL (its PUBLIC_URL), listening on 127.0.0.1. */
  readonly url: string
  readonly merchant: TestMerchant
  close(): Promise<void>
}

/**
 * The real service listening on a real port, on the real clock with its webhook dispatcher running, and a merchant:
 * what a client or a shop talks to over HTTP. Webhooks may go to 127.0.0.1 over http (the test's receivers).
 */
export async function startLiveService(env: Record<string, string> = {}): Promise<LiveService> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const t = await buildTestApp(
    { PUBLIC_URL: url, CALLBACK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', ...env },
    { realClock: true, webhooks: true },
  )
  await t.app.listen({ port, host: '127.0.0.1' })
  const merchant = await t.merchant('Client Test Shop')
  return { t, url, merchant, close: () => t.close() }
}

/** The buyer's sandbox payment, as the payment page's test controls send it. */
export async function simulate(
  service: LiveService,
  invoiceId: string,
  outcome: 'paid' | 'hold' | 'failed',
): Promise<void> {
  const res = await fetch(`${service.url}/pay/${invoiceId}/simulate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ outcome }),
  })
  if (res.status !== 200) throw new Error(`simulate ${outcome}: HTTP ${res.status} ${await res.text()}`)
}
