/**
 * Every route an app serves, read from Fastify's route tree (`printRoutes({ commonPrefix: false })`): the tests that
 * must try each route (the dashboard's access rules) find new ones without a list to keep up to date.
 */
import type { FastifyInstance } from 'fastify'

export interface Route {
  readonly path: string
  readonly methods: readonly string[]
}

/** Lines look like `│   ├── /sign-in (GET, HEAD, POST)`: four characters of tree per level, then a path part. */
const LINE = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/u

export function routesOf(app: FastifyInstance): Route[] {
  const routes: Route[] = []
  const stack: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = LINE.exec(line)
    if (m === null) continue
    const depth = [...(m[1] ?? '')].length / 4
    stack.length = depth
    const parent = stack[depth - 1] ?? ''
    const path =
      parent.endsWith('/') && (m[2] ?? '').startsWith('/') ? parent + (m[2] ?? '').slice(1) : parent + (m[2] ?? '')
    stack.push(path)
    if (m[3] !== undefined) routes.push({ path, methods: m[3].split(', ').filter((x) => x !== 'HEAD') })
  }
  return routes
}
