import { decideDeposit, unitsToMajor, type Deposit, type SeenTransfer } from '../domain/evm-deposit.js'
import type { EventId, InvoiceId } from '../domain/ids.js'
import { readStatus, touchWithEvent, type Invoice } from '../domain/invoice.js'
import type { ChainTransfer, EvmChain } from '../ports/evm-chain.js'
import type { Tx } from '../ports/store.js'
import { transitionIn, type TransitionDeps } from './apply-transition.js'
import { recordEvent } from './record-event.js'

/** One service's token on its chain, as the detector reads it (docs/stablecoins.md#detection). */
export interface DetectorSettings {
  readonly service: string
  readonly chain: EvmChain
  readonly chainId: number
  /** Confirmations a transfer needs, its own block included. */
  readonly confirmations: number
  readonly decimals: number
  /** This instance: the cursor's lease is taken in its name. */
  readonly owner: string
  readonly leaseMs: number
  /** The most blocks one eth_getLogs asks about, and the most new blocks one round reads. */
  readonly blockRange: number
  /** The most deposit addresses one eth_getLogs names. */
  readonly addressBatch: number
}

export interface DetectorRound {
  /** Whether this instance held the cursor (another one may be reading the chain). */
  readonly led: boolean
  readonly head: bigint
  readonly inserted: number
  readonly dropped: number
  /** Invoices whose transfers changed and were settled anew. */
  readonly settled: number
}

/**
 * One round of the detector of a service (docs/stablecoins.md#detection): under the cursor's lease, counts the
 * confirmations of the transfers not final yet and drops those a reorg took out of the chain, reads the token's
 * Transfer logs to watched deposit addresses from the cursor (and again over the last blocks not final, where a
 * reorg may have put a transfer anew), then writes all of it and moves the cursor in one transaction, by
 * compare-and-set: a round that lost its lease writes nothing, and a crash loses nothing (the next round reads the
 * same blocks again). Each invoice whose transfers changed is then settled by the status machine.
 */
export async function detectEvmPayments(deps: TransitionDeps, s: DetectorSettings): Promise<DetectorRound> {
  const head = await s.chain.head()
  const now = deps.clock.now()
  const window = BigInt(s.confirmations)
  const initial = head >= BigInt(s.blockRange) ? head - BigInt(s.blockRange) + 1n : 0n
  const cursor = await deps.store.evm.takeCursor(s.service, s.owner, now, new Date(now.getTime() + s.leaseMs), initial)
  if (cursor === undefined) return { led: false, head, inserted: 0, dropped: 0, settled: 0 }

  // the transfers not final: still in the chain (same block hash)? how deep now?
  const blocks = new Map<bigint, { hash: string; time: Date } | undefined>()
  const blockAt = async (n: bigint) => {
    if (!blocks.has(n)) blocks.set(n, await s.chain.block(n))
    return blocks.get(n)
  }
  const dropped: SeenTransfer[] = []
  const recounted: { t: SeenTransfer; confirmations: number }[] = []
  for (const t of await deps.store.evm.listUnconfirmed(s.service, s.confirmations)) {
    const b = t.blockNumber <= head ? await blockAt(t.blockNumber) : undefined
    if (b === undefined || b.hash !== t.blockHash) dropped.push(t)
    else recounted.push({ t, confirmations: Number(head - t.blockNumber + 1n) })
  }

  // what to read: from the cursor, and again over the blocks not final (a reorg may have re-included a transfer)
  let from = cursor.nextBlock
  const unsettled = head >= window ? head - window + 1n : 0n
  if (unsettled < from) from = unsettled
  for (const t of dropped) if (t.blockNumber < from) from = t.blockNumber
  const to = cursor.nextBlock + BigInt(s.blockRange) - 1n < head ? cursor.nextBlock + BigInt(s.blockRange) - 1n : head

  const found: { transfer: ChainTransfer; invoiceId: InvoiceId }[] = []
  if (from <= to) {
    let after = ''
    for (;;) {
      const page: Deposit[] = await deps.store.evm.listWatching(s.service, now, after, s.addressBatch)
      if (page.length === 0) break
      const byAddress = new Map(page.map((d) => [d.address, d.invoiceId]))
      for (let start = from; start <= to; start += BigInt(s.blockRange)) {
        const end = start + BigInt(s.blockRange) - 1n < to ? start + BigInt(s.blockRange) - 1n : to
        for (const transfer of await s.chain.transfersTo(start, end, [...byAddress.keys()])) {
          const invoiceId = byAddress.get(transfer.to)
          if (invoiceId !== undefined) found.push({ transfer, invoiceId })
        }
      }
      if (page.length < s.addressBatch) break
      after = page[page.length - 1]?.address ?? ''
    }
  }
  const fresh: SeenTransfer[] = []
  for (const { transfer: c, invoiceId } of found) {
    const b = await blockAt(c.blockNumber)
    if (b === undefined || b.hash !== c.blockHash) continue // reorganised while we read: the next round sees it
    fresh.push({
      chainId: s.chainId,
      txHash: c.txHash,
      logIndex: c.logIndex,
      invoiceId,
      blockNumber: c.blockNumber,
      blockHash: c.blockHash,
      blockTime: b.time,
      amount: c.amount,
      confirmations: Number(head - c.blockNumber + 1n),
      reportedAt: null,
      createdAt: now,
    })
  }

  // the chain is read up to this block's time: deposit invoices expiring before it may now expire
  const readUntil = (await blockAt(to))?.time ?? new Date(0)
  const changed = new Set<InvoiceId>()
  const written = await deps.store.transaction(async (tx) => {
    for (const t of dropped) {
      await tx.evm.deleteTransfer(t)
      changed.add(t.invoiceId)
    }
    for (const { t, confirmations } of recounted) {
      if (confirmations === t.confirmations) continue
      await tx.evm.updateConfirmations(t, confirmations)
      changed.add(t.invoiceId)
    }
    let inserted = 0
    for (const t of fresh) {
      if (await tx.evm.insertTransfer(t)) {
        inserted += 1
        changed.add(t.invoiceId)
      }
    }
    // lost the lease meanwhile (this round outlived it, and another instance took over): write nothing
    if (!(await tx.evm.advanceCursor(s.service, s.owner, cursor.nextBlock, to + 1n, readUntil, now)))
      throw new LeaseLost(s.service)
    return inserted
  })

  // and what an invoice expired with, short of its amount: late money too (docs/stablecoins.md#late-payments)
  for (const id of await deps.store.evm.listUnreported(s.service, s.confirmations, now, s.addressBatch)) changed.add(id)
  let settled = 0
  for (const id of changed) if (await settleDeposit(deps, id, s)) settled += 1
  return { led: true, head, inserted: written, dropped: dropped.length, settled }
}

export class LeaseLost extends Error {
  constructor(service: string) {
    super(`the detector of ${service} lost its lease to another instance; its round was not written`)
    this.name = 'LeaseLost'
  }
}

/**
 * What an invoice's transfers mean for it now (domain/evm-deposit.ts decideDeposit), applied in one transaction:
 * paid (and its sweep due), waiting for an on-time payment's confirmations instead of expiring, or late money
 * reported with invoice.late_payment. Idempotent: it decides from what is stored, and every move is a
 * compare-and-set. Returns whether anything moved.
 */
export async function settleDeposit(
  deps: TransitionDeps,
  invoiceId: InvoiceId,
  s: Pick<DetectorSettings, 'confirmations' | 'decimals'>,
): Promise<boolean> {
  const now = deps.clock.now()
  const moved = await deps.store.transaction(async (tx) => {
    const deposit = await tx.evm.findDeposit(invoiceId)
    let invoice = await tx.invoices.findById(invoiceId)
    if (deposit === undefined || invoice === undefined) return false
    const transfers = await tx.evm.listTransfers(invoiceId)
    let d = decideDeposit(invoice, deposit, transfers, s.confirmations, now)
    let changed = false
    if (d.pay !== undefined) {
      // on time by its block: paid even past expired_at (the invoice was waiting for it)
      await transitionIn(tx, deps, async () => seen(await tx.invoices.findById(invoiceId), now), 'paid', now)
      await tx.evm.addSweep(invoiceId, now)
      await tx.evm.setDepositState(invoiceId, 'done')
      return true
    }
    if (invoice.status === 'pending') {
      const waiting = invoice.paymentSeenAt !== undefined
      if (d.confirmingOnTime !== waiting) {
        const next = d.confirmingOnTime ? seen(invoice, now) : unseen(invoice)
        if (next !== undefined && (await tx.invoices.update(next, 'pending'))) {
          invoice = next
          changed = true
        }
      }
      // past expired_at with nothing on time confirming: expire it now, so invoice.expired comes before any late_payment
      if (readStatus(invoice, now) === 'expired' && d.final > 0n) {
        invoice = await transitionIn(tx, deps, () => tx.invoices.findById(invoiceId), 'expired', now)
        d = decideDeposit(invoice, deposit, transfers, s.confirmations, now)
        changed = true
      }
    }
    for (const t of d.late) {
      invoice = await reportLate(tx, deps, invoice, t, s.decimals, now)
      changed = true
    }
    if (d.done) await tx.evm.setDepositState(invoiceId, 'done')
    return changed
  })
  if (moved) deps.eventSignal.notify()
  return moved
}

const seen = (inv: Invoice | undefined, now: Date): Invoice | undefined =>
  inv && { ...inv, paymentSeenAt: inv.paymentSeenAt ?? now }

function unseen(inv: Invoice): Invoice {
  const { paymentSeenAt: _dropped, ...rest } = inv
  return rest
}

/** docs/stablecoins.md#late-payments: the money stays at the deposit, the merchant settles by hand. */
async function reportLate(
  tx: Tx,
  deps: TransitionDeps,
  invoice: Invoice,
  t: SeenTransfer,
  decimals: number,
  now: Date,
): Promise<Invoice> {
  const touched = touchWithEvent(invoice, 'invoice.late_payment', now, deps.newId() as EventId)
  if (!(await tx.invoices.update(touched.invoice, invoice.status)))
    throw new Error('the invoice changed while its late payment was reported')
  await tx.evm.markReported(t, now)
  await recordEvent(tx, deps, touched.invoice, touched.event, {
    late_payment: {
      amount: Number(unitsToMajor(t.amount, decimals)),
      currency: invoice.currency,
      provider: 'evm',
      payment_id: t.txHash,
      action: 'none',
    },
  })
  return touched.invoice
}
