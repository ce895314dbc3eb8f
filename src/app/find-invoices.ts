import { validationFailed } from '../domain/errors.js'
import { parseUuid, type InvoiceId } from '../domain/ids.js'
import type { Invoice } from '../domain/invoice.js'
import type { AppDeps } from './deps.js'

/** At most this many invoices answer one lookup. */
export const FOUND_LIMIT = 50

/**
 * The operator's invoice lookup (docs/dashboard.md#operator-console): `q` is an invoice id or an order_id, exact, at
 * any merchant. An order_id is the merchant's own, so several merchants may have one: each of their invoices is
 * listed, newest first. A text that is a UUID is looked up as both (an order_id may be a UUID too).
 */
export async function findInvoices(deps: Pick<AppDeps, 'store'>, q: string): Promise<Invoice[]> {
  const text = q.trim()
  if (text === '') return []
  if ([...text].length > 128) throw validationFailed([{ field: 'q', message: 'must be at most 128 characters' }])
  const id = parseUuid(text) as InvoiceId | undefined
  const [byId, byOrder] = await Promise.all([
    id === undefined ? undefined : deps.store.invoices.findById(id),
    deps.store.console.invoicesByOrderId(text, FOUND_LIMIT),
  ])
  return byId === undefined ? byOrder : [byId, ...byOrder.filter((i) => i.id !== byId.id)]
}
