/** The refund use cases (docs/refunds.md), each with its dependencies given once. */
import type { AppDeps } from '../../app/deps.js'
import { armSandboxRefundFailure } from '../../app/arm-sandbox-refund-failure.js'
import { createRefund } from '../../app/create-refund.js'
import { getRefund } from '../../app/get-refund.js'
import { listRefunds } from '../../app/list-refunds.js'
import { reconcileRefunds } from '../../app/reconcile-refunds.js'
import { refundAsOperator } from '../../app/refund-as-operator.js'

export function bindRefundUseCases(deps: AppDeps) {
  return {
    create: createRefund.bind(null, deps),
    get: getRefund.bind(null, deps),
    list: listRefunds.bind(null, deps),
    /** The operator's `refund create` (the CLI). */
    createAsOperator: refundAsOperator.bind(null, deps),
    /** The sandbox's test control: only routed when the sandbox is enabled. */
    armSandboxFailure: armSandboxRefundFailure.bind(null, deps),
    /** Pending refunds asked about again (the reconciliation worker). */
    reconcile: reconcileRefunds.bind(null, deps),
  }
}
