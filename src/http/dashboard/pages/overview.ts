/**
 * `/dashboard`: a merchant's overview (docs/dashboard.md#overview), `?days=7|30|90` (default 30; anything else is a
 * 400 page). An operator has no merchant to show: it is sent on to the console.
 */
import type { FastifyInstance } from 'fastify'
import { parseWindow } from '../../../app/get-dashboard-overview.js'
import { AppError } from '../../../domain/errors.js'
import type { DashboardContext, MerchantUser } from '../context.js'
import { notFound } from '../context.js'
import { appPage } from '../shell.js'
import { OVERVIEW_STRINGS } from '../strings/overview.js'
import { overviewContent } from './overview-views.js'

export async function overviewPages(scope: FastifyInstance, ctx: DashboardContext): Promise<void> {
  scope.get('/dashboard', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.signedIn(request, reply)
    if (who === undefined) return reply
    const p = ctx.pageOf(request)
    // an operator has no merchant to show: its page is the console (docs/dashboard.md#operator-console)
    if (who.user.role === 'admin') return ctx.redirect(reply, '/dashboard/console')
    if (who.merchant === null) throw notFound()
    const days = (request.query as Record<string, unknown> | undefined)?.days
    if (days !== undefined && typeof days !== 'string')
      throw new AppError('validation_failed', 'days: must be one of 7, 30, 90')
    const overview = await ctx.deps.invoices.overview(who.merchant, parseWindow(days))
    const content = overviewContent(p, who as MerchantUser, overview)
    return ctx.send(reply, 200, appPage(p, who, 'overview', OVERVIEW_STRINGS[p.lang].title, content))
  })
}
