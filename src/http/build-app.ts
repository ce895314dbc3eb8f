import type { IncomingMessage } from 'node:http'
import proxyAddr from '@fastify/proxy-addr'
import Fastify, { LogController, type FastifyInstance } from 'fastify'
import { createFastPath, CREATE_ROUTE } from './create-fast-path.js'
import type { RequestListener } from './fast-path.js'
import { getInfoFastPath } from './get-info-fast-path.js'
import { registerDocs } from './plugins/docs.js'
import { requireAdminToken } from './plugins/admin-auth.js'
import { requireApiKey } from './plugins/auth.js'
import { registerMetrics } from './plugins/metrics.js'
import type { HttpDeps, HttpOptions, RequestTimeout } from './deps.js'
import { registerJsonBody } from './plugins/json-body.js'
import { clientErrors } from './plugins/client-errors.js'
import { frameworkErrors, registerProblemJson } from './plugins/problem-json.js'
import { registerRequestId, requestIdOf } from './plugins/request-id.js'
import { registerWriteBatching, type WriteBatching } from './plugins/write-batching.js'
import { dashboardRoutes } from './dashboard/routes.js'
import { adminMerchantRoutes } from './routes/admin/merchants.js'
import { adminUserRoutes } from './routes/admin/users.js'
import { createdAnswer, invoiceRoutes } from './routes/invoices.js'
import { payRoutes } from './routes/pay.js'
import { providerRoutes } from './routes/providers.js'
import { publicRoutes } from './routes/public.js'
import { refundRoutes } from './routes/refunds.js'
import { webhookRoutes } from './routes/webhooks.js'
import { ADMIN_SCHEMAS } from './schemas/admin.js'
import { FieldErrorSchema, InvoiceDetailSchema, InvoiceSchema, ProblemSchema } from './schemas/common.js'
import { RefundListResponse, RefundSchema } from './schemas/refunds.js'
import { CreateInvoiceBody, CreateInvoiceResponse, InvoiceListResponse } from './schemas/invoices.js'
import { DeliveryAttemptSchema, DeliveryListResponse, DeliverySchema, TestWebhookResponse } from './schemas/webhooks.js'

export type BuildAppDeps = Omit<HttpDeps, 'metrics'>

/** TRUST_PROXY as Fastify takes it: a hop count trusts that many nearest hops of X-Forwarded-For. */
function trustedProxies(
  trust: HttpOptions['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (trust === undefined || trust === false) return false
  if (typeof trust === 'number') return (_address, hop) => hop < trust
  return [...trust]
}

/** The client's address as Fastify's `request.ip` takes it under the same TRUST_PROXY (getInfo's fast path). */
function clientAddressOf(trust: HttpOptions['trustProxy']): (req: IncomingMessage) => string | undefined {
  const trusted = trustedProxies(trust)
  if (trusted === false) return (req) => req.socket.remoteAddress
  const fn = typeof trusted === 'function' ? trusted : proxyAddr.compile(trusted as string[])
  return (req) => proxyAddr(req, fn)
}

/** The body fields whose JSON number text is kept (plugins/json-body.ts): a create's amount. */
const EXACT_NUMBERS = ['amount']

/** A 16 KiB request takes a fraction of a second even on a slow phone link; 30 s leaves room for far worse. */
const REQUEST_TIMEOUT: RequestTimeout = { ms: 30_000, checkEveryMs: 5_000 }

/** Builds the Fastify app: plugins, schemas, routes. Does not listen. */
export async function buildApp(deps: BuildAppDeps, opts: HttpOptions): Promise<FastifyInstance> {
  const requestTimeout = opts.requestTimeout ?? REQUEST_TIMEOUT
  const app = Fastify({
    loggerInstance: opts.logger,
    // one structured line per request from request-id.ts instead of Fastify's two
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.bodyLimit,
    // A request (headers and body) must arrive in full within this time, or it is answered 408 and its connection
    // closed. Fastify's default is none, which let a client that sent a Content-Length and then stalled keep its
    // connection, and a file descriptor, for ever: a few hundred of them and no one else could connect.
    // Given to the server at its creation as well: on Node 20, where it was checked, a requestTimeout set
    // afterwards (as Fastify sets its own) was not enforced: the stalled body kept its connection.
    requestTimeout: requestTimeout.ms,
    // requireHostHeader: a request without Host is refused by problem-json.ts, as a problem (docs/api.md#errors), not by node
    http: {
      requestTimeout: requestTimeout.ms,
      connectionsCheckingInterval: requestTimeout.checkEveryMs,
      requireHostHeader: false,
    },
    requestIdHeader: false,
    // the client address the per-address limits count (docs/api.md#limits): behind a proxy, from its X-Forwarded-For (TRUST_PROXY)
    trustProxy: trustedProxies(opts.trustProxy),
    genReqId: requestIdOf,
    // On SIGTERM a request already on its way over a keep-alive connection is served (with `Connection: close`),
    // not refused: a 503 to a POST leaves the client unsure whether it took effect. New connections are refused
    // once the listener is closed, which is what a load balancer retries elsewhere.
    return503OnClosing: false,
    // router errors (over-long path parameter, bad percent-encoding) as problems (docs/api.md#errors) too
    frameworkErrors,
    // requests node's HTTP parser refuses (bad header syntax, headers over 16 KiB) as problems (docs/api.md#errors) too
    clientErrorHandler: clientErrors,
    ajv: {
      // docs/api.md#create-an-invoice: unknown fields are rejected, never silently removed; bodies are never coerced.
      customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true },
    },
  })
  // Only application/json bodies are accepted (docs/api.md#create-an-invoice → 415 otherwise).
  app.removeContentTypeParser('text/plain')
  registerJsonBody(app, { exactNumbers: EXACT_NUMBERS })

  // A request in flight over a keep-alive connection when close begins is answered, and then its connection sits
  // idle: node's server.close() closed the idle ones only once, when it was called, so this one held the close (and
  // a SIGTERM's exit) until the keep-alive timeout, 72 s. Until the server has closed, idle connections are closed
  // as they become idle.
  app.addHook('preClose', (done) => {
    const sweep = setInterval(() => app.server.closeIdleConnections(), 50)
    sweep.unref()
    app.server.once('close', () => clearInterval(sweep))
    done()
  })
  registerRequestId(app)
  const batching = registerWriteBatching(app)
  registerProblemJson(app)
  for (const schema of [
    FieldErrorSchema,
    ProblemSchema,
    InvoiceSchema,
    InvoiceDetailSchema,
    CreateInvoiceResponse,
    InvoiceListResponse,
    RefundSchema,
    RefundListResponse,
    DeliveryAttemptSchema,
    DeliverySchema,
    DeliveryListResponse,
    TestWebhookResponse,
    ...ADMIN_SCHEMAS,
  ]) {
    app.addSchema(schema)
  }
  await registerDocs(app, opts.publicUrl)
  const metrics = registerMetrics(app, { defaultMetrics: opts.defaultMetrics, extra: opts.metricsRegistries ?? [] })
  const full: HttpDeps = { ...deps, metrics }
  // The merchant routes, in one scope whose every request authenticates its API key first (docs/api.md#authentication, docs/api.md#limits).
  await app.register(async (merchantScope) => {
    merchantScope.addHook('onRequest', requireApiKey(full.authenticate, full.rateLimiter))
    invoiceRoutes(merchantScope, full)
    webhookRoutes(merchantScope, full)
    refundRoutes(merchantScope, full)
  })
  // The admin API, in one scope whose every request authenticates its admin token first (docs/admin-api.md).
  await app.register(async (adminScope) => {
    adminScope.addHook('onRequest', requireAdminToken(full.admin.authenticate, full.rateLimiter))
    adminMerchantRoutes(adminScope, full)
    adminUserRoutes(adminScope, full)
  })
  publicRoutes(app, full)
  await payRoutes(app, full)
  await dashboardRoutes(app, full)
  await providerRoutes(app, full)
  installFastPaths(app, full, opts, batching)
  return app
}

/**
 * The fast paths (get-info-fast-path.ts, create-fast-path.ts) in front of the framework, on the app's server: the
 * server's request listener (Fastify's) becomes their hand-over. Fastify's `serverFactory` would do the same but
 * changes how Fastify listens (no second socket for `localhost`'s other address) and its server settings would be
 * ours to copy. Servers Fastify makes at listen for further addresses, and `app.inject`, go to the framework alone.
 */
function installFastPaths(app: FastifyInstance, deps: HttpDeps, opts: HttpOptions, batching: WriteBatching): void {
  if (opts.getInfoFastPath === false && opts.createFastPath === false) return
  let closing = false
  // Fastify marks itself closing just before its preClose hooks run (and answers with Connection: close after)
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })
  const server = app.server
  const listeners = server.listeners('request') as RequestListener[]
  const framework = listeners[0]
  if (listeners.length !== 1 || framework === undefined) return // Fastify's server has its one listener
  const common = {
    authenticate: deps.authenticate,
    limiter: deps.rateLimiter,
    log: app.log,
    metrics: deps.metrics,
    batching,
    clientAddress: clientAddressOf(opts.trustProxy),
    closing: () => closing,
  }
  let listener = framework
  if (opts.createFastPath !== false) {
    let validate: ((body: unknown) => boolean) | undefined
    listener = createFastPath(
      {
        ...common,
        create: deps.invoices.create,
        answer: (invoice, isNew) => createdAnswer(deps, invoice, isNew),
        bodyLimit: app.initialConfig.bodyLimit ?? opts.bodyLimit,
        exactNumbers: EXACT_NUMBERS,
        // the route's body validator as the framework compiles it: its compiler exists once the app is ready
        validator: () =>
          (validate ??= app.validatorCompiler?.({
            schema: CreateInvoiceBody,
            method: 'POST',
            url: CREATE_ROUTE,
            httpPart: 'body',
          }) as ((body: unknown) => boolean) | undefined),
      },
      listener,
    )
  }
  if (opts.getInfoFastPath !== false)
    listener = getInfoFastPath({ ...common, getInfo: deps.invoices.getInfo, now: deps.now }, listener)
  server.removeListener('request', framework)
  server.on('request', listener)
}
