/**
 * An acquirer's hosted-checkout origins (PaymentProvider.checkoutOrigins): its own, and the API's when the API is
 * not the acquirer's (a local fake in tests serves its checkout pages itself).
 */
export function checkoutOrigins(checkout: string, apiUrl: string, defaultApiUrl: string): string[] {
  const api = new URL(apiUrl).origin
  return api === new URL(defaultApiUrl).origin ? [checkout] : [checkout, api]
}
