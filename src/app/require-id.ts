import { validationFailed } from '../domain/errors.js'
import { parseUuid, type InvoiceId } from '../domain/ids.js'

/** A UUID from a path, query or CLI argument, or 400 validation_failed naming `field`. */
export function requireUuid(field: string, text: string): string {
  const id = parseUuid(text)
  if (id === undefined) throw validationFailed([{ field, message: 'must be a UUID' }])
  return id
}

/** An invoice id, or 400 validation_failed naming `invoice_id`. */
export function requireInvoiceId(text: string): InvoiceId {
  return requireUuid('invoice_id', text) as InvoiceId
}
