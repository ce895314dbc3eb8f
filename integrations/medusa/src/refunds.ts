import { InvoiceServiceError, type InvoiceServiceErrorCode } from '@invoice-service/client'
import type { InvoiceServiceOptions } from './options'

/** A refund of the service (docs/refunds.md). */
export interface Refund {
  id: string
  invoice_id: string
  amount: string
  currency: string
  status: 'pending' | 'succeeded' | 'failed'
  reason: string | null
  failure_reason: string | null
}

/**
 * POST /api/v1/invoices/{id}/refunds with an Idempotency-Key: the same key and body answer the same refund, so a
 * retry after no answer never refunds twice. Written with fetch until the typed client has the refunds endpoint.
 */
export async function createRefund(
  options: Pick<InvoiceServiceOptions, 'apiUrl' | 'apiKey'>,
  invoiceId: string,
  idempotencyKey: string,
  body: { amount?: string; reason?: string },
): Promise<Refund> {
  const url = `${options.apiUrl.replace(/\/+$/, '')}/api/v1/invoices/${encodeURIComponent(invoiceId)}/refunds`
  let res: Response
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': options.apiKey, 'idempotency-key': idempotencyKey },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(15_000),
    })
  } catch (cause) {
    throw new InvoiceServiceError({ status: 0, code: 'network_error', detail: String(cause), cause })
  }
  const text = await res.text()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (res.ok && typeof parsed === 'object' && parsed !== null && 'id' in parsed) return parsed as Refund
  const problem = (parsed ?? {}) as { code?: string; detail?: string }
  throw new InvoiceServiceError({
    status: res.status,
    code: (problem.code ?? 'unexpected_response') as InvoiceServiceErrorCode,
    detail: problem.detail ?? `HTTP ${res.status}: ${text.slice(0, 200)}`,
    requestId: res.headers.get('x-request-id') ?? undefined,
  })
}
