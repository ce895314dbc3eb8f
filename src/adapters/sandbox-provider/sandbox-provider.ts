import type { PaymentProvider } from '../../ports/payment-provider.js'

/**
 * The built-in sandbox acquirer: the buyer "pays" on the hosted page with test controls, so the payment
 * link and the QR payload are both the hosted page itself (docs/api.md#create-an-invoice).
 */
export const sandboxProvider: PaymentProvider = {
  name: 'sandbox',
  createPayment: (request) => ({ url: request.payUrl, qrData: request.payUrl }),
  // The sandbox holds no real funds: capturing or releasing a hold always succeeds.
  captureHold: async () => undefined,
  releaseHold: async () => undefined,
}
