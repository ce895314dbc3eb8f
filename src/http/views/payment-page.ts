import type { DepositPayment } from '../../app/get-deposit-payment.js'
import type { Invoice, Status } from '../../domain/invoice.js'
import type { Minor } from '../../domain/money.js'
import { currencyName, formatDateTime, formatMoney, formatRemaining } from './format.js'
import { html, safeHref, type SafeHtml } from './html.js'
import { ICONS } from './icons.js'
import { MESSAGES, type Lang, type Messages } from './i18n.js'
import { layout } from './layout.js'

/** What the page shows: the invoice, its merchant's name and the status as it reads now (docs/api.md#getinfo). */
export interface PaymentPageData {
  readonly invoice: Invoice
  readonly merchantName: string
  readonly status: Status
  /** Paid at the acquirer's hosted checkout: a Pay button (docs/providers.md#checkout); default false. */
  readonly checkout?: boolean
  /** The sandbox's test controls act on this invoice (the sandbox is its provider); default true. */
  readonly testControls?: boolean
  /** A stablecoin invoice's deposit (docs/stablecoins.md#states): where to send what, and what was seen. */
  readonly deposit?: DepositPayment | undefined
}

/** Names of well-known chains; any other is shown by its id. */
const CHAINS: Readonly<Record<number, string>> = {
  1: 'Ethereum',
  10: 'OP Mainnet',
  56: 'BNB Smart Chain',
  137: 'Polygon PoS',
  8453: 'Base',
  42161: 'Arbitrum One',
  11155111: 'Sepolia (test)',
  31337: 'Local test chain',
}

/** What changes on the page while it stays pending: the status feed's `progress`, which the script compares. */
export const depositProgress = (d: DepositPayment | undefined): string | undefined =>
  d === undefined ? undefined : `${d.received}/${d.confirmations}`

export interface PageContext {
  readonly lang: Lang
  /** `?lang=` was given: the test-control forms keep it, so the redirect after a form post keeps the language. */
  readonly explicitLang: boolean
  /** The sandbox provider is on: TEST MODE banner and the pay / hold / decline controls. */
  readonly sandbox: boolean
  readonly now: Date
  /**
   * The path of PUBLIC_URL ('' at the root). With one, a reverse proxy serves the service under it and strips it:
   * the page's own links, assets, QR image and status feed carry it, or the browser would ask the proxy's root.
   */
  readonly base: string
  /**
   * The buyer's Pay just failed at the acquirer (docs/providers.md#checkout): `refused` or `unavailable`, said above
   * the Pay button so the buyer knows to try again (or later). Undefined otherwise.
   */
  readonly checkoutFailed?: 'refused' | 'unavailable' | undefined
}

/** The payment page of an invoice, under `base` (PageContext.base). */
export const payPath = (base: string, id: string): string => `${base}/pay/${id}`

/** Where the final view sends the buyer back to: success_url when paid, fail_url when failed or expired. */
export function redirectUrlOf(invoice: Pick<Invoice, 'successUrl' | 'failUrl'>, status: Status): string | null {
  if (status === 'paid') return invoice.successUrl
  return status === 'failed' || status === 'expired' ? invoice.failUrl : null
}

/** The hosted payment page (docs/payment-page.md) in one of its five states. */
export function renderPaymentPage(data: PaymentPageData, ctx: PageContext): string {
  const { invoice, status } = data
  const t = MESSAGES[ctx.lang]
  const amount = formatMoney(invoice.amount as Minor, invoice.currency, ctx.lang)
  const base = t.pageTitle(amount, data.merchantName)
  const title = status === 'pending' ? base : `${t.statusName[status]} · ${base}`
  const path = payPath(ctx.base, invoice.id)
  const testMode = ctx.sandbox && data.testControls !== false
  const view = html`<div
    class="card"
    data-view
    data-status="${status}"
    data-lang="${ctx.lang}"
    data-status-url="${`${path}/status`}"
    data-page-url="${`${path}?lang=${ctx.lang}`}"
    data-now="${ctx.now.toISOString()}"
    data-expires-at="${invoice.expiresAt.toISOString()}"
    data-day-unit="${t.dayUnit}"
    data-progress="${depositProgress(data.deposit) ?? ''}"
  >
    <p class="eyebrow">${t.invoiceFrom}</p>
    <h1>${data.merchantName}</h1>
    <p class="amount-label">${status === 'pending' ? t.amountDue : t.amount}</p>
    <p class="amount">${amount}</p>
    ${statusBlock(data, ctx, t)} ${status === 'pending' && data.deposit !== undefined && depositBlock(data.deposit, t)}
    ${
      status === 'pending' &&
      html`<figure class="qr">
        <img src="${`${ctx.base}/qr/${invoice.id}.png`}" alt="${t.qrAlt(amount)}" data-qr />
        <figcaption>${t.scanQr}</figcaption>
      </figure>`
    }
    ${
      data.checkout === true &&
      status === 'pending' &&
      ctx.checkoutFailed !== undefined &&
      html`<p class="checkout-error" role="alert">${t.checkoutFailed[ctx.checkoutFailed]}</p>`
    }
    ${data.checkout === true && status === 'pending' && checkoutForm(invoice.id, amount, ctx, t)}
    ${details(data, ctx, t)}
    ${testMode && (status === 'pending' || status === 'hold') && testControls(invoice.id, status, ctx, t)}
  </div>`
  return layout({ lang: ctx.lang, title, path, base: ctx.base, testMode, main: view }).value
}

/** A stablecoin deposit: network, token, the address to copy, the exact amount and the confirmations so far. */
function depositBlock(d: DepositPayment, t: Messages): SafeHtml {
  const seen = d.txHash !== null
  const short = d.received !== d.amount && seen && d.confirmations >= d.required
  return html`<section class="deposit" aria-labelledby="deposit-heading" data-deposit>
    <h2 id="deposit-heading">${t.deposit.heading}</h2>
    <dl class="details">
      <div>
        <dt>${t.deposit.network}</dt>
        <dd data-network>${CHAINS[d.chainId] ?? `chain ${d.chainId}`} (${d.chainId})</dd>
      </div>
      <div class="stack">
        <dt>${t.deposit.token}</dt>
        <dd><code data-token>${d.token}</code></dd>
      </div>
      <div class="stack">
        <dt>${t.deposit.address}</dt>
        <dd class="copyable">
          <input type="text" readonly value="${d.address}" aria-label="${t.deposit.address}" data-deposit-address />
          <button type="button" class="btn btn-secondary" data-copy="${d.address}" data-copied="${t.deposit.copied}">
            ${t.deposit.copy}
          </button>
        </dd>
      </div>
      <div>
        <dt>${t.deposit.exactAmount}</dt>
        <dd data-exact-amount>${d.amount}</dd>
      </div>
    </dl>
    <p class="note">${t.deposit.onlyThisNetwork}</p>
    ${seen && html`<p class="confirmations" role="status" data-confirmations>${t.deposit.seen(d.confirmations, d.required)}</p>`}
    ${short && html`<p class="received" data-received>${t.deposit.received(d.received, d.amount)}</p>`}
  </section>`
}

/** Pay: on to the acquirer's hosted checkout (docs/providers.md#checkout), which sends the buyer back here. */
function checkoutForm(id: string, amount: string, ctx: PageContext, t: Messages): SafeHtml {
  const action = `${payPath(ctx.base, id)}/checkout${ctx.explicitLang ? `?lang=${ctx.lang}` : ''}`
  return html`<form class="checkout" method="post" action="${action}" data-checkout>
    <button type="submit" class="btn btn-primary">${t.payAmount(amount)}</button>
  </form>`
}

function statusBlock(data: PaymentPageData, ctx: PageContext, t: Messages): SafeHtml {
  const { invoice, status } = data
  const back = safeHref(redirectUrlOf(invoice, status))
  const left = invoice.expiresAt.getTime() - ctx.now.getTime()
  return html`<section class="${`status status-${status}`}" aria-labelledby="status-heading">
    <h2 id="status-heading" tabindex="-1" data-status-heading>${ICONS[status]}<span>${t.statusName[status]}</span></h2>
    <p>${t.statusText[status]}</p>
    ${status === 'pending' && html`<p class="timer">${t.timeLeft}: <span role="timer" data-countdown>${formatRemaining(left, t.dayUnit)}</span></p>`}
    ${
      (status === 'pending' || status === 'hold') &&
      html`<noscript
        ><p>
          <a href="${payPath(ctx.base, invoice.id) + (ctx.explicitLang ? `?lang=${ctx.lang}` : '')}"
            >${t.checkStatus}</a
          >
        </p></noscript
      >`
    }
    ${back !== undefined && html`<p class="back"><a class="btn btn-primary" href="${back}" data-back>${t.backToShop}</a></p>`}
  </section>`
}

function details(data: PaymentPageData, ctx: PageContext, t: Messages): SafeHtml {
  const { invoice, status } = data
  const row = (label: string, value: SafeHtml | string, stack = false): SafeHtml =>
    html`<div${stack ? html` class="stack"` : ''}><dt>${label}</dt><dd>${value}</dd></div>`
  const time = (at: Date): SafeHtml =>
    html`<time datetime="${at.toISOString()}" data-local>${formatDateTime(at, ctx.lang)}</time>`
  return html`<dl class="details">
    ${invoice.comment !== null && invoice.comment !== '' && row(t.description, html`<span data-comment>${invoice.comment}</span>`, true)}
    ${row(t.order, invoice.orderId)}
    ${row(t.currency, `${invoice.currency} · ${currencyName(invoice.currency, ctx.lang)}`)}
    ${status === 'pending' && row(t.payBefore, time(invoice.expiresAt))}
    ${status === 'paid' && invoice.paidAt !== null && row(t.paidAt, time(invoice.paidAt))}
  </dl>`
}

function testControls(id: string, status: 'pending' | 'hold', ctx: PageContext, t: Messages): SafeHtml {
  const action = `${payPath(ctx.base, id)}/simulate${ctx.explicitLang ? `?lang=${ctx.lang}` : ''}`
  const button = (outcome: 'paid' | 'hold' | 'failed', label: string, kind: string): SafeHtml =>
    html`<form method="post" action="${action}" data-simulate>
      <input type="hidden" name="outcome" value="${outcome}" /><button
        type="submit"
        class="${`btn ${kind}`}"
        data-outcome="${outcome}"
      >
        ${label}
      </button>
    </form>`
  // hold → hold is refused (docs/api.md#statuses), so a held invoice offers only the provider's own settlement: pay or decline.
  return html`<section class="sandbox" aria-labelledby="sandbox-heading">
    <h2 id="sandbox-heading"><span class="tag">${t.testMode}</span> <span>${t.simulateLegend}</span></h2>
    <div class="actions">
      ${button('paid', t.pay, 'btn-primary')} ${status === 'pending' && button('hold', t.hold, 'btn-secondary')}
      ${button('failed', t.decline, 'btn-danger')}
    </div>
    <p
      class="sandbox-error"
      role="alert"
      data-simulate-error="${t.simulateFailed}"
      data-simulate-no-answer="${t.simulateNoAnswer}"
      hidden
    ></p>
  </section>`
}

/** The 404 page of an unknown or malformed invoice id: same look, in the buyer's language. */
export function renderNotFoundPage(lang: Lang, path: string, base: string): string {
  const t = MESSAGES[lang]
  const main = html`<div class="card" data-not-found>
    <h1>${t.notFoundTitle}</h1>
    <p>${t.notFoundText}</p>
  </div>`
  return layout({ lang, title: t.notFoundTitle, path, base, testMode: false, main }).value
}
