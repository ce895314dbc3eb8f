/**
 * The fake's hosted confirmation page (what `confirmation.confirmation_url` of a redirect payment opens; YooKassa's
 * is https://yoomoney.ru/checkout/payments/v2/contract?orderId=…): the amount, and Pay / Decline buttons that POST
 * back to the fake, which then sends the buyer to `return_url` with a 303, as YooKassa does after the payment.
 */
import { formatAmount, type Minor } from '../../../src/domain/money.js'
import type { Payment } from './ledger.js'

export const CHECKOUT_PATH = '/checkout/payments/v2/contract'

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

export function checkoutPage(payment: Payment): string {
  const action = `${CHECKOUT_PATH}?orderId=${encodeURIComponent(payment.id)}`
  const amount = `${formatAmount(payment.amount as Minor, payment.exponent)} ${payment.currency}`
  const body =
    payment.status === 'pending'
      ? `<form method="post" action="${escape(action)}">
  <button type="submit" name="action" value="pay">Pay</button>
  <button type="submit" name="action" value="decline">Decline</button>
</form>`
      : `<p>This payment is ${escape(payment.status)}.</p>
<p><a href="${escape(payment.returnUrl)}">Back to the shop</a></p>`
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>YooKassa test checkout</title></head>
<body>
<h1>Payment of ${escape(amount)}</h1>
${payment.description === undefined ? '' : `<p>${escape(payment.description)}</p>`}
${body}
</body>
</html>
`
}
