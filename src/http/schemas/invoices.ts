import { Type } from '@sinclair/typebox'
import { InvoiceSchema } from './common.js'

export const CreateInvoiceBody = Type.Object(
  {
    order_id: Type.String({ minLength: 1, maxLength: 128, description: "Your order identifier; at most one live invoice per order_id" }),
    amount: Type.Union([Type.Number(), Type.String({ maxLength: 64 })], {
      description: 'Amount in major units: a JSON number or a decimal string such as "100.50"; no more decimals than the currency allows',
      examples: ['100.50'],
    }),
    currency: Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217 code enabled on this instance', examples: ['RUB'] }),
    comment: Type.Optional(Type.String({ maxLength: 1024, description: 'Shown on the payment page (HTML-escaped)' })),
    service: Type.Optional(Type.String({ maxLength: 32, description: "Payment service; default: the merchant's default", examples: ['card'] })),
    callback_url: Type.Optional(Type.String({ maxLength: 2048, description: 'Absolute https URL for webhooks' })),
    success_url: Type.Optional(Type.String({ maxLength: 2048, description: 'Where the payment page sends the buyer after paying' })),
    fail_url: Type.Optional(Type.String({ maxLength: 2048, description: 'Where the payment page sends the buyer after a failure' })),
    lifetime: Type.Optional(Type.Integer({ description: 'Seconds until expiry (default 3600)' })),
  },
  {
    additionalProperties: false,
    examples: [{ order_id: 'order-1001', amount: '100.50', currency: 'RUB', comment: 'Blue mug', service: 'card', callback_url: 'https://shop.example/hooks/invoices' }],
  },
)

export const CreateInvoiceResponse = Type.Object(
  {
    order_id: Type.String({ format: 'uuid', description: 'The invoice id (not your order_id), as the original API names it' }),
    pay_url: Type.String({ format: 'uri' }),
    qr_url: Type.String({ format: 'uri' }),
    qr_image: Type.String({ description: 'data:image/png;base64,… of the QR code' }),
    amount: Type.String({ description: "The amount with exactly the currency's decimals", examples: ['100.50'] }),
    is_new: Type.Boolean(),
  },
  { $id: 'CreateInvoiceResponse', additionalProperties: false },
)

export const GetInfoQuery = Type.Object({
  merchant_id: Type.Optional(Type.String({ description: 'Your merchant id (UUID)' })),
  invoice_id: Type.Optional(Type.String({ description: 'The invoice id (UUID); or give order_id' })),
  order_id: Type.Optional(Type.String({ description: 'Your order id; the newest invoice for it is returned' })),
})

export const InvoiceIdParams = Type.Object({ invoice_id: Type.String({ description: 'Invoice id (UUID)' }) })

export const ListInvoicesQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: ['pending', 'hold', 'paid', 'failed', 'expired'] })),
  created_from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive lower bound of created_at' })),
  created_to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive upper bound of created_at' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'Page size, 1–200 (default 50)' })),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
})

export const InvoiceListResponse = Type.Object(
  {
    data: Type.Array(Type.Ref(InvoiceSchema)),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'InvoiceList', additionalProperties: false },
)
