/**
 * The dashboard's pages (docs/dashboard.md#pages): sign-in with its second step, the invitation page, two-factor
 * enrolment, sign-out and the signed-in landing page. Server-rendered, no script, a strict CSP; every form carries
 * a CSRF token (the session's, or before sign-in a double-submitted cookie's) and is refused 403 `csrf_failed`
 * without it.
 */
import formbody from '@fastify/formbody'
import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../../domain/errors.js'
import type { HttpDeps } from '../deps.js'
import { problemHandler } from '../plugins/problem-json.js'
import { apiSecurityHeadersOff } from '../plugins/request-id.js'
import { csrfFailed, dashboardContext, fieldOf, sameToken } from './context.js'
import { invoicesPages } from './pages/invoices.js'
import { clearedCookie, SESSION_COOKIE } from './cookies.js'
import { apiKeysPages } from './pages/api-keys.js'
import { settingsPages } from './pages/settings.js'
import { teamPages } from './pages/team.js'
import { webhooksPages } from './pages/webhooks.js'
import { consolePages } from './pages/console.js'
import { overviewPages } from './pages/overview.js'
import { STRINGS } from './strings.js'
import { codePage, enrolPage, invitePage, messagePage, problemPage, recoveryPage, signInPage } from './views.js'

const CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
  },
}

export async function dashboardRoutes(app: FastifyInstance, deps: HttpDeps): Promise<void> {
  const ctx = dashboardContext(deps)
  const { users } = deps
  const { pageOf, sessionToken, send, redirect, formToken, checkFormToken, startSession, signedIn, signedInPost } = ctx

  await app.register(async (scope) => {
    scope.addHook('onRequest', apiSecurityHeadersOff)
    await scope.register(helmet, { global: true, contentSecurityPolicy: CSP })
    await scope.register(formbody)
    scope.addHook('onRequest', async (_request, reply) => {
      reply.header('cache-control', 'no-store')
    })
    scope.setErrorHandler(problemHandler((request, problem) => problemPage(pageOf(request), problem)))

    scope.get('/dashboard/sign-in', { schema: { hide: true } }, async (request, reply) => {
      const p = pageOf(request)
      const done = (request.query as { done?: string }).done === '1'
      return send(
        reply,
        200,
        signInPage(p, { csrf: formToken(request, reply), ...(done && { notice: STRINGS[p.lang].passwordSet }) }),
      )
    })

    scope.post('/dashboard/sign-in', { schema: { hide: true } }, async (request, reply) => {
      checkFormToken(request)
      const p = pageOf(request)
      const email = fieldOf(request.body, 'email')
      try {
        const started = await users.signIn({
          email,
          password: fieldOf(request.body, 'password'),
          address: request.ip,
          previousToken: sessionToken(request),
        })
        startSession(reply, started.token)
        return redirect(reply, started.session.stage === 'totp' ? '/dashboard/sign-in/code' : '/dashboard')
      } catch (err) {
        if (!(err instanceof AppError) || (err.code !== 'unauthenticated' && err.code !== 'rate_limited')) throw err
        const t = STRINGS[p.lang]
        const message = err.code === 'rate_limited' ? t.throttled : t.wrongCredentials
        return send(reply, err.status, signInPage(p, { csrf: formToken(request, reply), error: message, email }))
      }
    })

    scope.get('/dashboard/sign-in/code', { schema: { hide: true } }, async (request, reply) => {
      const waiting = await users.authenticate(sessionToken(request), 'totp').catch(() => undefined)
      if (waiting === undefined) return redirect(reply, '/dashboard/sign-in')
      return send(reply, 200, codePage(pageOf(request), { csrf: waiting.session.csrfToken }))
    })

    scope.post('/dashboard/sign-in/code', { schema: { hide: true } }, async (request, reply) => {
      const p = pageOf(request)
      const waiting = await users.authenticate(sessionToken(request), 'totp').catch(() => undefined)
      if (waiting === undefined) return redirect(reply, '/dashboard/sign-in')
      if (!sameToken(waiting.session.csrfToken, fieldOf(request.body, 'csrf'))) throw csrfFailed()
      try {
        const started = await users.verifySecondFactor({
          token: sessionToken(request),
          code: fieldOf(request.body, 'code'),
          address: request.ip,
        })
        startSession(reply, started.token)
        return redirect(reply, '/dashboard')
      } catch (err) {
        if (!(err instanceof AppError) || (err.code !== 'unauthenticated' && err.code !== 'rate_limited')) throw err
        const t = STRINGS[p.lang]
        const message = err.code === 'rate_limited' ? t.throttled : t.wrongCredentials
        return send(reply, err.status, codePage(p, { csrf: waiting.session.csrfToken, error: message }))
      }
    })

    scope.get<{ Params: { token: string } }>(
      '/dashboard/invite/:token',
      { schema: { hide: true } },
      async (request, reply) => {
        const p = pageOf(request)
        try {
          const user = await users.readLink(request.params.token)
          return send(
            reply,
            200,
            invitePage(p, { token: request.params.token, email: user.email, csrf: formToken(request, reply) }),
          )
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== 'not_found') throw err
          return send(reply, 404, messagePage(p, STRINGS[p.lang].setPassword, STRINGS[p.lang].linkGone))
        }
      },
    )

    scope.post<{ Params: { token: string } }>(
      '/dashboard/invite/:token',
      { schema: { hide: true } },
      async (request, reply) => {
        checkFormToken(request)
        const p = pageOf(request)
        try {
          await users.setPassword(request.params.token, fieldOf(request.body, 'password'))
          return redirect(reply, '/dashboard/sign-in?done=1')
        } catch (err) {
          if (!(err instanceof AppError)) throw err
          if (err.code === 'not_found')
            return send(reply, 404, messagePage(p, STRINGS[p.lang].setPassword, STRINGS[p.lang].linkGone))
          if (err.code !== 'validation_failed') throw err
          const user = await users.readLink(request.params.token)
          return send(
            reply,
            400,
            invitePage(p, {
              token: request.params.token,
              email: user.email,
              csrf: formToken(request, reply),
              error: STRINGS[p.lang].newPassword,
            }),
          )
        }
      },
    )

    scope.get('/dashboard/2fa', { schema: { hide: true } }, async (request, reply) => {
      const who = await signedIn(request, reply)
      if (who === undefined) return reply
      if (who.user.totpEnabledAt !== null) return redirect(reply, '/dashboard')
      const enrol = await users.beginTotpEnrolment(who.user.id)
      return send(
        reply,
        200,
        enrolPage(pageOf(request), {
          qr: deps.qrDataUri(enrol.uri),
          secret: enrol.secret,
          csrf: who.session.csrfToken,
        }),
      )
    })

    scope.post('/dashboard/2fa', { schema: { hide: true } }, async (request, reply) => {
      const who = await signedInPost(request)
      const p = pageOf(request)
      try {
        const codes = await users.confirmTotpEnrolment(who.user.id, fieldOf(request.body, 'code'))
        return send(reply, 200, recoveryPage(p, codes))
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err
        // the same secret again (the enrolment begun keeps it): the app scanned already stays right
        const enrol = await users.beginTotpEnrolment(who.user.id)
        return send(
          reply,
          400,
          enrolPage(p, {
            qr: deps.qrDataUri(enrol.uri),
            secret: enrol.secret,
            csrf: who.session.csrfToken,
            error: STRINGS[p.lang].wrongCode,
          }),
        )
      }
    })

    scope.post('/dashboard/sign-out', { schema: { hide: true } }, async (request, reply) => {
      await signedInPost(request)
      await users.signOut(sessionToken(request))
      reply.header('set-cookie', clearedCookie(SESSION_COOKIE, ctx.secure))
      return redirect(reply, '/dashboard/sign-in')
    })

    await invoicesPages(scope, ctx)
    await webhooksPages(scope, ctx)
    await apiKeysPages(scope, ctx)
    await teamPages(scope, ctx)
    await settingsPages(scope, ctx)
    await consolePages(scope, ctx)
    await overviewPages(scope, ctx)
  })
}
