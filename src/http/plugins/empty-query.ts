import type { FastifyRequest } from 'fastify'

/**
 * preValidation of the list endpoints: a query parameter given empty (`?status=&limit=50`) is taken as not given.
 * The endpoints are written as templates (`?status=&created_from=&…`), and a client that fills every one, leaving
 * the ones it does not use empty, means "no filter", "the default page size", "the first page"; refusing it with
 * "status must be one of …" would answer a question nobody asked. A value that is there is checked as before.
 */
export function emptyQueryIsAbsent(request: FastifyRequest, _reply: unknown, done: () => void): void {
  const query = request.query as Record<string, unknown>
  for (const key of Object.keys(query)) if (query[key] === '') delete query[key]
  done()
}
