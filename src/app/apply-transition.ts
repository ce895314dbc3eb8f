import { serviceFee } from '../domain/catalog.js'
import { AppError, withArticle } from '../domain/errors.js'
import type { EventId, InvoiceId } from '../domain/ids.js'
import { readStatus, transition, type Invoice, type Status } from '../domain/invoice.js'
import { asMinor, type Minor } from '../domain/money.js'
import type { Tx } from '../ports/store.js'
import type { AppDeps } from './deps.js'
import { recordEvent } from './record-event.js'

export type TransitionDeps = Pick<AppDeps, 'store' | 'clock' | 'newId' | 'catalog' | 'eventSignal' | 'webhooks'>
export type Target = Exclude<Status, 'pending'>

/**
 * docs/api.md#fees-and-credited: credited = amount − the service's fee (rounded half up to the minor unit); never below 0. The fee is
 * the one fixed when the invoice was created; an invoice created before fees were kept with it (fee null) takes the
 * one configured now.
 */
export function creditedFor(deps: Pick<AppDeps, 'catalog'>, inv: Invoice): Minor {
  const fee = inv.fee ?? serviceFee(deps.catalog, inv.service, inv.currency, inv.amount)
  return asMinor(inv.amount - fee)
}

/**
 * Moves one invoice to `to` inside `tx`: the pure status machine decides, a compare-and-set on the status
 * writes, and the outbox event (with its delivery) is appended in the same transaction (docs/api.md#statuses, docs/webhooks.md#delivery); the
 * caller rings `eventSignal` after the commit. When another writer changed
 * the status between our read and our write, the invoice is read again and the machine decides anew, so two
 * racing transitions can never both win.
 */
export async function transitionIn(
  tx: Tx,
  deps: TransitionDeps,
  load: () => Promise<Invoice | undefined>,
  to: Target,
  now: Date,
  onlyFrom?: readonly Status[],
): Promise<Invoice> {
  for (let round = 0; round < 5; round += 1) {
    const current = await load()
    if (current === undefined) throw new AppError('invoice_not_found', 'no such invoice')
    const from = readStatus(current, now)
    if (onlyFrom !== undefined && !onlyFrom.includes(from)) throw notAllowedFrom(from, to, onlyFrom)
    const result = transition(current, {
      to,
      now,
      eventId: deps.newId() as EventId,
      ...(to === 'paid' && { credited: creditedFor(deps, current) }),
    })
    if (!result.ok) {
      throw new AppError('invalid_transition', `${withArticle(result.from)} invoice cannot become ${to}`)
    }
    if (await tx.invoices.update(result.invoice, current.status)) {
      await recordEvent(tx, deps, result.invoice, result.event)
      return result.invoice
    }
  }
  throw new Error(`invoice status kept changing under transition to ${to}`)
}

/** 409: the request may move an invoice only from `onlyFrom`, and it is `from`. */
export function notAllowedFrom(from: Status, to: Target, onlyFrom: readonly Status[]): AppError {
  return new AppError(
    'invalid_transition',
    `${withArticle(from)} invoice cannot become ${to} this way (only from ${onlyFrom.join(' or ')})`,
  )
}

export interface TransitionScope {
  /** Only this merchant's invoice; another's is reported as not found. */
  readonly merchantId?: string
  /** Only from these (read) statuses, narrower than the status machine (capture is hold → paid only). */
  readonly onlyFrom?: readonly Status[]
}

/** Transition of one invoice by id in a transaction of its own. */
export async function transitionById(
  deps: TransitionDeps,
  id: InvoiceId,
  to: Target,
  scope: TransitionScope = {},
): Promise<Invoice> {
  const { merchantId, onlyFrom } = scope
  const now = deps.clock.now()
  const invoice = await deps.store.transaction((tx) =>
    transitionIn(
      tx,
      deps,
      async () => {
        const inv = await tx.invoices.findById(id)
        return merchantId === undefined || inv?.merchantId === merchantId ? inv : undefined
      },
      to,
      now,
      onlyFrom,
    ),
  )
  deps.eventSignal.notify() // committed: its webhook can go out now
  return invoice
}
