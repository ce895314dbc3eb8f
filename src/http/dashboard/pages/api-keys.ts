/**
 * /dashboard/api-keys (docs/dashboard.md#api-keys): the merchant's keys with their names and last use; an owner
 * creates a named key (shown once, on the answer page) and revokes one. The CLI's and the admin API's own use
 * cases, scoped to the signed-in user's merchant: another merchant's key answers 404.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { fieldOf, type DashboardContext, type MerchantUser } from '../context.js'
import { appPage } from '../shell.js'
import { API_KEY_STRINGS } from '../strings/api-keys.js'
import { apiKeysContent, type ApiKeysView } from './api-keys-views.js'

export async function apiKeysPages(scope: FastifyInstance, ctx: DashboardContext): Promise<void> {
  const { accounts } = ctx.deps

  const render = async (
    request: FastifyRequest,
    who: MerchantUser,
    extra: Pick<ApiKeysView, 'newKey' | 'revoked'> = {},
  ): Promise<string> => {
    const p = ctx.pageOf(request)
    const keys = await accounts.listApiKeys(who.merchant.id)
    const view: ApiKeysView = { keys, csrf: who.user.role === 'owner' ? who.session.csrfToken : null, ...extra }
    return appPage(p, who, 'keys', API_KEY_STRINGS[p.lang].title, apiKeysContent(p, view))
  }

  scope.get('/dashboard/api-keys', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.merchantPage(request, reply)
    if (who === undefined) return reply
    return ctx.send(reply, 200, await render(request, who))
  })

  scope.post('/dashboard/api-keys', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.ownerPost(request)
    const issued = await accounts.issueApiKey(who.merchant.id, fieldOf(request.body, 'name'))
    return ctx.send(reply, 201, await render(request, who, { newKey: issued.apiKey }))
  })

  scope.post<{ Params: { id: string } }>(
    '/dashboard/api-keys/:id/revoke',
    { schema: { hide: true } },
    async (request, reply) => {
      const who = await ctx.ownerPost(request)
      await accounts.revokeApiKey(request.params.id, who.merchant.id)
      return ctx.send(reply, 200, await render(request, who, { revoked: true }))
    },
  )
}
