import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AppError, validationFailed } from '../../domain/errors.js'
import { NotificationRejected } from '../../ports/payment-provider.js'
import type { HttpDeps } from '../deps.js'
import { problems } from '../schemas/common.js'

/** The largest notification body taken: far above what Stripe or YooKassa send. */
const NOTIFICATION_BODY_LIMIT = 1024 * 1024

const NotificationParams = Type.Object({
  provider: Type.String({ description: 'The acquirer: stripe or yookassa', examples: ['stripe'] }),
})

const Received = Type.Object(
  { received: Type.Boolean({ description: 'Always true: the acquirer may stop resending it' }) },
  { additionalProperties: false, examples: [{ received: true }] },
)

/**
 * Acquirers' notifications (docs/providers.md#notifications): outside /api, unauthenticated, verified by the
 * provider's adapter over the body's exact bytes. Logged by provider, event and result, never with the body.
 */
export async function providerRoutes(app: FastifyInstance, deps: HttpDeps): Promise<void> {
  await app.register(async (scope) => {
    // the exact bytes, whatever the content type: a signature is over them, and a parsed body is not them
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
    const r = scope.withTypeProvider<TypeBoxTypeProvider>()
    r.post(
      '/providers/:provider/notifications',
      {
        // an acquirer's event is larger than any request of ours (a Stripe event carries whole objects, often
        // several KiB): one refused as too large would be resent for days and never read
        bodyLimit: NOTIFICATION_BODY_LIMIT,
        schema: {
          operationId: 'receiveProviderNotification',
          summary: "An acquirer's notification of a payment's change",
          description:
            "Where Stripe's webhook endpoint and YooKassa's HTTP notifications point. Stripe's are verified by their " +
            "`Stripe-Signature`; YooKassa's by the sender address (its published ranges, `TRUST_PROXY`-aware), and the " +
            'payment is fetched again from YooKassa before anything changes. One that fails verification changes nothing ' +
            '(401 `unauthenticated`, 400 `validation_failed` when malformed). One about a payment that is not ours is ' +
            'acknowledged. Duplicates and any order are harmless.',
          tags: ['public'],
          security: [],
          params: NotificationParams,
          response: {
            200: Received,
            ...problems(
              'validation_failed',
              'unauthenticated',
              'not_found',
              'payload_too_large',
              'provider_error',
              'provider_unavailable',
            ),
          },
        },
      },
      async (request) => {
        const provider = request.params.provider
        if (!deps.notifiers.includes(provider))
          throw new AppError('not_found', `no provider ${provider} is configured here`)
        const body = request.body
        try {
          const receipt = await deps.payments.notify(provider, {
            rawBody: Buffer.isBuffer(body) ? body : Buffer.alloc(0),
            headers: request.headers,
            remoteAddress: request.ip,
            now: deps.now(),
          })
          deps.providerMetrics.notification(provider, receipt.result === 'unknown' ? 'unknown' : 'accepted')
          const log = receipt.result === 'unknown' ? request.log.warn : request.log.info
          log.call(request.log, { provider, event: receipt.event, result: receipt.result }, 'provider notification')
          return { received: true }
        } catch (err) {
          if (!(err instanceof NotificationRejected)) throw err
          deps.providerMetrics.notification(provider, 'refused')
          request.log.warn({ provider, reason: err.message }, 'provider notification refused')
          if (err.status === 401)
            throw new AppError('unauthenticated', `the notification could not be verified: ${err.message}`)
          throw validationFailed([{ field: 'body', message: err.message }])
        }
      },
    )
  })
}
