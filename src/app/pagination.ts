import type { FieldError } from '../domain/errors.js'
import type { Cursor } from '../ports/store.js'

/** Newest-first listings (invoices, webhook deliveries): `limit` and an opaque `cursor` = the last row's (created_at, id). */
export const DEFAULT_PAGE = 50
export const MAX_PAGE = 200

/** `limit` from the query, or a field error: a whole number from 1 to MAX_PAGE; DEFAULT_PAGE when absent. */
export function parseLimit(text: string | undefined, errors: FieldError[]): number {
  if (text === undefined) return DEFAULT_PAGE
  // digits only (no sign, point, exponent or spaces), leading zeros allowed however many: `0050` is 50
  if (/^0*[0-9]{1,3}$/.test(text) && Number(text) >= 1 && Number(text) <= MAX_PAGE) return Number(text)
  errors.push({ field: 'limit', message: `must be a whole number from 1 to ${MAX_PAGE}` })
  return DEFAULT_PAGE
}

/** A listing's filter that takes one of `allowed` (a status), or a field error naming them; absent: undefined. */
export function parseOneOf<T extends string>(
  field: string,
  text: string | undefined,
  allowed: readonly T[],
  errors: FieldError[],
): T | undefined {
  if (text === undefined) return undefined
  if ((allowed as readonly string[]).includes(text)) return text as T
  errors.push({ field, message: `must be one of ${allowed.join(', ')}` })
  return undefined
}

/** The position a `cursor` of ours names, or a field error for anything this service did not issue. */
export function parseCursor(text: string | undefined, errors: FieldError[], field = 'cursor'): Cursor | undefined {
  if (text === undefined) return undefined
  const cursor = decodeCursor(text)
  if (cursor === undefined) errors.push({ field, message: 'is not a cursor this service issued' })
  return cursor
}

/** Rows fetched with `limit + 1`: the page, and the cursor of the next one when there is more. */
export function pageOf<T extends { readonly createdAt: Date; readonly id: string }>(
  rows: T[],
  limit: number,
): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return {
    page,
    nextCursor:
      rows.length > limit && last !== undefined ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  }
}

/** The opaque cursor of a row's position. */
export function cursorOf(row: { readonly createdAt: Date; readonly id: string }): string {
  return encodeCursor({ createdAt: row.createdAt, id: row.id })
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.createdAt.getTime()}:${c.id}`, 'utf8').toString('base64url')
}

function decodeCursor(text: string): Cursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return undefined
  const m = /^(\d{1,15}):([0-9a-f-]{36})$/.exec(Buffer.from(text, 'base64url').toString('utf8'))
  return m ? { createdAt: new Date(Number(m[1])), id: m[2] ?? '' } : undefined
}
