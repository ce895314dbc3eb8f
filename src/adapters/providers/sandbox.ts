import { AppError } from '../../domain/errors.js'
import { NotificationRejected, type PaymentProvider } from '../../ports/payment-provider.js'

/**
 * The built-in sandbox acquirer: the buyer "pays" on the hosted page with test controls (`POST /pay/{id}/simulate`),
 * so the payment link and the QR payload are both the hosted page itself (docs/api.md#create-an-invoice). It has no
 * hosted checkout, sends no notifications and holds no real funds: capturing, releasing or refunding always
 * succeeds.
 */
export const sandboxProvider: PaymentProvider = {
  name: 'sandbox',
  capabilities: { checkout: false, simulate: true, hold: true, refund: true, fetch: false },
  checkoutOrigins: [],
  currencies: undefined,
  createPayment: (request) => ({ url: request.payUrl, qrData: request.payUrl }),
  startCheckout: () => Promise.reject(new AppError('not_found', 'the sandbox has no hosted checkout')),
  verifyNotification: () => Promise.reject(new NotificationRejected(401, 'the sandbox sends no notifications')),
  fetchPayment: () => Promise.reject(new AppError('provider_error', 'the sandbox keeps no payments to fetch')),
  endCheckout: async () => undefined,
  captureHold: async () => undefined,
  releaseHold: async () => undefined,
  // docs/refunds.md#sandbox: succeeds at once, unless the merchant armed the test control for this invoice
  refund: async (request) =>
    request.simulateFailure === true
      ? {
          refundId: `sandbox_${request.idempotencyKey}`,
          state: 'failed',
          failureReason: 'the sandbox refused this refund, as its test control asked',
        }
      : { refundId: `sandbox_${request.idempotencyKey}`, state: 'succeeded' },
  // the sandbox answers every refund at once: none is ever pending to be asked about
  fetchRefund: () => Promise.reject(new AppError('provider_error', 'the sandbox keeps no refunds to fetch')),
}
