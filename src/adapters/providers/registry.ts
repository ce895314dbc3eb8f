import type { PaymentProvider, ProviderRegistry } from '../../ports/payment-provider.js'

/**
 * The registry binding each service to its provider (docs/providers.md#configuration): from SERVICE_PROVIDERS,
 * the adapters the composition root built from their credentials, and HOLD_SERVICES. Use cases ask it; nothing
 * outside adapters/providers/ asks which acquirer a provider is.
 */
export function createProviderRegistry(
  bindings: Readonly<Record<string, string>>,
  adapters: readonly PaymentProvider[],
  holdServices: readonly string[],
): ProviderRegistry {
  const byName = new Map(adapters.map((a) => [a.name, a]))
  const sandbox = byName.get('sandbox')
  if (sandbox === undefined) throw new Error('the registry needs the sandbox adapter')
  for (const [service, name] of Object.entries(bindings))
    if (!byName.has(name)) throw new Error(`service ${service} is bound to ${name}, which has no adapter`)
  const holds = new Set(holdServices)
  return {
    forService: (service) => byName.get(bindings[service] ?? 'sandbox') ?? sandbox,
    byName: (name) => byName.get(name),
    holds: (service) => holds.has(service),
  }
}
