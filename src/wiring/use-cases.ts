/**
 * Every use case bound to its dependencies, once per runtime, grouped by module. The HTTP shell, the workers and
 * the CLI call these; src/http/deps.ts derives its types from `UseCases` instead of restating each signature.
 * Imports app/ only (the dependency rules keep it so): the shells may depend on its types.
 */
import type { AppDeps } from '../app/deps.js'
import { bindAccountUseCases } from './use-cases/accounts.js'
import { bindAdminUseCases } from './use-cases/admin.js'
import { bindConsoleUseCases } from './use-cases/console.js'
import { bindUserUseCases } from './use-cases/users.js'
import { bindInvoiceUseCases, bindPaymentUseCases, bindSweeps } from './use-cases/invoices.js'
import { bindRefundUseCases } from './use-cases/refunds.js'
import { bindWebhookDispatch, bindWebhookUseCases } from './use-cases/webhooks.js'

export function bindUseCases(deps: AppDeps, opts: { keyCacheTtl: number }) {
  return {
    invoices: bindInvoiceUseCases(deps),
    payments: bindPaymentUseCases(deps),
    refunds: bindRefundUseCases(deps),
    sweeps: bindSweeps(deps),
    webhooks: bindWebhookUseCases(deps),
    dispatch: bindWebhookDispatch(deps),
    accounts: bindAccountUseCases(deps, opts.keyCacheTtl),
    admin: bindAdminUseCases(deps),
    users: bindUserUseCases(deps),
    console: bindConsoleUseCases(deps),
  }
}

export type UseCases = ReturnType<typeof bindUseCases>
