import type { FastifyInstance } from 'fastify'
import { Counter, Registry, collectDefaultMetrics } from 'prom-client'
import { RequestMetrics } from './request-metrics.js'
import { elapsedMs } from './hand-over.js'

export interface HttpMetrics {
  readonly registry: Registry
  readonly invoicesCreated: Counter<'currency' | 'service'>
  /**
   * What counts an answer of one method, route and status and its time in ms (what every answer's onResponse hook
   * records): for a caller that answers one kind of request many times (getInfo's fast path).
   */
  readonly recorder: (method: string, route: string, statusCode: number) => (ms: number) => void
}

/** The upper bounds (seconds) of `http_request_duration_seconds`' buckets. */
export const HTTP_DURATION_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
]

/** Prometheus metrics of one app instance (its own registry: no module-level singletons). */
export function registerMetrics(
  app: FastifyInstance,
  opts: { defaultMetrics: boolean; extra?: readonly Registry[] },
): HttpMetrics {
  const registry = new Registry()
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry })
  const requests = new RequestMetrics(registry, HTTP_DURATION_BUCKETS)
  const invoicesCreated = new Counter({
    name: 'invoices_created_total',
    help: 'Invoices created (is_new: true)',
    labelNames: ['currency', 'service'] as const,
    registers: [registry],
  })

  const recorder = requests.recorder.bind(requests)
  app.addHook('onResponse', (request, reply, done) => {
    recorder(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
    )(elapsedMs(request.raw, reply.elapsedTime))
    done()
  })

  app.get(
    '/metrics',
    {
      schema: {
        operationId: 'metrics',
        summary: 'Prometheus metrics of this instance (text exposition format)',
        tags: ['operations'],
        security: [],
        response: {
          200: {
            description: 'The metrics in the Prometheus text format',
            content: {
              [registry.contentType]: {
                schema: {
                  type: 'string',
                  examples: ['# HELP invoices_created_total Invoices created (is_new: true)\n'],
                },
              },
            },
          },
        },
      },
    },
    async (_request, reply) => {
      reply.type(registry.contentType)
      // the workers' registries (webhooks) beside this app's own; each text ends with a newline
      const texts = await Promise.all([registry, ...(opts.extra ?? [])].map((r) => r.metrics()))
      return texts.join('')
    },
  )
  return { registry, invoicesCreated, recorder }
}
