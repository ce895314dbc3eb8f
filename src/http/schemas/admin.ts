/** Wire shapes of the admin API (docs/admin-api.md). */
import { Type, type TSchema } from '@sinclair/typebox'
import { EXAMPLE_IDS } from './examples.js'
import { Nullable, Timestamp } from './common.js'

export const ADMIN_SECURITY = [{ AdminToken: [] }]

/** What any admin route can answer before it runs (docs/admin-api.md#authentication). */
export const ADMIN_AUTH_ERRORS = ['unauthenticated', 'rate_limited'] as const

const KEY_ID = '0193a0ff-1b2c-7e3d-8a4f-6c5d4e3f2a11'
const CREATED_AT = '2026-11-22T03:07:20.123Z'

const MERCHANT_EXAMPLE = {
  merchant_id: EXAMPLE_IDS.merchant,
  name: 'Acme Books',
  default_service: 'card',
  status: 'active',
  created_at: CREATED_AT,
}

const merchantFields = {
  merchant_id: Type.String({ format: 'uuid' }),
  name: Type.String({ description: 'Shown on the payment page' }),
  default_service: Type.String({ description: 'The service of invoices created without one', examples: ['card'] }),
  status: Type.String({ enum: ['active', 'disabled'], description: "A disabled merchant's keys answer 403" }),
  created_at: Timestamp,
}

export const AdminMerchantSchema = Type.Object(merchantFields, {
  $id: 'AdminMerchant',
  additionalProperties: false,
  description: 'A merchant as the operator sees it',
  examples: [MERCHANT_EXAMPLE],
})

export const AdminMerchantListResponse = Type.Object(
  { data: Type.Array(Type.Ref(AdminMerchantSchema)) },
  { $id: 'AdminMerchantList', additionalProperties: false, examples: [{ data: [MERCHANT_EXAMPLE] }] },
)

export const CreateMerchantBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Shown on the payment page' }),
    default_service: Type.Optional(
      Type.String({ maxLength: 64, description: 'Default: the first service of the catalog' }),
    ),
  },
  { additionalProperties: false, examples: [{ name: 'Acme Books', default_service: 'card' }] },
)

export const CreatedMerchantResponse = Type.Object(
  {
    ...merchantFields,
    api_key_id: Type.String({ format: 'uuid' }),
    api_key: Type.String({ description: 'The first API key: shown once, only its hash is stored' }),
    webhook_secret: Type.String({ description: 'The whsec_ secret webhooks are signed with' }),
  },
  {
    $id: 'CreatedMerchant',
    additionalProperties: false,
    examples: [
      {
        ...MERCHANT_EXAMPLE,
        api_key_id: KEY_ID,
        api_key: 'mk_5QnV0c2lkZS1vZi10aGUtZG9jcy10aGlzLWtleS1pcy1mYWtl',
        webhook_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      },
    ],
  },
)

const KEY_EXAMPLE = {
  key_id: KEY_ID,
  merchant_id: EXAMPLE_IDS.merchant,
  prefix: 'mk_5QnV0c…',
  created_at: CREATED_AT,
  revoked_at: null,
}

const keyFields = {
  key_id: Type.String({ format: 'uuid' }),
  merchant_id: Type.String({ format: 'uuid' }),
  prefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
  created_at: Timestamp,
  revoked_at: Nullable(Timestamp),
}

export const AdminApiKeySchema = Type.Object(keyFields, {
  $id: 'AdminApiKey',
  additionalProperties: false,
  description: "A merchant's API key (never the key itself)",
  examples: [KEY_EXAMPLE],
})

export const AdminApiKeyListResponse = Type.Object(
  { data: Type.Array(Type.Ref(AdminApiKeySchema)) },
  { $id: 'AdminApiKeyList', additionalProperties: false, examples: [{ data: [KEY_EXAMPLE] }] },
)

export const IssuedApiKeyResponse = Type.Object(
  { ...keyFields, api_key: Type.String({ description: 'The key: shown once, only its hash is stored' }) },
  {
    $id: 'IssuedApiKey',
    additionalProperties: false,
    examples: [{ ...KEY_EXAMPLE, api_key: 'mk_5QnV0c2lkZS1vZi10aGUtZG9jcy10aGlzLWtleS1pcy1mYWtl' }],
  },
)

export const MerchantIdParams = Type.Object({
  merchant_id: Type.String({ description: 'Merchant id (UUID)', examples: [EXAMPLE_IDS.merchant] }),
})

export const KeyIdParams = Type.Object({
  key_id: Type.String({ description: 'API key id (UUID)', examples: [KEY_ID] }),
})

export const InviteUserBody = Type.Object(
  {
    email: Type.String({ maxLength: 254, description: 'The user’s address (one account per address)' }),
    role: Type.String({
      enum: ['owner', 'viewer', 'admin'],
      description: 'owner: everything of the merchant; viewer: read only; admin: an operator (no merchant_id)',
    }),
    merchant_id: Type.Optional(Type.String({ description: 'The merchant of an owner or a viewer' })),
  },
  {
    additionalProperties: false,
    examples: [{ email: 'owner@acme.example', role: 'owner', merchant_id: EXAMPLE_IDS.merchant }],
  },
)

export const InvitationResponse = Type.Object(
  {
    user_id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    role: Type.String({ enum: ['owner', 'viewer', 'admin'] }),
    merchant_id: Nullable(Type.String({ format: 'uuid' })),
    url: Type.String({ format: 'uri', description: 'The one-time link where the user sets a password: shown once' }),
    expires_at: Timestamp,
  },
  {
    $id: 'Invitation',
    additionalProperties: false,
    examples: [
      {
        user_id: '0193a0ff-1b2c-7e3d-8a4f-6c5d4e3f2a12',
        email: 'owner@acme.example',
        role: 'owner',
        merchant_id: EXAMPLE_IDS.merchant,
        url: 'https://pay.shop.example/dashboard/invite/q7Hk2vTn0bW9cXs4rLmPz1aYdE6fGj3uKi8oNh5wQtM',
        expires_at: '2026-11-23T03:07:20.123Z',
      },
    ],
  },
)

/** The named schemas of the admin API, added to the app once. */
export const ADMIN_SCHEMAS: TSchema[] = [
  AdminMerchantSchema,
  AdminMerchantListResponse,
  CreatedMerchantResponse,
  AdminApiKeySchema,
  AdminApiKeyListResponse,
  IssuedApiKeyResponse,
  InvitationResponse,
]
