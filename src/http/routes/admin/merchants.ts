import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { HttpDeps } from '../../deps.js'
import { adminApiKeyToWire, adminMerchantToWire } from '../../dto.js'
import { BODYLESS_ERRORS, problems } from '../../schemas/common.js'
import {
  ADMIN_AUTH_ERRORS,
  ADMIN_SECURITY,
  AdminApiKeyListResponse,
  AdminMerchantListResponse,
  AdminMerchantSchema,
  CreateMerchantBody,
  CreatedMerchantResponse,
  IssuedApiKeyResponse,
  KeyIdParams,
  MerchantIdParams,
} from '../../schemas/admin.js'

const BODY_ERRORS = ['validation_failed', 'invalid_json', 'payload_too_large', 'unsupported_media_type'] as const

/** The operator's merchant endpoints (docs/admin-api.md#merchants): the CLI's merchant and key commands over HTTP. */
export function adminMerchantRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['admin']

  r.post(
    '/api/admin/v1/merchants',
    {
      schema: {
        operationId: 'adminCreateMerchant',
        summary: 'Create a merchant with its first API key and webhook secret',
        description: 'The API key and the webhook secret are in this answer only: store them now.',
        tags,
        security: ADMIN_SECURITY,
        body: CreateMerchantBody,
        response: { 201: Type.Ref(CreatedMerchantResponse), ...problems(...ADMIN_AUTH_ERRORS, ...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const created = await deps.accounts.createMerchant({
        name: request.body.name,
        defaultService: request.body.default_service,
      })
      reply.code(201)
      return {
        ...adminMerchantToWire(created.merchant),
        api_key_id: created.apiKeyId,
        api_key: created.apiKey,
        webhook_secret: created.webhookSecret,
      }
    },
  )

  r.get(
    '/api/admin/v1/merchants',
    {
      schema: {
        operationId: 'adminListMerchants',
        summary: 'Every merchant, oldest first',
        tags,
        security: ADMIN_SECURITY,
        response: { 200: Type.Ref(AdminMerchantListResponse), ...problems(...ADMIN_AUTH_ERRORS) },
      },
    },
    async () => ({ data: (await deps.accounts.listMerchants()).map(adminMerchantToWire) }),
  )

  for (const action of ['disable', 'enable'] as const) {
    r.post(
      `/api/admin/v1/merchants/:merchant_id/${action}`,
      {
        schema: {
          operationId: action === 'disable' ? 'adminDisableMerchant' : 'adminEnableMerchant',
          summary:
            action === 'disable'
              ? 'Disable a merchant: its keys answer 403 merchant_disabled; its invoices stay readable to you'
              : 'Enable a disabled merchant again',
          tags,
          security: ADMIN_SECURITY,
          params: MerchantIdParams,
          response: {
            200: Type.Ref(AdminMerchantSchema),
            ...problems(...ADMIN_AUTH_ERRORS, ...BODYLESS_ERRORS, 'not_found'),
          },
        },
      },
      async (request) =>
        adminMerchantToWire(
          await deps.accounts.setMerchantStatus(
            request.params.merchant_id,
            action === 'disable' ? 'disabled' : 'active',
          ),
        ),
    )
  }

  r.get(
    '/api/admin/v1/merchants/:merchant_id/api-keys',
    {
      schema: {
        operationId: 'adminListApiKeys',
        summary: "A merchant's API keys, revoked ones too (prefixes only)",
        tags,
        security: ADMIN_SECURITY,
        params: MerchantIdParams,
        response: {
          200: Type.Ref(AdminApiKeyListResponse),
          ...problems(...ADMIN_AUTH_ERRORS, 'validation_failed', 'not_found'),
        },
      },
    },
    async (request) => ({
      data: (await deps.accounts.listApiKeys(request.params.merchant_id)).map(adminApiKeyToWire),
    }),
  )

  r.post(
    '/api/admin/v1/merchants/:merchant_id/api-keys',
    {
      schema: {
        operationId: 'adminIssueApiKey',
        summary: 'Issue a further API key for a merchant (rotation without downtime)',
        description: 'The key is in this answer only.',
        tags,
        security: ADMIN_SECURITY,
        params: MerchantIdParams,
        response: {
          201: Type.Ref(IssuedApiKeyResponse),
          ...problems(...ADMIN_AUTH_ERRORS, ...BODYLESS_ERRORS, 'not_found'),
        },
      },
    },
    async (request, reply) => {
      const issued = await deps.accounts.issueApiKey(request.params.merchant_id)
      reply.code(201)
      return { ...adminApiKeyToWire(issued.key), api_key: issued.apiKey }
    },
  )

  r.post(
    '/api/admin/v1/api-keys/:key_id/revoke',
    {
      schema: {
        operationId: 'adminRevokeApiKey',
        summary: 'Revoke an API key',
        description:
          'The key fails with 401 invalid_api_key from then on (within KEY_CACHE_TTL seconds on instances that had it cached).',
        tags,
        security: ADMIN_SECURITY,
        params: KeyIdParams,
        response: {
          204: { description: 'Revoked', type: 'null' },
          ...problems(...ADMIN_AUTH_ERRORS, ...BODYLESS_ERRORS, 'not_found'),
        },
      },
    },
    async (request, reply) => {
      await deps.accounts.revokeApiKey(request.params.key_id)
      reply.code(204)
    },
  )
}
