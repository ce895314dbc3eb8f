import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'

// A client's id is echoed only when it is a short token: anything else could forge log lines or headers.
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Fastify's `genReqId`: the client's `x-request-id` when it is a safe token, else a new UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id']
  return typeof given === 'string' && CLIENT_ID.test(given) ? given : randomUUID()
}

/**
 * API.md B7: every response carries `x-request-id`; every log line of the request carries it as `reqId`
 * (Fastify's child logger), including the one access-log line written here.
 */
export function registerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 },
      'request completed',
    )
  })
}
