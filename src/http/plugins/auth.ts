import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import type { Authenticated } from '../../app/authenticate-api-key.js'
import type { Merchant } from '../../domain/merchant.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The merchant of the request's X-Api-Key; set on merchant routes by `requireApiKey`. */
    merchant: Merchant
  }
}

/** The onRequest hook of every merchant route (API.md B1): runs before body parsing and validation. */
export function requireApiKey(authenticate: (key: string | undefined) => Promise<Authenticated>): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const header = request.headers['x-api-key']
    const key = Array.isArray(header) ? header[0] : header
    const auth = await authenticate(key?.trim())
    request.merchant = auth.merchant
  }
}
