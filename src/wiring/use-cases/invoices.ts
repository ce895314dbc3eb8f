/**
 * The invoice use cases, each with its dependencies given once (`fn.bind(null, deps)`: partial application, typed
 * from the use case's own signature). src/http/deps.ts takes its types from these objects, so a route's
 * `deps.invoices.create` leads by go-to-definition to the line below that names the use case.
 */
import type { AppDeps } from '../../app/deps.js'
import { cancelInvoice } from '../../app/cancel-invoice.js'
import { captureInvoice } from '../../app/capture-invoice.js'
import { createInvoice } from '../../app/create-invoice.js'
import { getDashboardOverview } from '../../app/get-dashboard-overview.js'
import { getDepositPayment } from '../../app/get-deposit-payment.js'
import { getInvoice, getInvoiceDetail, getInvoiceInfo } from '../../app/get-invoice.js'
import { getPaymentView } from '../../app/get-payment-view.js'
import { exportInvoices } from '../../app/export-invoices.js'
import { listInvoiceEvents } from '../../app/list-invoice-events.js'
import { listInvoices } from '../../app/list-invoices.js'
import { simulatePayment } from '../../app/simulate-payment.js'
import { startCheckout } from '../../app/start-checkout.js'
import { receiveNotification } from '../../app/receive-notification.js'
import { reconcilePayments } from '../../app/reconcile-payments.js'
import { expireDueInvoices, failStaleHolds } from '../../app/sweep-invoices.js'
import type { InvoiceId } from '../../domain/ids.js'

/** The merchant API's invoices. */
export function bindInvoiceUseCases(deps: AppDeps) {
  return {
    create: createInvoice.bind(null, deps),
    getInfo: getInvoiceInfo.bind(null, deps),
    get: getInvoice.bind(null, deps),
    /** A stablecoin invoice's payment (docs/stablecoins.md#states); undefined for others. */
    depositPayment: getDepositPayment.bind(null, deps),
    /** The extension view: the invoice with its refunded amount. */
    detail: getInvoiceDetail.bind(null, deps),
    list: listInvoices.bind(null, deps),
    /** The dashboard's CSV export: the listing's filters, read in batches. */
    export: exportInvoices.bind(null, deps),
    /** The dashboard's timeline of one invoice. */
    events: listInvoiceEvents.bind(null, deps),
    /** The QR code's invoice, by id alone (no merchant: the id is the capability). */
    findPublic: (id: InvoiceId) => deps.store.invoices.findById(id),
    capture: captureInvoice.bind(null, deps),
    cancel: cancelInvoice.bind(null, deps),
    /** The dashboard's overview of a merchant's last days (docs/dashboard.md#overview). */
    overview: getDashboardOverview.bind(null, deps),
  }
}

/** The buyer-facing payment flow. */
export function bindPaymentUseCases(deps: AppDeps) {
  return {
    view: getPaymentView.bind(null, deps),
    depositPayment: getDepositPayment.bind(null, deps),
    /** The sandbox provider's notification; only routed when the sandbox is enabled. */
    simulate: simulatePayment.bind(null, deps),
    /** The buyer's Pay: the acquirer's hosted checkout (docs/providers.md#checkout). */
    checkout: startCheckout.bind(null, deps),
    /** An acquirer's notification (docs/providers.md#notifications). */
    notify: receiveNotification.bind(null, deps),
  }
}

/** The clock-driven transitions the sweeper runs. */
export function bindSweeps(deps: AppDeps) {
  return {
    expireDue: expireDueInvoices.bind(null, deps),
    failStaleHolds: failStaleHolds.bind(null, deps),
    reconcile: reconcilePayments.bind(null, deps),
  }
}
