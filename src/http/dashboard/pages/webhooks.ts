/**
 * /dashboard/webhooks (docs/dashboard.md#webhooks): the merchant's delivery log across its invoices, failures first;
 * a test event sent now; the webhook secret rotated (the new one shown once, the old one's grace period shown).
 * Reads and writes are the API's and the CLI's own use cases, scoped to the signed-in user's merchant.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { MerchantUser, DashboardContext } from '../context.js'
import { fieldOf, queryOf } from '../context.js'
import { appPage } from '../shell.js'
import { WEBHOOK_STRINGS } from '../strings/webhooks.js'
import { webhooksContent, type WebhooksView } from './webhooks-views.js'

export async function webhooksPages(scope: FastifyInstance, ctx: DashboardContext): Promise<void> {
  const { deps } = ctx

  const render = async (
    request: FastifyRequest,
    who: MerchantUser,
    extra: Partial<Pick<WebhooksView, 'tested' | 'newSecret' | 'testUrl'>> = {},
  ): Promise<string> => {
    const p = ctx.pageOf(request)
    const cursor = queryOf(request, 'cursor')
    const [{ deliveries, nextCursor }, graceEnd] = await Promise.all([
      deps.webhooks.listDeliveries(who.merchant, { failuresFirst: true, ...(cursor !== '' && { cursor }) }),
      deps.accounts.webhookSecretGraceEnd(who.merchant.id),
    ])
    const view: WebhooksView = {
      deliveries,
      nextCursor,
      paged: cursor !== '',
      graceEnd,
      csrf: who.user.role === 'owner' ? who.session.csrfToken : null,
      testUrl: extra.testUrl ?? deliveries[0]?.url ?? '',
      ...(extra.tested !== undefined && { tested: extra.tested }),
      ...(extra.newSecret !== undefined && { newSecret: extra.newSecret }),
    }
    return appPage(p, who, 'webhooks', WEBHOOK_STRINGS[p.lang].title, webhooksContent(p, view))
  }

  scope.get('/dashboard/webhooks', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.merchantPage(request, reply)
    if (who === undefined) return reply
    return ctx.send(reply, 200, await render(request, who))
  })

  scope.post('/dashboard/webhooks/test', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.ownerPost(request)
    const url = fieldOf(request.body, 'url')
    const tested = await deps.webhooks.sendTest(who.merchant, url)
    return ctx.send(reply, 200, await render(request, who, { tested, testUrl: url }))
  })

  scope.post('/dashboard/webhooks/rotate', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.ownerPost(request)
    const rotated = await deps.accounts.rotateWebhookSecret(who.merchant.id)
    return ctx.send(reply, 200, await render(request, who, { newSecret: rotated.webhookSecret }))
  })
}
