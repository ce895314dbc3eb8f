/**
 * The merchant's invoices (docs/dashboard.md#invoices): the filtered, keyset-paged list, its streamed CSV export
 * (docs/dashboard.md#csv-export), and an invoice's page with its timeline, webhook deliveries and refunds, and the
 * owner's actions (docs/dashboard.md#the-invoice-page). Thin: every read and action is the API's use case, scoped by
 * the signed-in user's merchant; another merchant's invoice or delivery answers 404 `not_found`.
 */
import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Merchant } from '../../../domain/merchant.js'
import { AppError, validationFailed, type FieldError } from '../../../domain/errors.js'
import { readStatus, type Invoice } from '../../../domain/invoice.js'
import { isoTime } from '../../../domain/iso-time.js'
import { storedExponent } from '../../../domain/invoice-view.js'
import { formatAmount } from '../../../domain/money.js'
import { fieldOf, notFound, queryOf, type DashboardContext, type MerchantUser } from '../context.js'
import { appPage, href } from '../shell.js'
import { INVOICE_STRINGS } from '../strings/invoices.js'
import type { Page } from '../views.js'
import {
  FILTER_NAMES,
  invoiceContent,
  listContent,
  type FilterForm,
  type InvoicePageData,
  type Notice,
} from './invoices-views.js'

type IdParams = { Params: { id: string } }
const NOTICES: readonly Notice[] = ['captured', 'cancelled', 'refunded', 'redelivered']
/** Errors that are the page's answer as they are (the error page), not a refusal shown on the invoice page. */
const NOT_SHOWN = new Set(['not_found', 'invoice_not_found', 'forbidden', 'csrf_failed', 'unauthenticated'])

export async function invoicesPages(scope: FastifyInstance, ctx: DashboardContext): Promise<void> {
  const { deps, pageOf, send } = ctx

  scope.get('/dashboard/invoices', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.merchantPage(request, reply)
    if (who === undefined) return reply
    const p = pageOf(request)
    const filters = filterForm(request)
    const cursor = queryOf(request, 'cursor')
    const before = queryOf(request, 'before')
    const listed = await deps.invoices.list(who.merchant, {
      ...listQuery(filters),
      ...(cursor !== '' && { cursor }),
      ...(before !== '' && { before }),
    })
    const content = listContent(p, {
      filters,
      invoices: listed.invoices,
      statusOf: (i) => readStatus(i, listed.asOf),
      next: listed.nextCursor,
      prev: listed.prevCursor,
    })
    return send(reply, 200, appPage(p, who, 'invoices', INVOICE_STRINGS[p.lang].title, content))
  })

  scope.get('/dashboard/invoices.csv', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.merchantPage(request, reply)
    if (who === undefined) return reply
    // the filters are checked here, before a byte is sent: a bad one is a 400 page, not a broken file
    const { asOf, batches } = deps.invoices.export(who.merchant, listQuery(filterForm(request)))
    const day = isoTime(asOf).slice(0, 10)
    return reply
      .code(200)
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="invoices-${day}.csv"`)
      .send(Readable.from(csvLines(batches, asOf)))
  })

  scope.get<IdParams>('/dashboard/invoices/:id', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.merchantPage(request, reply)
    if (who === undefined) return reply
    const done = queryOf(request, 'done') as Notice
    const data = await invoicePage(ctx, who, request.params.id, NOTICES.includes(done) ? done : undefined)
    return sendInvoice(ctx, request, reply, who, 200, data)
  })

  /** An owner's action on the invoice: 303 back to its page with a notice, or the page with the refusal. */
  const act = (name: string, run: (merchant: Merchant, request: FastifyRequest<IdParams>) => Promise<Notice>) =>
    scope.post<IdParams>(`/dashboard/invoices/:id/${name}`, { schema: { hide: true } }, async (request, reply) => {
      const who = await ctx.ownerPost(request)
      const id = request.params.id
      try {
        const notice = await run(who.merchant, request)
        const p = pageOf(request)
        return reply
          .code(303)
          .header('location', href(p, `/dashboard/invoices/${id}`, { done: notice }))
          .send()
      } catch (err) {
        if (!(err instanceof AppError) || NOT_SHOWN.has(err.code)) throw asNotFound(err)
        const data = await invoicePage(ctx, who, id, undefined)
        const error = { status: err.status, code: err.code, detail: err.message }
        return sendInvoice(ctx, request, reply, who, err.status, { ...data, error })
      }
    })

  act('capture', async (merchant, request) => {
    await deps.invoices.capture(merchant, request.params.id)
    return 'captured'
  })
  act('cancel', async (merchant, request) => {
    await deps.invoices.cancel(merchant, request.params.id)
    return 'cancelled'
  })
  act('refund', async (merchant, request) => {
    const amount = fieldOf(request.body, 'amount').trim()
    const reason = fieldOf(request.body, 'reason').trim()
    await deps.refunds.create(merchant, request.params.id, {
      idempotencyKey: fieldOf(request.body, 'idempotency_key'),
      ...(amount !== '' && { amount }),
      ...(reason !== '' && { reason }),
    })
    return 'refunded'
  })

  scope.post<{ Params: { id: string; delivery: string } }>(
    '/dashboard/invoices/:id/deliveries/:delivery/redeliver',
    { schema: { hide: true } },
    async (request, reply) => {
      const who = await ctx.ownerPost(request)
      const { id, delivery } = request.params
      // the delivery must be one of this invoice's, and the invoice this merchant's
      const { deliveries } = await deps.webhooks
        .listDeliveries(who.merchant, { invoiceId: id, limit: '200' })
        .catch((err: unknown) => {
          throw asNotFound(err)
        })
      if (!deliveries.some((d) => d.id === delivery)) throw notFound()
      await deps.webhooks.redeliver(who.merchant, delivery)
      const p = pageOf(request)
      return reply
        .code(303)
        .header('location', href(p, `/dashboard/invoices/${id}`, { done: 'redelivered' }))
        .send()
    },
  )
}

/** The use cases' 404 for an invoice (and a malformed id) is the dashboard's: `not_found`, as if nothing were there. */
function asNotFound(err: unknown): unknown {
  if (!(err instanceof AppError)) return err
  if (err.code === 'invoice_not_found') return notFound()
  if (err.code === 'validation_failed' && err.errors?.some((e) => /_id$/.test(e.field))) return notFound()
  return err
}

async function invoicePage(
  ctx: DashboardContext,
  who: MerchantUser,
  id: string,
  notice: Notice | undefined,
): Promise<Omit<InvoicePageData, 'csrf'>> {
  const { deps } = ctx
  try {
    const { invoice, refunded } = await deps.invoices.detail(who.merchant, id)
    const [events, { deliveries }, refunds] = await Promise.all([
      deps.invoices.events(who.merchant, invoice.id),
      deps.webhooks.listDeliveries(who.merchant, { invoiceId: invoice.id, limit: '200' }),
      deps.refunds.list(who.merchant, invoice.id),
    ])
    return {
      invoice,
      status: readStatus(invoice, deps.now()),
      refunded,
      events,
      deliveries,
      refunds,
      refundKey: randomUUID(),
      notice,
    }
  } catch (err) {
    throw asNotFound(err)
  }
}

function sendInvoice(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  who: MerchantUser,
  status: number,
  data: Omit<InvoicePageData, 'csrf'>,
): FastifyReply {
  const p: Page = ctx.pageOf(request)
  const csrf = who.user.role === 'owner' ? who.session.csrfToken : undefined
  const title = `${INVOICE_STRINGS[p.lang].invoice} ${data.invoice.orderId}`
  return ctx.send(reply, status, appPage(p, who, 'invoices', title, invoiceContent(p, { ...data, csrf })))
}

/** The list's filters from the query, as typed ('' when not set). */
function filterForm(request: FastifyRequest): FilterForm {
  return Object.fromEntries(FILTER_NAMES.map((k) => [k, queryOf(request, k).trim()])) as unknown as FilterForm
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/**
 * The form's filters as the list use case takes them: a set one only; the dates (UTC days) as the instants that
 * bound them — created_from at its day's start, created_to through its day's end (the next day's start, exclusive).
 */
function listQuery(f: FilterForm) {
  const errors: FieldError[] = []
  const day = (field: string, text: string, plusDays: number): string | undefined => {
    if (text === '') return undefined
    const m = DATE.exec(text)
    const at = m === null ? Number.NaN : Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + plusDays)
    // a real calendar day: 2026-02-30 does not round-trip
    if (
      m === null ||
      Number.isNaN(at) ||
      new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).toISOString().slice(0, 10) !== text
    ) {
      errors.push({ field, message: 'must be a date such as 2026-11-27' })
      return undefined
    }
    return new Date(at).toISOString()
  }
  const createdFrom = day('created_from', f.created_from, 0)
  const createdTo = day('created_to', f.created_to, 1)
  if (errors.length > 0) throw validationFailed(errors)
  return {
    ...(f.status !== '' && { status: f.status }),
    ...(f.service !== '' && { service: f.service }),
    ...(f.currency !== '' && { currency: f.currency.toUpperCase() }),
    ...(f.q !== '' && { q: f.q }),
    ...(createdFrom !== undefined && { createdFrom }),
    ...(createdTo !== undefined && { createdTo }),
  }
}

export const CSV_COLUMNS = [
  'id',
  'order_id',
  'amount',
  'currency',
  'status',
  'service',
  'credited',
  'fee',
  'created_at',
  'paid_at',
  'expires_at',
  'comment',
] as const

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, a quote, CR or LF (its quotes doubled). A cell a
 * spreadsheet would read as a formula (= + - @, or a tab or CR first) gets a leading apostrophe first (OWASP's
 * CSV injection advice): an order_id or comment is the merchant's buyers' text.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

function csvRow(i: Invoice, asOf: Date): string {
  const exp = storedExponent(i.currency)
  const cells = [
    i.id,
    i.orderId,
    formatAmount(i.amount, exp),
    i.currency,
    readStatus(i, asOf),
    i.service,
    i.credited === null ? '' : formatAmount(i.credited, exp),
    i.fee === null ? '' : formatAmount(i.fee, exp),
    isoTime(i.createdAt),
    i.paidAt === null ? '' : isoTime(i.paidAt),
    isoTime(i.expiresAt),
    i.comment ?? '',
  ]
  return cells.map(csvCell).join(',')
}

/** The header, then one chunk per batch: the stream pulls the next batch only as the client reads. */
async function* csvLines(batches: AsyncIterable<Invoice[]>, asOf: Date): AsyncGenerator<string> {
  yield CSV_COLUMNS.join(',') + '\r\n'
  for await (const batch of batches) yield batch.map((i) => csvRow(i, asOf) + '\r\n').join('')
}
