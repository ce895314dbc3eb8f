// @ts-check
// The demo shop's HTML: three small server-rendered pages. Every value that comes from outside is escaped.

/** @typedef {import('./shop.js').Order} Order */
/** @typedef {import('./shop.js').Product} Product */

/** @param {unknown} value */
export function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

const CSS = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f6f5f2; color: #222; }
  main { max-width: 34rem; margin: 3rem auto; padding: 2rem; background: #fff; border-radius: 12px; box-shadow: 0 1px 4px #0002; }
  h1 { font-size: 1.5rem; margin-top: 0; }
  .price { font-size: 1.4rem; font-weight: 600; }
  button { font: inherit; padding: .6rem 1.4rem; border: 0; border-radius: 8px; background: #1f6feb; color: #fff; cursor: pointer; }
  .status { display: inline-block; padding: .2rem .7rem; border-radius: 99px; font-weight: 600; background: #eee; }
  .status.paid { background: #d6f5dd; color: #12602a; }
  .status.failed, .status.expired { background: #fde2e1; color: #8a1c16; }
  .status.hold { background: #fff2cc; color: #6b4f00; }
  .muted { color: #666; font-size: .9rem; }
  .error { background: #fde2e1; padding: .8rem; border-radius: 8px; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; }
  dt { color: #666; }
`

/** @param {string} title @param {string} body @param {string} [script] */
function page(title, body, script = '') {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>${escapeHtml(title)} · Demo Shop</title><style>${CSS}</style></head>
<body><main>${body}</main>${script === '' ? '' : `<script>${script}</script>`}</body></html>`
}

/**
 * The product page. The form carries the order id it will create, so a double click or a resubmitted form sends
 * the same order_id again and gets the same invoice back instead of a second one.
 * @param {Product} product @param {string} orderId @param {string} [error]
 */
export function productPage(product, orderId, error) {
  return page(
    product.name,
    `<h1>${escapeHtml(product.name)}</h1>
<p>${escapeHtml(product.description)}</p>
<p class="price">${escapeHtml(product.amount)} ${escapeHtml(product.currency)}</p>
${error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="/orders">
  <input type="hidden" name="order_id" value="${escapeHtml(orderId)}">
  <button type="submit">Buy now</button>
</form>
<p class="muted">Payments by the invoice service's sandbox: nothing is charged.</p>`,
  )
}

const LABELS = /** @type {const} */ ({
  awaiting_payment: 'Awaiting payment',
  hold: 'Payment authorised, capturing…',
  paid: 'Paid',
  failed: 'Payment failed',
  expired: 'Invoice expired',
})

/** @param {Order} order */
export function isFinal(order) {
  return order.status === 'paid' || order.status === 'failed' || order.status === 'expired'
}

/** The order page: its status, kept current by polling the shop's own status endpoint while it can change. @param {Order} order */
export function orderPage(order) {
  const how =
    order.confirmedBy === 'webhook'
      ? `Confirmed by a verified webhook (${escapeHtml(order.lastEvent ?? '')}).`
      : order.confirmedBy === 'polling'
        ? 'Confirmed by asking the invoice service (no webhook had arrived).'
        : ''
  const body = `<h1>Order ${escapeHtml(order.id)}</h1>
<p>Status: <span class="status ${escapeHtml(order.status)}" data-status="${escapeHtml(order.status)}">${escapeHtml(LABELS[order.status])}</span></p>
${how === '' ? '' : `<p class="muted" data-confirmed-by="${escapeHtml(order.confirmedBy ?? '')}">${how}</p>`}
<dl>
  <dt>Product</dt><dd>${escapeHtml(order.product.name)}</dd>
  <dt>Amount</dt><dd>${escapeHtml(order.product.amount)} ${escapeHtml(order.product.currency)}</dd>
  <dt>Invoice</dt><dd><code>${escapeHtml(order.invoiceId)}</code></dd>
</dl>
${isFinal(order) ? '' : `<p><a href="${escapeHtml(order.payUrl)}">Go to the payment page</a></p>`}
${order.status === 'paid' ? '<p>Thank you! Your mug is on its way.</p>' : ''}
${
  order.status === 'paid' && order.refund === undefined
    ? `<form method="post" action="/orders/${encodeURIComponent(order.id)}/refund"><button type="submit">Refund this order</button></form>`
    : ''
}
${
  order.refund === undefined
    ? ''
    : `<p>Refund of ${escapeHtml(order.refund.amount)} ${escapeHtml(order.product.currency)}: <span data-refund="${escapeHtml(order.refund.status)}">${escapeHtml(order.refund.status)}</span></p>`
}
${order.status === 'failed' || order.status === 'expired' ? '<p><a href="/">Try again</a></p>' : ''}
<p class="muted"><a href="/">Back to the shop</a></p>`
  // While the order can still change, ask the shop every 1.5 s and reload when it did.
  const script = isFinal(order)
    ? ''
    : `const known = ${JSON.stringify(order.status)};
setInterval(async () => {
  try {
    const res = await fetch(${JSON.stringify(`/orders/${encodeURIComponent(order.id)}/status`)}, { cache: 'no-store' });
    if (res.ok && (await res.json()).status !== known) location.reload();
  } catch {}
}, 1500);`
  return page(`Order ${order.id}`, body, script)
}

/** @param {number} status @param {string} message */
export function errorPage(status, message) {
  return page(`Error ${status}`, `<h1>${escapeHtml(message)}</h1><p><a href="/">Back to the shop</a></p>`)
}
