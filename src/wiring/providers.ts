/**
 * The providers module of the composition root: the adapter of each configured acquirer, built from its
 * credentials, in the registry that binds services to them (docs/providers.md#configuration).
 */
import { createProviderRegistry } from '../adapters/providers/registry.js'
import { sandboxProvider } from '../adapters/providers/sandbox.js'
import {
  createYooKassaProvider,
  YOOKASSA_NOTIFICATION_SOURCES,
} from '../adapters/providers/yookassa/yookassa-provider.js'
import type { ProvidersConfig } from '../config/config.js'
import type { PaymentProvider, ProviderRegistry } from '../ports/payment-provider.js'

/**
 * `sandbox` replaces the built-in sandbox adapter (tests record its calls). The Stripe adapter is loaded only when a
 * service is bound to Stripe: its SDK takes about 160 ms to import, which every start and every CLI command paid.
 */
export async function buildProviders(
  config: ProvidersConfig,
  sandbox: PaymentProvider = sandboxProvider,
): Promise<ProviderRegistry> {
  const adapters: PaymentProvider[] = [sandbox]
  if (config.stripe !== undefined) {
    const { createStripeProvider } = await import('../adapters/providers/stripe/stripe-provider.js')
    adapters.push(
      createStripeProvider({
        secretKey: config.stripe.secretKey,
        webhookSecret: config.stripe.webhookSecret,
        apiUrl: config.stripe.apiUrl,
        timeoutMs: config.timeoutMs,
        webhookToleranceSeconds: config.stripe.webhookTolerance,
      }),
    )
  }
  if (config.yookassa !== undefined) {
    adapters.push(
      createYooKassaProvider({
        shopId: config.yookassa.shopId,
        secretKey: config.yookassa.secretKey,
        apiUrl: config.yookassa.apiUrl,
        timeoutMs: config.timeoutMs,
        notificationSources: config.yookassa.notificationSources ?? YOOKASSA_NOTIFICATION_SOURCES,
      }),
    )
  }
  if (config.evm !== undefined) {
    const { createEvmProvider } = await import('../adapters/providers/evm/evm-provider.js')
    adapters.push(createEvmProvider(config.evm))
  }
  return createProviderRegistry(config.bindings, adapters, config.holdServices)
}
