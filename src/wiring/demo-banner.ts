/** What `serve` prints when it created the demo merchant: its credentials, two requests to try, the dashboard link. */
import type { Config } from '../config/config.js'
import { currencyExponent } from '../domain/currencies.js'
import { asMinor, formatAmount } from '../domain/money.js'

/** The demo merchant's dashboard owner (a reserved domain: no mail goes anywhere). */
export const DEMO_OWNER_EMAIL = 'owner@demo.example'

export function printDemo(
  config: Config,
  merchantId: string,
  apiKey: string,
  webhookSecret: string,
  owner: { readonly email: string; readonly url: string },
): void {
  const currency = config.currencies[0] ?? 'RUB'
  // 100 in the currency's own decimals: "100.00" is refused for JPY, which has none
  const exponent = currencyExponent(currency) ?? 2
  const amount = formatAmount(asMinor(100 * 10 ** exponent), exponent)
  const body = JSON.stringify({ order_id: 'demo-1', amount, currency, comment: 'Demo order' })
  const base = config.publicUrl
  process.stdout.write(
    [
      '',
      'Demo merchant created (shown once; this database had no merchants):',
      `  merchant_id:    ${merchantId}`,
      `  api_key:        ${apiKey}`,
      `  webhook_secret: ${webhookSecret}`,
      '',
      'Create an invoice:',
      `  curl -s -X POST ${base}/api/v1/invoices -H 'Content-Type: application/json' -H 'X-Api-Key: ${apiKey}' -d '${body}'`,
      'Read it back:',
      `  curl -s '${base}/api/invoice/getInfo?merchant_id=${merchantId}&order_id=demo-1' -H 'X-Api-Key: ${apiKey}'`,
      'Open the dashboard: set the password of its owner here (works once, for 24 h), then sign in as ' + owner.email,
      `  ${owner.url}`,
      '',
      '',
    ].join('\n'),
  )
}
