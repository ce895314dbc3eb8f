import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { validationFailed } from '../../../domain/errors.js'
import type { HttpDeps } from '../../deps.js'
import { problems } from '../../schemas/common.js'
import { ADMIN_AUTH_ERRORS, ADMIN_SECURITY, InvitationResponse, InviteUserBody } from '../../schemas/admin.js'

/** Invitations to the dashboard (docs/admin-api.md#users): what `invoice-service user invite` prints, over HTTP. */
export function adminUserRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  r.post(
    '/api/admin/v1/users',
    {
      schema: {
        operationId: 'adminInviteUser',
        summary: 'Invite a dashboard user; answers the one-time link where they set a password',
        description:
          'The link is valid for 24 hours and works once; it is in this answer only. An address that has an account ' +
          'already is refused (400): print a new link with `invoice-service user reset-password` instead.',
        tags: ['admin'],
        security: ADMIN_SECURITY,
        body: InviteUserBody,
        response: {
          201: Type.Ref(InvitationResponse),
          ...problems(
            ...ADMIN_AUTH_ERRORS,
            'validation_failed',
            'invalid_json',
            'payload_too_large',
            'unsupported_media_type',
            'not_found',
          ),
        },
      },
    },
    async (request, reply) => {
      const b = request.body
      if ((b.role === 'admin') !== (b.merchant_id === undefined))
        throw validationFailed([
          { field: 'merchant_id', message: 'is required for an owner or a viewer, and not allowed for an admin' },
        ])
      const link = await deps.users.invite(
        b.merchant_id === undefined
          ? { admin: true, email: b.email }
          : { merchantId: b.merchant_id, email: b.email, role: b.role },
      )
      reply.code(201)
      return {
        user_id: link.user.id,
        email: link.user.email,
        role: link.user.role,
        merchant_id: link.user.merchantId,
        url: link.url,
        expires_at: link.expiresAt.toISOString(),
      }
    },
  )
}
