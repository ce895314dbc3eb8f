import { PaymentActions, PaymentSessionStatus } from '@medusajs/framework/utils'

/** An invoice status of the service (docs/api.md#statuses). */
export type InvoiceStatus = 'pending' | 'hold' | 'paid' | 'failed' | 'expired'

/** The payment session status Medusa gets for an invoice status (the README's status map). */
export const SESSION_STATUS: Record<InvoiceStatus, PaymentSessionStatus> = {
  pending: PaymentSessionStatus.PENDING,
  hold: PaymentSessionStatus.AUTHORIZED,
  paid: PaymentSessionStatus.CAPTURED,
  failed: PaymentSessionStatus.ERROR,
  expired: PaymentSessionStatus.CANCELED,
}

/** The webhook action Medusa gets for an event of the service; events not listed are not acted upon. */
export const EVENT_ACTION: Readonly<Record<string, PaymentActions>> = {
  'invoice.hold': PaymentActions.AUTHORIZED,
  'invoice.paid': PaymentActions.SUCCESSFUL,
  'invoice.failed': PaymentActions.FAILED,
  'invoice.expired': PaymentActions.CANCELED,
}
