import { Type } from '@sinclair/typebox'
import { InvoiceSchema } from './common.js'
import { CREATED_INVOICE_EXAMPLE, EXAMPLE_IDS, INVOICE_EXAMPLE, PENDING_INVOICE_EXAMPLE } from './examples.js'

export const CreateInvoiceBody = Type.Object(
  {
    order_id: Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'Your order identifier; at most one live invoice per order_id',
    }),
    amount: Type.Union([Type.Number(), Type.String({ maxLength: 64 })], {
      description:
        'Amount in major units: a JSON number or a decimal string such as "100.50"; no more decimals than the currency allows',
      examples: ['100.50'],
    }),
    currency: Type.String({
      minLength: 3,
      maxLength: 3,
      description: 'ISO 4217 code enabled on this instance',
      examples: ['RUB'],
    }),
    comment: Type.Optional(Type.String({ maxLength: 1024, description: 'Shown on the payment page (HTML-escaped)' })),
    service: Type.Optional(
      Type.String({
        maxLength: 32,
        description: "Payment service; default: the merchant's default",
        examples: ['card'],
      }),
    ),
    callback_url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: 'Absolute https URL for webhooks',
        examples: ['https://shop.example/hooks/invoices'],
      }),
    ),
    success_url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: 'Where the payment page sends the buyer after paying',
        examples: ['https://shop.example/orders/order-1001'],
      }),
    ),
    fail_url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: 'Where the payment page sends the buyer after a failure',
        examples: ['https://shop.example/cart'],
      }),
    ),
    lifetime: Type.Optional(Type.Integer({ description: 'Seconds until expiry (default 3600)', examples: [3600] })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        order_id: 'order-1001',
        amount: '100.50',
        currency: 'RUB',
        comment: 'Blue mug',
        service: 'card',
        callback_url: 'https://shop.example/hooks/invoices',
        success_url: 'https://shop.example/orders/order-1001',
        fail_url: 'https://shop.example/cart',
      },
    ],
  },
)

export const CreateInvoiceResponse = Type.Object(
  {
    order_id: Type.String({
      format: 'uuid',
      description: 'The invoice id (not your order_id), as the original API names it',
    }),
    pay_url: Type.String({ format: 'uri', description: 'The hosted payment page: send the buyer here' }),
    qr_url: Type.String({ format: 'uri', description: 'PNG of the QR code' }),
    qr_image: Type.String({ description: 'data:image/png;base64,… of the QR code' }),
    amount: Type.String({ description: "The amount with exactly the currency's decimals", examples: ['100.50'] }),
    is_new: Type.Boolean({
      description: 'true when this request created the invoice; false when it is the live invoice of this order_id',
    }),
  },
  { $id: 'CreateInvoiceResponse', additionalProperties: false, examples: [CREATED_INVOICE_EXAMPLE] },
)

export const GetInfoQuery = Type.Object({
  merchant_id: Type.Optional(
    Type.String({ description: 'Your merchant id (UUID); required', examples: [EXAMPLE_IDS.merchant] }),
  ),
  invoice_id: Type.Optional(
    Type.String({ description: 'The invoice id (UUID); or give order_id', examples: [EXAMPLE_IDS.invoice] }),
  ),
  order_id: Type.Optional(
    Type.String({ description: 'Your order id; the newest invoice for it is returned', examples: ['order-1001'] }),
  ),
})

export const InvoiceIdParams = Type.Object({
  invoice_id: Type.String({ description: 'Invoice id (UUID)', examples: [EXAMPLE_IDS.invoice] }),
})

export const ListInvoicesQuery = Type.Object({
  status: Type.Optional(
    Type.String({
      enum: ['pending', 'hold', 'paid', 'failed', 'expired'],
      description: 'Only invoices with this status (as it reads now)',
      examples: ['paid'],
    }),
  ),
  created_from: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'Inclusive lower bound of created_at',
      examples: ['2026-11-01T00:00:00.000Z'],
    }),
  ),
  created_to: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'Exclusive upper bound of created_at',
      examples: ['2026-12-01T00:00:00.000Z'],
    }),
  ),
  limit: Type.Optional(
    Type.String({ description: 'Page size, a whole number from 1 to 200 (default 50)', examples: ['50'] }),
  ),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
})

export const InvoiceListResponse = Type.Object(
  {
    data: Type.Array(Type.Ref(InvoiceSchema), { description: 'Newest first' }),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as cursor for the next page; null on the last page',
    }),
  },
  {
    $id: 'InvoiceList',
    additionalProperties: false,
    examples: [{ data: [PENDING_INVOICE_EXAMPLE, INVOICE_EXAMPLE], next_cursor: null }],
  },
)
