import { ModuleProvider, Modules } from '@medusajs/framework/utils'
import { InvoiceServiceProvider } from './service'

export { InvoiceServiceProvider }
export type { InvoiceServiceOptions } from './options'

export default ModuleProvider(Modules.PAYMENT, { services: [InvoiceServiceProvider] })
