/**
 * The providers module of the composition root: the adapter of each configured acquirer, built from its
 * credentials, in the registry that binds services to them (docs/providers.md#configuration).
 */
import { createProviderRegistry } from '../adapters/providers/registry.js'
import { sandboxProvider } from '../adapters/providers/sandbox.js'
import type { ProvidersConfig } from '../config/config.js'
import type { PaymentProvider, ProviderRegistry } from '../ports/payment-provider.js'

/** `sandbox` replaces the built-in sandbox adapter (tests record its calls). */
export function buildProviders(config: ProvidersConfig, sandbox: PaymentProvider = sandboxProvider): ProviderRegistry {
  const adapters: PaymentProvider[] = [sandbox]
  return createProviderRegistry(config.bindings, adapters, config.holdServices)
}
