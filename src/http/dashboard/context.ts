/**
 * What every dashboard route needs from a request (docs/dashboard.md#pages): the page's language and base path,
 * the signed-in user, the CSRF checks and the role rules. Made once in routes.ts and handed to each page's module.
 *
 * The role rules (docs/dashboard.md#users-and-roles): a merchant's page or action is reached only by that merchant's users,
 * and everything else — another merchant's invoice, an operator on a merchant's page, a merchant's user on the
 * console — reads as 404 `not_found`, as if it did not exist. A `viewer` may read every page of its merchant; its
 * POSTs are 403 `forbidden`.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { SignedIn } from '../../app/authenticate-session.js'
import { AppError } from '../../domain/errors.js'
import type { Merchant } from '../../domain/merchant.js'
import type { HttpDeps } from '../deps.js'
import { negotiateLang } from '../views/i18n.js'
import { cookie, FORM_COOKIE, readCookie, SESSION_COOKIE } from './cookies.js'
import type { Page } from './views.js'

type Form = Record<string, unknown>

/** A form field as a string ('' when absent or not a string). */
export const fieldOf = (body: unknown, name: string): string => {
  const v = (body as Form | undefined)?.[name]
  return typeof v === 'string' ? v : ''
}

/** A query parameter as a string ('' when absent or repeated). */
export const queryOf = (request: FastifyRequest, name: string): string => {
  const v = (request.query as Form | undefined)?.[name]
  return typeof v === 'string' ? v : ''
}

export function sameToken(a: string | undefined, b: string): boolean {
  if (a === undefined || a === '' || b === '') return false
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export function csrfFailed(): AppError {
  return new AppError('csrf_failed', 'the form is missing its CSRF token or it does not match; reload the page')
}

/** 404 for whatever a user may not know exists (another merchant's, or another role's page). */
export function notFound(): AppError {
  return new AppError('not_found', 'no such page')
}

/** A merchant's user on one of its merchant's pages. */
export interface MerchantUser extends SignedIn {
  readonly merchant: Merchant
}

export interface DashboardContext {
  readonly deps: HttpDeps
  /** PUBLIC_URL's path ('' at the root). */
  readonly base: string
  readonly secure: boolean
  pageOf(request: FastifyRequest): Page
  sessionToken(request: FastifyRequest): string | undefined
  send(reply: FastifyReply, status: number, body: string): FastifyReply
  /** 303 to `path` under the dashboard's base. */
  redirect(reply: FastifyReply, path: string): FastifyReply
  /** The signed-out forms' CSRF token: the cookie's when it has one, else a new one set now. */
  formToken(request: FastifyRequest, reply: FastifyReply): string
  checkFormToken(request: FastifyRequest): void
  startSession(reply: FastifyReply, token: string): void
  /** The signed-in user of a page, or undefined after answering with a redirect to sign-in. */
  signedIn(request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined>
  /** The signed-in user of a POST whose form carries the session's CSRF token; 401 / 403 otherwise. */
  signedInPost(request: FastifyRequest): Promise<SignedIn>
  /** A merchant page: its user (any role), or undefined after a redirect to sign-in; an operator → 404. */
  merchantPage(request: FastifyRequest, reply: FastifyReply): Promise<MerchantUser | undefined>
  /** A merchant action: an `owner` with the form's CSRF token; a viewer → 403 `forbidden`, an operator → 404. */
  ownerPost(request: FastifyRequest): Promise<MerchantUser>
  /** An operator's console page, or undefined after a redirect to sign-in; anyone else → 404. */
  adminPage(request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined>
  /** An operator's console action with the form's CSRF token; anyone else → 404. */
  adminPost(request: FastifyRequest): Promise<SignedIn>
}

function asMerchantUser(who: SignedIn): MerchantUser {
  if (who.merchant === null || who.user.role === 'admin') throw notFound()
  return who as MerchantUser
}

function asAdmin(who: SignedIn): SignedIn {
  if (who.user.role !== 'admin') throw notFound()
  return who
}

export function dashboardContext(deps: HttpDeps): DashboardContext {
  const base = new URL(deps.publicUrl).pathname.replace(/\/+$/, '')
  const secure = deps.publicUrl.startsWith('https:')
  const users = deps.users
  const sessionToken = (request: FastifyRequest) => readCookie(request.headers.cookie, SESSION_COOKIE)
  const redirect = (reply: FastifyReply, path: string) =>
    reply
      .code(303)
      .header('location', base + path)
      .send()

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
  const signedInPost = async (request: FastifyRequest) => {
    const who = await users.authenticate(sessionToken(request))
    if (!sameToken(who.session.csrfToken, fieldOf(request.body, 'csrf'))) throw csrfFailed()
    return who
  }

  return {
    deps,
    base,
    secure,
    pageOf: (request) => {
      const chosen = queryOf(request, 'lang')
      const lang = negotiateLang(chosen || undefined, request.headers['accept-language'])
      return { lang, base, langChosen: chosen === lang }
    },
    sessionToken,
    send: (reply, status, body) => reply.code(status).type('text/html; charset=utf-8').send(body),
    redirect,
    formToken: (request, reply) => {
      const have = readCookie(request.headers.cookie, FORM_COOKIE)
      if (have !== undefined) return have
      const token = randomBytes(32).toString('base64url')
      reply.header('set-cookie', cookie(FORM_COOKIE, token, secure))
      return token
    },
    checkFormToken: (request) => {
      if (!sameToken(readCookie(request.headers.cookie, FORM_COOKIE), fieldOf(request.body, 'csrf'))) throw csrfFailed()
    },
    startSession: (reply, token) => {
      reply.header('set-cookie', cookie(SESSION_COOKIE, token, secure))
    },
    signedIn,
    signedInPost,
    merchantPage: async (request, reply) => {
      const who = await signedIn(request, reply)
      return who === undefined ? undefined : asMerchantUser(who)
    },
    ownerPost: async (request) => {
      const who = asMerchantUser(await signedInPost(request))
      if (who.user.role !== 'owner') throw new AppError('forbidden', 'a viewer may look but not change anything')
      return who
    },
    adminPage: async (request, reply) => {
      const who = await signedIn(request, reply)
      return who === undefined ? undefined : asAdmin(who)
    },
    adminPost: async (request) => asAdmin(await signedInPost(request)),
  }
}
