/** The operator console's reads (docs/dashboard.md#operator-console); its actions reuse ./accounts.ts and ./users.ts. */
import type { AppDeps } from '../../app/deps.js'
import { findInvoices } from '../../app/find-invoices.js'
import { getInvoiceRecord } from '../../app/get-invoice-record.js'
import { getMerchantDetails } from '../../app/get-merchant-details.js'
import { listMerchantSummaries } from '../../app/list-merchant-summaries.js'
import { readConsoleHealth } from '../../app/read-console-health.js'

export function bindConsoleUseCases(deps: AppDeps) {
  return {
    listMerchants: listMerchantSummaries.bind(null, deps),
    merchant: getMerchantDetails.bind(null, deps),
    findInvoices: findInvoices.bind(null, deps),
    invoice: getInvoiceRecord.bind(null, deps),
    health: readConsoleHealth.bind(null, deps),
  }
}
