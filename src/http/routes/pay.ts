import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import formbody from '@fastify/formbody'
import helmet from '@fastify/helmet'
import { apiSecurityHeadersOff } from '../plugins/request-id.js'
import { Type, type Static } from '@sinclair/typebox'
import { AppError, validationFailed } from '../../domain/errors.js'
import { parseUuid, type InvoiceId } from '../../domain/ids.js'
import { readStatus, type Invoice, type Status } from '../../domain/invoice.js'
import type { HttpDeps } from '../deps.js'
import { problems } from '../schemas/common.js'
import { HTML_NOT_FOUND, HTML_PAGE, PayParams, PayQuery, PayStatusResponse, SimulateBody } from '../schemas/pay.js'
import { ASSETS } from '../views/assets.js'
import { askedLang, negotiateLang } from '../views/i18n.js'
import {
  depositProgress,
  payPath,
  redirectUrlOf,
  renderNotFoundPage,
  renderPaymentPage,
} from '../views/payment-page.js'

// The page loads its own stylesheet, script and QR image and talks only to this origin. Helmet's global policy
// (default-src 'none') stays on every other route; this one is merged over it for the HTML routes only.
const PAGE_HELMET = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      imgSrc: ["'self'", 'data:'],
      styleSrc: ["'self'"],
      scriptSrc: ["'self'"],
      connectSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
  frameguard: { action: 'deny' as const },
  referrerPolicy: { policy: 'no-referrer' as const },
}

/** A Content-Security-Policy header value from helmet-style camelCase directives, as helmet writes it. */
function cspHeader(directives: Readonly<Record<string, readonly string[]>>): string {
  return Object.entries(directives)
    .map(([name, values]) => `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${values.join(' ')}`)
    .join(';')
}

/**
 * The page of an invoice paid at an acquirer's hosted checkout (docs/providers.md#checkout). Its Pay form posts to
 * our own checkout route, which answers 303 to the acquirer; a browser holds a form's redirects to the page's
 * form-action too (Chromium refuses the whole submission), so there form-action also allows the acquirer's
 * checkout origins, and only those.
 */
function checkoutPageCsp(origins: readonly string[]): string {
  return cspHeader({ ...PAGE_HELMET.contentSecurityPolicy.directives, formAction: ["'self'", ...origins] })
}

/** What a failed Pay form post tells the page (`?checkout=`), by the acquirer's error. */
const CHECKOUT_FAILURES: ReadonlyMap<string, 'refused' | 'unavailable'> = new Map([
  ['provider_error', 'refused'],
  ['provider_unavailable', 'unavailable'],
])

type PayStatusWire = Static<typeof PayStatusResponse>

function statusToWire(invoice: Invoice, status: Status, progress: string | undefined): PayStatusWire {
  return {
    status,
    expired_at: invoice.expiresAt.toISOString(),
    paid_at: invoice.paidAt === null ? null : invoice.paidAt.toISOString(),
    redirect_url: redirectUrlOf(invoice, status),
    ...(progress !== undefined && { progress }),
  }
}

function sendHtml(reply: FastifyReply, code: number, body: string): FastifyReply {
  // The page shows a live status, so no cache may keep it; its language follows Accept-Language.
  return reply
    .code(code)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('vary', 'Accept-Language')
    .send(body)
}

/**
 * CSRF defence for the simulate post (a state change reachable by a plain HTML form): a browser request from another
 * site is refused. Browsers send `Origin` on every cross-origin POST and `Sec-Fetch-Site` on modern engines; a request
 * carrying neither (curl, server-side callers, tests) is not a browser's cross-site request and passes.
 * `Origin: null` decides nothing by itself: the page's own `Referrer-Policy: no-referrer` makes browsers send exactly
 * that on its form posts, so there Sec-Fetch-Site is what tells another origin's post apart: without an Origin that
 * names one, only `same-origin` (or `none`, a request the user made directly) passes. `same-site` is another origin
 * of the same site (another port or subdomain), which a page there reaches with `Origin: null` by its own
 * no-referrer policy.
 * docs/api.md#errors has no 403 code for this, so it is a 400 `validation_failed` naming `origin`.
 */
function assertSameOrigin(request: FastifyRequest, ownOrigin: string): void {
  const origin = request.headers.origin
  const named = origin !== undefined && origin.trim() !== 'null'
  if (named && !isOwnOrigin(originOf(origin), request, ownOrigin)) {
    throw validationFailed([{ field: 'origin', message: `cross-site request refused: Origin must be ${ownOrigin}` }])
  }
  const raw = request.headers['sec-fetch-site']
  const site = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined
  if (site === 'cross-site' || (!named && site !== undefined && site !== 'same-origin' && site !== 'none')) {
    throw validationFailed([
      {
        field: 'origin',
        message: `${site === 'cross-site' ? 'cross-site' : 'cross-origin'} request refused (Sec-Fetch-Site: ${site})`,
      },
    ])
  }
}

/**
 * Whether a request's origin is this service: PUBLIC_URL's, or the scheme and host the request itself was sent to.
 * A page opened at another address of the same server (http://127.0.0.1:8080 where PUBLIC_URL says localhost, what
 * the start-up log prints) posts with that origin; its buttons failed. A page of another site cannot send our Host
 * with its Origin; and the scheme must be the request's own (behind a proxy, as TRUST_PROXY lets X-Forwarded-Proto
 * say), or a page served over plain HTTP at our host name — another server there, or one a network attacker
 * injected — would count as ours for a service reached over HTTPS.
 */
function isOwnOrigin(origin: URL | undefined, request: FastifyRequest, ownOrigin: string): boolean {
  if (origin === undefined) return false
  if (origin.origin === ownOrigin) return true
  const host = request.headers.host
  return host !== undefined && origin.host === host.toLowerCase() && origin.protocol === `${request.protocol}:`
}

/** An Origin header value parsed, or undefined when it names no origin (garbage, an opaque origin). */
function originOf(value: string): URL | undefined {
  try {
    const url = new URL(value)
    return url.origin === 'null' ? undefined : url
  } catch {
    return undefined
  }
}

const isFormPost = (request: FastifyRequest): boolean =>
  (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')

/**
 * A person's browser navigating (the Pay form): a form post, or a request that asks for HTML. The Pay form has no
 * field, so its body is empty, and a client may leave out the content type of an empty body.
 */
const isNavigation = (request: FastifyRequest): boolean =>
  isFormPost(request) || (request.headers.accept ?? '').toLowerCase().includes('text/html')

/** The hosted payment page (docs/payment-page.md): the HTML page, its status feed, its assets and the sandbox test controls. */
export async function payRoutes(app: FastifyInstance, deps: HttpDeps): Promise<void> {
  // PUBLIC_URL's path, when a proxy serves the service under one: the pages' own URLs carry it (PageContext.base)
  const base = new URL(deps.publicUrl).pathname.replace(/\/+$/, '')
  // Its own encapsulated scope: form bodies are parsed here only, every other route still answers 415 to a form.
  await app.register(async (scope) => {
    // helmet only in this scope, the HTML pages and their assets: the JSON API gets a fixed header set instead,
    // taken off here first (helmet sets the raw response's headers, which the reply's own would override)
    scope.addHook('onRequest', apiSecurityHeadersOff)
    await scope.register(helmet, {
      global: true,
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    })
    await scope.register(formbody)
    const r = scope.withTypeProvider<TypeBoxTypeProvider>()

    const findView = async (rawId: string) => {
      const id = parseUuid(rawId)
      return id === undefined ? undefined : deps.payments.view(id as InvoiceId)
    }

    r.get(
      '/pay/:invoice_id',
      {
        helmet: PAGE_HELMET,
        schema: {
          operationId: 'getPaymentPage',
          summary: 'The hosted payment page (HTML, English or Russian)',
          description:
            'Merchant name, amount, comment, status, time left and the QR code; updates itself as the status changes. ' +
            'Language: `?lang=en|ru`, else Accept-Language, else English. With the sandbox provider it shows TEST MODE controls.',
          tags: ['public'],
          security: [],
          params: PayParams,
          querystring: PayQuery,
          produces: ['text/html'],
          response: { 200: HTML_PAGE, 404: HTML_NOT_FOUND, ...problems() },
        },
      },
      async (request, reply) => {
        const asked = askedLang(request.query.lang)
        const lang = negotiateLang(asked, request.headers['accept-language'])
        const view = await findView(request.params.invoice_id)
        if (view === undefined) {
          return sendHtml(
            reply,
            404,
            renderNotFoundPage(lang, payPath(base, encodeURIComponent(request.params.invoice_id)), base),
          )
        }
        const failed = request.query.checkout
        const ctx = {
          lang,
          explicitLang: asked !== undefined,
          sandbox: deps.sandbox,
          now: deps.now(),
          base,
          checkoutFailed: [...CHECKOUT_FAILURES.values()].find((f) => f === failed),
        }
        if (view.checkout) reply.header('content-security-policy', checkoutPageCsp(view.checkoutOrigins))
        return sendHtml(reply, 200, renderPaymentPage(view, ctx))
      },
    )

    // A link whose trailing slash was added on the way (a chat app, a hand-typed URL) still reaches the page: a
    // permanent redirect to the page's own address, query kept. The target is built from PUBLIC_URL's path and the
    // encoded id only, so it cannot point anywhere else.
    r.get('/pay/:invoice_id/', { schema: { hide: true, params: PayParams } }, async (request, reply) => {
      const at = request.url.indexOf('?')
      const query = at === -1 ? '' : request.url.slice(at)
      return reply
        .code(301)
        .header('location', payPath(base, encodeURIComponent(request.params.invoice_id)) + query)
        .send()
    })

    r.get(
      '/pay/:invoice_id/status',
      {
        schema: {
          operationId: 'getPaymentStatus',
          summary: 'The status the payment page polls',
          description: 'redirect_url is success_url when paid, fail_url when failed or expired, else null.',
          tags: ['public'],
          security: [],
          params: PayParams,
          response: { 200: PayStatusResponse, ...problems('invoice_not_found') },
        },
      },
      async (request, reply) => {
        const view = await findView(request.params.invoice_id)
        if (view === undefined) throw new AppError('invoice_not_found', 'no such invoice')
        reply.header('cache-control', 'no-store')
        return statusToWire(view.invoice, view.status, depositProgress(view.deposit))
      },
    )

    r.get(
      '/pay/assets/:file',
      { schema: { hide: true, params: Type.Object({ file: Type.String() }) } },
      async (request, reply) => {
        const asset = ASSETS.get(request.params.file)
        if (asset === undefined) return reply.callNotFound()
        // Content-hashed names (views/assets.ts): a new build is a new URL, so browsers may keep these for a year.
        return reply.type(asset.type).header('cache-control', 'public, max-age=31536000, immutable').send(asset.body)
      },
    )

    const ownOrigin = new URL(deps.publicUrl).origin
    const backToPage = (
      reply: FastifyReply,
      id: string,
      rawLang: string | string[] | undefined,
      failed?: 'refused' | 'unavailable',
    ) => {
      const lang = askedLang(rawLang)
      const query = [lang === undefined ? '' : `lang=${lang}`, failed === undefined ? '' : `checkout=${failed}`]
        .filter((q) => q !== '')
        .join('&')
      return reply
        .code(303)
        .header('location', payPath(base, id) + (query === '' ? '' : `?${query}`))
        .send()
    }

    // docs/providers.md#checkout: an invoice of the sandbox (or of a provider without a hosted checkout) is 404
    r.post(
      '/pay/:invoice_id/checkout',
      {
        onRequest: async (request) => assertSameOrigin(request, ownOrigin),
        schema: {
          operationId: 'startCheckout',
          summary: "The buyer's Pay: on to the acquirer's hosted checkout",
          description:
            "What the payment page's Pay button posts, for an invoice of a service bound to an acquirer (Stripe, YooKassa). " +
            "Answers 303 to the acquirer's hosted checkout, which sends the buyer back to the payment page. One acquirer payment per attempt: " +
            'a double click, a reload or a second tab goes to the same checkout; after the acquirer ended one (declined, expired), a new one. ' +
            'A browser (a form post, or one asking for HTML) lands back on the page for an invoice that is no longer pending (which shows why), and with `?checkout=refused` or `?checkout=unavailable` when the acquirer refused or did not answer (the page says so above Pay); other callers get the 409, 502 or 503. ' +
            'An invoice of the sandbox has no checkout (404). Cross-site requests are refused as for `simulate`.',
          tags: ['public'],
          security: [],
          params: PayParams,
          querystring: PayQuery,
          response: {
            303: {
              description: "To the acquirer's hosted checkout (or, for a form post, back to the page)",
              type: 'null',
            },
            ...problems(
              'validation_failed',
              'invoice_not_found',
              'not_found',
              'invalid_transition',
              'provider_error',
              'provider_unavailable',
              'unsupported_media_type',
            ),
          },
        },
      },
      async (request, reply) => {
        try {
          const { redirectUrl } = await deps.payments.checkout(request.params.invoice_id, askedLang(request.query.lang))
          return reply.code(303).header('location', redirectUrl).header('cache-control', 'no-store').send()
        } catch (err) {
          // a browser on a page that went final meanwhile lands on the page, which shows the real status
          if (isNavigation(request) && err instanceof AppError && err.code === 'invalid_transition')
            return backToPage(reply, request.params.invoice_id, request.query.lang)
          // a person pressed Pay and the acquirer refused or did not answer: back to the page, which says so
          const failed = err instanceof AppError ? CHECKOUT_FAILURES.get(err.code) : undefined
          if (isNavigation(request) && failed !== undefined) {
            request.log.warn(
              { code: (err as AppError).code, detail: (err as AppError).message },
              'acquirer did not start the payment',
            )
            return backToPage(reply, request.params.invoice_id, request.query.lang, failed)
          }
          throw err
        }
      },
    )

    // docs/payment-page.md: absent (404) when the sandbox provider is disabled.
    if (!deps.sandbox) return
    r.post(
      '/pay/:invoice_id/simulate',
      {
        // before the body is read: a cross-site post is refused whatever it carries
        onRequest: async (request) => assertSameOrigin(request, ownOrigin),
        schema: {
          operationId: 'simulatePayment',
          summary: "Sandbox provider: the buyer's simulated payment result",
          description:
            'What the TEST MODE controls call. JSON answers 200 with the status; an HTML form post ' +
            '(application/x-www-form-urlencoded) answers 303 back to the page, also when the status has already moved on. ' +
            "Only present when SANDBOX is on. A browser request from another origin (an `Origin` other than the service's own or the requested scheme and host's, " +
            '`Sec-Fetch-Site: cross-site`, or, without an `Origin` that names one, a `Sec-Fetch-Site` other than `same-origin` or `none`) is refused with 400 `validation_failed` naming `origin`.',
          tags: ['public'],
          security: [],
          params: PayParams,
          querystring: PayQuery,
          body: SimulateBody,
          response: {
            200: PayStatusResponse,
            303: { description: 'Form post: back to the payment page', type: 'null' },
            ...problems(
              'validation_failed',
              'invalid_json',
              'invoice_not_found',
              'invalid_transition',
              'payload_too_large',
              'unsupported_media_type',
            ),
          },
        },
      },
      async (request, reply) => {
        const id = parseUuid(request.params.invoice_id)
        if (id === undefined) throw new AppError('invoice_not_found', 'no such invoice')
        const form = isFormPost(request)
        const back = () => backToPage(reply, id, request.query.lang)
        try {
          const invoice = await deps.payments.simulate(id as InvoiceId, request.body.outcome)
          if (form) return back()
          return statusToWire(invoice, readStatus(invoice, deps.now()), undefined)
        } catch (err) {
          // A form is a browser navigation: a second click on a page that is already final should land on the page
          // (which shows the real status), not on a problem document. JSON callers get the 409.
          if (form && err instanceof AppError && err.code === 'invalid_transition') return back()
          throw err
        }
      },
    )
  })
}
