/** Branded identifiers. Generation needs randomness and time, so it lives in an adapter and is passed in as `newId`. */
export type InvoiceId = string & { readonly __brand: 'InvoiceId' }
export type MerchantId = string & { readonly __brand: 'MerchantId' }
export type ApiKeyId = string & { readonly __brand: 'ApiKeyId' }
export type EventId = string & { readonly __brand: 'EventId' }
export type DeliveryId = string & { readonly __brand: 'DeliveryId' }
export type AdminTokenId = string & { readonly __brand: 'AdminTokenId' }
export type UserId = string & { readonly __brand: 'UserId' }
export type SessionId = string & { readonly __brand: 'SessionId' }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
// Without the `u` flag, `i` matches an ASCII letter only by its ASCII other case (no other character folds to one),
// so a text matches this exactly when its lower case matches UUID.
const UUID_ANY_CASE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** True for a lowercase canonical UUID (docs/api.md#conventions: identifiers are lowercase UUIDs). */
export function isUuid(text: string): boolean {
  return UUID.test(text)
}

/** Accepts upper-case input too and normalizes it; undefined when the text is not a UUID. */
export function parseUuid(text: string): string | undefined {
  // the usual case, already lower case, costs one test and no new string
  if (UUID.test(text)) return text
  return UUID_ANY_CASE.test(text) ? text.toLowerCase() : undefined
}

export type NewId = () => string
