/**
 * /dashboard/team (docs/dashboard.md#team): the merchant's users with their role, two-factor and last sign-in; an
 * owner invites (the one-time link shown on the answer page, as the CLI prints it), changes a role, removes a user
 * (their sessions end at once). The last owner stays; another merchant's user answers 404.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { fieldOf, type DashboardContext, type MerchantUser } from '../context.js'
import { appPage } from '../shell.js'
import { TEAM_STRINGS } from '../strings/team.js'
import { teamContent, type TeamView } from './team-views.js'

export async function teamPages(scope: FastifyInstance, ctx: DashboardContext): Promise<void> {
  const { users } = ctx.deps

  const render = async (request: FastifyRequest, who: MerchantUser, extra: Pick<TeamView, 'invited'> = {}) => {
    const p = ctx.pageOf(request)
    const view: TeamView = {
      members: await users.listTeam(who.merchant.id),
      me: who.user.id,
      csrf: who.user.role === 'owner' ? who.session.csrfToken : null,
      ...extra,
    }
    return appPage(p, who, 'team', TEAM_STRINGS[p.lang].title, teamContent(p, view))
  }
  const back = (request: FastifyRequest) => {
    const p = ctx.pageOf(request)
    return `/dashboard/team${p.langChosen === true ? `?lang=${p.lang}` : ''}`
  }

  scope.get('/dashboard/team', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.merchantPage(request, reply)
    if (who === undefined) return reply
    return ctx.send(reply, 200, await render(request, who))
  })

  scope.post('/dashboard/team', { schema: { hide: true } }, async (request, reply) => {
    const who = await ctx.ownerPost(request)
    const invited = await users.invite({
      merchantId: who.merchant.id,
      email: fieldOf(request.body, 'email'),
      role: fieldOf(request.body, 'role'),
    })
    return ctx.send(reply, 201, await render(request, who, { invited }))
  })

  scope.post<{ Params: { id: string } }>(
    '/dashboard/team/:id/role',
    { schema: { hide: true } },
    async (request, reply) => {
      const who = await ctx.ownerPost(request)
      await users.changeRole(who.merchant.id, request.params.id, fieldOf(request.body, 'role'))
      return ctx.redirect(reply, back(request))
    },
  )

  scope.post<{ Params: { id: string } }>(
    '/dashboard/team/:id/remove',
    { schema: { hide: true } },
    async (request, reply) => {
      const who = await ctx.ownerPost(request)
      await users.remove(who.merchant.id, request.params.id)
      return ctx.redirect(reply, back(request))
    },
  )
}
