import { Type } from '@sinclair/typebox'
import { STATUSES } from '../../domain/invoice.js'
import { Timestamp } from './common.js'
import { EXAMPLE_IDS, PAY_STATUS_EXAMPLE } from './examples.js'

export const PayParams = Type.Object({
  invoice_id: Type.String({ description: 'Invoice id (UUID)', examples: [EXAMPLE_IDS.invoice] }),
})

/**
 * `?lang=` overrides Accept-Language (docs/payment-page.md). Any other value is ignored rather than refused, however long,
 * and so is the parameter given twice (the first language it names counts): a buyer's link with a stray or
 * tracking parameter must still open the page.
 */
export const PayQuery = Type.Object({
  checkout: Type.Optional(
    Type.String({
      description:
        'Set by the service when a Pay just failed at the acquirer (`refused`, `unavailable`): the page says so above Pay. Any other value is ignored.',
      examples: ['unavailable'],
    }),
  ),
  lang: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: 'Page language, `en` or `ru`; overrides Accept-Language',
      examples: ['ru'],
    }),
  ),
})

export const SimulateBody = Type.Object(
  {
    outcome: Type.Union([Type.Literal('paid'), Type.Literal('hold'), Type.Literal('failed')], {
      description: "The sandbox provider's result for the buyer's payment",
    }),
  },
  { additionalProperties: false, examples: [{ outcome: 'paid' }] },
)

export const PayStatusResponse = Type.Object(
  {
    status: Type.String({
      enum: [...STATUSES],
      description: 'The status as it reads now (a pending invoice past expiry is expired)',
    }),
    expired_at: Timestamp,
    paid_at: Type.Union([Timestamp, Type.Null()]),
    // no format: 'uri' here: the serializer would re-validate the merchant's stored URL and turn a quirk into a 500
    redirect_url: Type.Union([Type.String(), Type.Null()], {
      description: 'success_url when paid, fail_url when failed or expired, else null',
    }),
    progress: Type.Optional(
      Type.String({
        description:
          'Stablecoin invoices: what was received and its confirmations, as the page shows them; the page reloads when it changes',
      }),
    ),
  },
  { additionalProperties: false, examples: [PAY_STATUS_EXAMPLE] },
)

export const HTML_PAGE = {
  description: 'The payment page (text/html)',
  content: {
    'text/html': {
      schema: { type: 'string' },
      example: '<!doctype html><html lang="en"><head><title>Awaiting payment · RUB 100.50</title>…',
    },
  },
}
export const HTML_NOT_FOUND = {
  description: 'No such invoice: an HTML page in the same style (text/html)',
  content: {
    'text/html': {
      schema: { type: 'string' },
      example: '<!doctype html><html lang="en"><head><title>Invoice not found</title>…',
    },
  },
}
