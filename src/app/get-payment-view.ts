import type { InvoiceId } from '../domain/ids.js'
import { readStatus, type Invoice, type Status } from '../domain/invoice.js'
import type { AppDeps } from './deps.js'
import { getDepositPayment, type DepositPayment } from './get-deposit-payment.js'

/** What the buyer's payment page shows (docs/payment-page.md). */
export interface PaymentView {
  readonly invoice: Invoice
  readonly merchantName: string
  /** The status as it reads now (a pending invoice past expiry is expired). */
  readonly status: Status
  /** The buyer pays at the acquirer's hosted checkout: the page shows Pay (docs/providers.md#checkout). */
  readonly checkout: boolean
  /** Where Pay sends the buyer (the acquirer's checkout origins): the page's CSP allows the form's redirect there. */
  readonly checkoutOrigins: readonly string[]
  /** The sandbox's test controls act on this invoice (docs/payment-page.md). */
  readonly testControls: boolean
  /** A stablecoin invoice's deposit and what it received (docs/stablecoins.md#states); undefined for others. */
  readonly deposit: DepositPayment | undefined
}

export async function getPaymentView(
  deps: Pick<AppDeps, 'store' | 'clock' | 'providers'>,
  id: InvoiceId,
): Promise<PaymentView | undefined> {
  const invoice = await deps.store.invoices.findById(id)
  if (invoice === undefined) return undefined
  const merchant = await deps.store.merchants.findById(invoice.merchantId)
  const { capabilities, checkoutOrigins } = deps.providers.forService(invoice.service)
  return {
    invoice,
    merchantName: merchant?.name ?? '',
    status: readStatus(invoice, deps.clock.now()),
    checkout: capabilities.checkout,
    checkoutOrigins,
    testControls: capabilities.simulate,
    deposit: await getDepositPayment(deps, invoice),
  }
}
