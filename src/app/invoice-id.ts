import { validationFailed } from '../domain/errors.js'
import { parseUuid, type InvoiceId } from '../domain/ids.js'

/** An invoice id from a path or query, or 400 validation_failed naming `invoice_id`. */
export function requireInvoiceId(text: string): InvoiceId {
  const id = parseUuid(text)
  if (id === undefined) throw validationFailed([{ field: 'invoice_id', message: 'must be a UUID' }])
  return id as InvoiceId
}
