import { validationFailed, type FieldError } from '../domain/errors.js'
import type { Invoice } from '../domain/invoice.js'
import type { Merchant } from '../domain/merchant.js'
import type { AppDeps } from './deps.js'
import { parseInvoiceFilters, type ListInvoicesQuery } from './list-invoices.js'

/** Rows per store read of an export: what one batch holds in memory, whatever the export's size. */
export const EXPORT_BATCH = 1000

/**
 * The dashboard's CSV export (docs/dashboard.md#csv-export): every invoice the listing's filters select, newest
 * first, as batches of at most `batchSize` read one after another by keyset (the last row's (created_at, id)), so
 * an export of any size holds one batch at a time. The filters are checked before the first batch (400
 * validation_failed, nothing read); the status is read as of the export's start, like one page of the listing.
 */
export function exportInvoices(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  merchant: Merchant,
  query: Omit<ListInvoicesQuery, 'limit' | 'cursor' | 'before'>,
  batchSize = EXPORT_BATCH,
): { readonly asOf: Date; readonly batches: AsyncIterable<Invoice[]> } {
  const errors: FieldError[] = []
  const filters = parseInvoiceFilters(query, errors)
  if (errors.length > 0) throw validationFailed(errors)
  const asOf = deps.clock.now()
  async function* batches(): AsyncGenerator<Invoice[]> {
    let after: Invoice | undefined
    for (;;) {
      const rows = await deps.store.invoices.list({
        merchantId: merchant.id,
        limit: batchSize,
        now: asOf,
        ...filters,
        ...(after !== undefined && { after: { createdAt: after.createdAt, id: after.id } }),
      })
      if (rows.length > 0) yield rows
      if (rows.length < batchSize) return
      after = rows[rows.length - 1]
    }
  }
  return { asOf, batches: batches() }
}
