import { AppError, withArticle } from '../domain/errors.js'
import type { Invoice } from '../domain/invoice.js'
import { readStatus } from '../domain/invoice.js'
import { storedExponent } from '../domain/invoice-view.js'
import { attemptKey, type PaymentAttempt } from '../domain/payment-attempt.js'
import type { CheckoutStarted, PaymentProvider } from '../ports/payment-provider.js'
import type { AppDeps } from './deps.js'
import { requireInvoiceId } from './require-id.js'

export type CheckoutDeps = Pick<AppDeps, 'store' | 'clock' | 'newId' | 'providers' | 'acquirers'>

/** How often a click that found another click's attempt starting looks again whether the acquirer answered it. */
const WAIT_STEP_MS = 50

/**
 * The buyer pressed Pay (docs/providers.md#checkout): the acquirer's hosted checkout for this invoice, made once per
 * attempt. The attempt is written first, numbered per invoice; the acquirer is asked with that attempt's
 * idempotency key. A second click, a reload or another tab finds the attempt and goes to the same checkout; one
 * that arrives while the first is still waiting for the acquirer waits for it (and, if that click died, asks again
 * with the same key: the same acquirer payment). An attempt the acquirer ended is followed by a new one.
 */
export async function startCheckout(
  deps: CheckoutDeps,
  rawId: string,
  /** The page's language when the buyer chose one (`?lang=`): the acquirer sends the buyer back to the page in it. */
  lang?: string,
): Promise<{ readonly redirectUrl: string }> {
  const id = requireInvoiceId(rawId)
  // a click waits for another's answer at most as long as the acquirer may take to give it
  let waits = Math.ceil((deps.acquirers.timeoutMs + 1000) / WAIT_STEP_MS)
  for (;;) {
    // read again on each round: the invoice may have been paid, expired or cancelled while this click waited
    const current = await deps.store.invoices.findById(id)
    if (current === undefined) throw new AppError('invoice_not_found', 'no such invoice')
    const provider = deps.providers.forService(current.service)
    if (!provider.capabilities.checkout) {
      throw new AppError('not_found', 'this invoice is paid on its payment page, not at a hosted checkout')
    }
    const now = deps.clock.now()
    assertPayable(current, now)
    const attempts = await deps.store.attempts.listByInvoice(id)
    const last = attempts.at(-1)
    if (last?.state === 'open' && last.redirectUrl !== null) return { redirectUrl: last.redirectUrl }
    if (last?.state === 'held' || last?.state === 'succeeded') {
      throw new AppError('invalid_transition', 'a payment of this invoice is already under way')
    }
    if (last?.state === 'starting' && last.provider === provider.name) {
      // another click is asking the acquirer: wait for its answer; past the acquirer's timeout, ask again ourselves
      if (waits > 0 && now.getTime() - last.createdAt.getTime() < deps.acquirers.timeoutMs + 1000) {
        waits -= 1
        await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS))
        continue
      }
      return ask(deps, provider, current, last, lang)
    }
    const attempt = newAttempt(deps, current, provider, (last?.attempt ?? 0) + 1, now)
    const inserted = await deps.store.transaction((tx) => tx.attempts.insert(attempt))
    if (inserted === 'inserted') return ask(deps, provider, current, attempt, lang)
    // another click inserted this attempt first: take what it made
  }
}

/** 409: only a pending invoice before its expiry starts a payment (docs/providers.md#late-payments). */
function assertPayable(invoice: Invoice, now: Date): void {
  const status = readStatus(invoice, now)
  if (status === 'pending') return
  throw new AppError(
    'invalid_transition',
    status === 'expired'
      ? `the invoice expired at ${invoice.expiresAt.toISOString()}; no payment can start`
      : `${withArticle(status)} invoice takes no new payment`,
  )
}

function newAttempt(
  deps: Pick<AppDeps, 'newId'>,
  invoice: Invoice,
  provider: PaymentProvider,
  attempt: number,
  now: Date,
): PaymentAttempt {
  return {
    id: deps.newId(),
    invoiceId: invoice.id,
    attempt,
    provider: provider.name,
    checkoutId: null,
    paymentId: null,
    redirectUrl: null,
    state: 'starting',
    amount: null,
    lateAction: null,
    nextCheckAt: null,
    checks: 0,
    version: 0,
    createdAt: now,
    updatedAt: now,
  }
}

/** Asks the acquirer for this attempt's checkout and records it; a refusal ends the attempt (the next click makes another). */
async function ask(
  deps: CheckoutDeps,
  provider: PaymentProvider,
  invoice: Invoice,
  attempt: PaymentAttempt,
  lang: string | undefined,
): Promise<{ readonly redirectUrl: string }> {
  const now = deps.clock.now()
  let started: CheckoutStarted
  try {
    started = await provider.startCheckout({
      reference: { invoiceId: invoice.id, attempt: attempt.attempt },
      idempotencyKey: attemptKey(invoice.id, attempt.attempt),
      amount: invoice.amount,
      currency: invoice.currency,
      exponent: storedExponent(invoice.currency),
      service: invoice.service,
      hold: deps.providers.holds(invoice.service),
      description: invoice.comment ?? `Order ${invoice.orderId}`,
      returnUrl: lang === undefined ? invoice.payUrl : `${invoice.payUrl}?lang=${encodeURIComponent(lang)}`,
      expiresAt: invoice.expiresAt,
      now,
    })
  } catch (err) {
    // refused: this key would be refused again; unavailable: the acquirer may have made it, so the key is kept
    if (err instanceof AppError && err.code === 'provider_error') {
      await deps.store.transaction((tx) =>
        tx.attempts.update({ ...attempt, state: 'ended', updatedAt: deps.clock.now() }, attempt.version),
      )
    }
    throw err
  }
  const after = deps.clock.now()
  // a notification about this very payment may commit between our read and our write (PostgreSQL): read again
  let recorded = false
  for (let round = 0; round < 3 && !recorded; round += 1)
    recorded = await record(deps, invoice, attempt, started, after)
  if (!recorded) throw new Error('the checkout attempt kept changing while it was recorded')
  return { redirectUrl: started.redirectUrl }
}

/** Writes what the acquirer made onto the attempt; false when another writer moved it between read and write. */
async function record(
  deps: CheckoutDeps,
  invoice: Invoice,
  attempt: PaymentAttempt,
  started: CheckoutStarted,
  after: Date,
): Promise<boolean> {
  return deps.store.transaction(async (tx) => {
    const stored = (await tx.attempts.find(invoice.id, attempt.attempt)) ?? attempt
    return tx.attempts.update(
      {
        ...stored,
        checkoutId: started.checkoutId,
        paymentId: stored.paymentId ?? started.paymentId,
        redirectUrl: started.redirectUrl,
        // a notification may have moved it on already (the buyer was quick): never back
        state: stored.state === 'starting' ? 'open' : stored.state,
        nextCheckAt: stored.nextCheckAt ?? new Date(after.getTime() + deps.acquirers.reconcileAfter * 1000),
        updatedAt: after,
      },
      stored.version,
    )
  })
}
