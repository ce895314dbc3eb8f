import type { FastifyRequest } from 'fastify'
import { validationFailed } from '../../domain/errors.js'

/**
 * preValidation of the routes that read a query (getInfo, the lists): a parameter of the route's whose value is not
 * validly percent-encoded — a lone `%`, `%zz`, bytes that are not UTF-8 such as `%FF` — is 400 `validation_failed`
 * naming it, as a bad encoding in the path already is. The query parser Fastify uses keeps such a value as written,
 * so `order_id=%FF%FE` looked up the order whose id is literally "%FF%FE" (and found it, if there was one).
 * Parameters the route does not have are ignored whatever they hold (docs/api.md#getinfo). A query without `%` costs one scan.
 */
export function queryEncodingChecked(request: FastifyRequest, _reply: unknown, done: (err?: Error) => void): void {
  const url = request.url
  const start = url.indexOf('?')
  if (start < 0 || !url.includes('%', start)) return done()
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined
  const known = schema?.properties ?? {}
  for (const pair of url.slice(start + 1).split('&')) {
    if (!pair.includes('%')) continue
    const eq = pair.indexOf('=')
    const name = decoded(eq < 0 ? pair : pair.slice(0, eq))
    if (name === undefined || !Object.hasOwn(known, name) || eq < 0) continue
    if (decoded(pair.slice(eq + 1)) === undefined)
      return done(validationFailed([{ field: name, message: 'is not validly percent-encoded' }]))
  }
  done()
}

/** `text` as a query component decodes (`+` is a space), or undefined when it is not validly percent-encoded UTF-8. */
function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return undefined
  }
}
