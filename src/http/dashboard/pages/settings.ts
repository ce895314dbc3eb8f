/**
 * /dashboard/settings (docs/dashboard.md#settings): the name shown on the payment page and the default service;
 * an owner saves them, checked as `merchant create` checks them (a bad one → 400 naming the field).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Merchant } from '../../../domain/merchant.js'
import { fieldOf, type DashboardContext, type MerchantUser } from '../context.js'
import { appPage } from '../shell.js'
import { SETTINGS_STRINGS } from '../strings/settings.js'
import { settingsContent } from './settings-views.js'

export async function settingsPages(scope: FastifyInstance, ctx: DashboardContext): Promise<void> {
  const { accounts } = ctx.deps

  const render = (request: FastifyRequest, who: MerchantUser, merchant: Merchant, saved = false) => {
    const p = ctx.pageOf(request)
    const csrf = who.user.role === 'owner' ? who.session.csrfToken : null
    const content = settingsContent(p, { merchant, services: accounts.services(), csrf, saved })
    return appPage(p, { ...who, merchant }, 'settings', SETTINGS_STRINGS[p.lang].title, content)
  }

  scope.get('/dashboard/settings', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.merchantPage(request, reply)
    if (who === undefined) return reply
    return ctx.send(reply, 200, render(request, who, who.merchant))
  })

  scope.post('/dashboard/settings', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.ownerPost(request)
    const saved = await accounts.updateSettings(who.merchant.id, {
      name: fieldOf(request.body, 'name'),
      defaultService: fieldOf(request.body, 'default_service'),
    })
    return ctx.send(reply, 200, render(request, who, saved, true))
  })
}
