import type { Catalog } from '../domain/catalog.js'
import type { NewId } from '../domain/ids.js'
import type { Clock } from '../ports/clock.js'
import type { PaymentProvider } from '../ports/payment-provider.js'
import type { Secrets } from '../ports/secrets.js'
import type { Store } from '../ports/store.js'

/** What use cases are given by the composition root; each use case takes the subset it needs. */
export interface AppDeps {
  readonly store: Store
  readonly clock: Clock
  readonly newId: NewId
  readonly secrets: Secrets
  readonly provider: PaymentProvider
  readonly catalog: Catalog
  readonly publicUrl: string
  readonly callbackAllowHttp: boolean
  readonly lifetime: { readonly default: number; readonly min: number; readonly max: number }
  /** Seconds a previous webhook secret keeps signing after a rotation. */
  readonly webhookSecretGrace: number
}
