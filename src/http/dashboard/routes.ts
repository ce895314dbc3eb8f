/**
 * The dashboard's pages (docs/dashboard.md#pages): sign-in with its second step, the invitation page, two-factor
 * enrolment, sign-out and the signed-in landing page. Server-rendered, no script, a strict CSP; every form carries
 * a CSRF token (the session's, or before sign-in a double-submitted cookie's) and is refused 403 `csrf_failed`
 * without it.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import formbody from '@fastify/formbody'
import helmet from '@fastify/helmet'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../domain/errors.js'
import type { HttpDeps } from '../deps.js'
import { apiSecurityHeadersOff } from '../plugins/request-id.js'
import { negotiateLang } from '../views/i18n.js'
import { clearedCookie, cookie, FORM_COOKIE, readCookie, SESSION_COOKIE } from './cookies.js'
import { STRINGS } from './strings.js'
import {
  codePage,
  enrolPage,
  invitePage,
  landingPage,
  messagePage,
  recoveryPage,
  signInPage,
  type Page,
} from './views.js'

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

type Form = Record<string, unknown>
const fieldOf = (body: unknown, name: string): string => {
  const v = (body as Form | undefined)?.[name]
  return typeof v === 'string' ? v : ''
}

function sameToken(a: string | undefined, b: string): boolean {
  if (a === undefined || a === '' || b === '') return false
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

function csrfFailed(): AppError {
  return new AppError('csrf_failed', 'the form is missing its CSRF token or it does not match; reload the page')
}

export async function dashboardRoutes(app: FastifyInstance, deps: HttpDeps): Promise<void> {
  const base = new URL(deps.publicUrl).pathname.replace(/\/+$/, '')
  const secure = deps.publicUrl.startsWith('https:')
  const users = deps.users

  await app.register(async (scope) => {
    scope.addHook('onRequest', apiSecurityHeadersOff)
    await scope.register(helmet, { global: true, contentSecurityPolicy: CSP })
    await scope.register(formbody)
    scope.addHook('onRequest', async (_request, reply) => {
      reply.header('cache-control', 'no-store')
    })

    const pageOf = (request: FastifyRequest): Page => {
      const q = request.query as { lang?: string } | undefined
      return { lang: negotiateLang(q?.lang, request.headers['accept-language']), base }
    }
    const sessionToken = (request: FastifyRequest) => readCookie(request.headers.cookie, SESSION_COOKIE)
    const send = (reply: FastifyReply, status: number, body: string) =>
      reply.code(status).type('text/html; charset=utf-8').send(body)
    const redirect = (reply: FastifyReply, path: string) =>
      reply
        .code(303)
        .header('location', base + path)
        .send()

    /** The signed-out forms' token: the cookie's when it has one, else a new one set now. */
    const formToken = (request: FastifyRequest, reply: FastifyReply): string => {
      const have = readCookie(request.headers.cookie, FORM_COOKIE)
      if (have !== undefined) return have
      const token = randomBytes(32).toString('base64url')
      reply.header('set-cookie', cookie(FORM_COOKIE, token, secure))
      return token
    }
    const checkFormToken = (request: FastifyRequest): void => {
      if (!sameToken(readCookie(request.headers.cookie, FORM_COOKIE), fieldOf(request.body, 'csrf'))) throw csrfFailed()
    }
    const startSession = (reply: FastifyReply, token: string) =>
      reply.header('set-cookie', cookie(SESSION_COOKIE, token, secure))

    /** The signed-in user, or a redirect to sign-in (undefined). */
    const signedIn = async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        return await users.authenticate(sessionToken(request))
      } catch (err) {
        if (err instanceof AppError && err.code === 'unauthenticated') {
          await redirect(reply, '/dashboard/sign-in')
          return undefined
        }
        throw err
      }
    }
    /** The signed-in user of a POST whose form carries the session's CSRF token; 401 / 403 otherwise. */
    const signedInPost = async (request: FastifyRequest) => {
      const who = await users.authenticate(sessionToken(request))
      if (!sameToken(who.session.csrfToken, fieldOf(request.body, 'csrf'))) throw csrfFailed()
      return who
    }

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

    scope.get('/dashboard', { schema: { hide: true } }, async (request, reply) => {
      const who = await signedIn(request, reply)
      if (who === undefined) return reply
      return send(
        reply,
        200,
        landingPage(pageOf(request), {
          merchantName: who.merchant?.name ?? null,
          role: who.user.role,
          email: who.user.email,
          twoFactor: who.user.totpEnabledAt !== null,
          csrf: who.session.csrfToken,
        }),
      )
    })

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
      reply.header('set-cookie', clearedCookie(SESSION_COOKIE, secure))
      return redirect(reply, '/dashboard/sign-in')
    })
  })
}
