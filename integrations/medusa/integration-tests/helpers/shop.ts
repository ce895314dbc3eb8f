/**
 * The shop's data, made with Medusa's own workflows as its admin would: a sales channel with a publishable key, a
 * region paid through this provider, and a product that needs no shipping (so a cart completes without a method).
 */
import {
  createApiKeysWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createSalesChannelsWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
} from '@medusajs/core-flows'
import type { MedusaContainer } from '@medusajs/framework/types'

export const PROVIDER_ID = 'pp_invoice-service_default'

export interface Shop {
  publishableKey: string
  regionId: string
  variantId: string
}

export async function seedShop(container: MedusaContainer): Promise<Shop> {
  const {
    result: [channel],
  } = await createSalesChannelsWorkflow(container).run({ input: { salesChannelsData: [{ name: 'Web' }] } })
  const {
    result: [key],
  } = await createApiKeysWorkflow(container).run({
    input: { api_keys: [{ title: 'storefront', type: 'publishable', created_by: '' }] },
  })
  await linkSalesChannelsToApiKeyWorkflow(container).run({ input: { id: key!.id, add: [channel!.id] } })
  const {
    result: [region],
  } = await createRegionsWorkflow(container).run({
    input: { regions: [{ name: 'Europe', currency_code: 'eur', countries: ['de'], payment_providers: [PROVIDER_ID] }] },
  })
  const {
    result: [product],
  } = await createProductsWorkflow(container).run({
    input: {
      products: [
        {
          title: 'E-book',
          status: 'published',
          sales_channels: [{ id: channel!.id }],
          options: [{ title: 'Format', values: ['PDF'] }],
          variants: [
            {
              title: 'PDF',
              options: { Format: 'PDF' },
              manage_inventory: false,
              prices: [{ amount: 12.5, currency_code: 'eur' }],
            },
          ],
        },
      ],
    },
  })
  return { publishableKey: key!.token, regionId: region!.id, variantId: product!.variants[0]!.id }
}
