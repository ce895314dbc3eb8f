import { AppError } from '../../../domain/errors.js'

/**
 * A small client of YooKassa's REST API v3 over `fetch` (YooKassa publishes no Node SDK): Basic auth with the shop
 * id and secret key, JSON bodies, an `Idempotence-Key` on every POST, one deadline per call.
 * https://yookassa.ru/developers/using-api/interaction-format
 *
 * Errors (docs/providers.md#errors): a 4xx answer is YooKassa refusing the request →
 * `provider_error` with its `description`; a timeout, a network error, a 5xx or a 429 → `provider_unavailable`
 * (the outcome is unknown or the request was not taken; repeating it with the same key is safe). The shop id and
 * secret key never appear in a message: they travel in a header only, and are masked in anything YooKassa echoes.
 */
export interface YooKassaCredentials {
  readonly shopId: string
  readonly secretKey: string
  /** e.g. https://api.yookassa.ru/v3 (no trailing slash needed). */
  readonly apiUrl: string
  readonly timeoutMs: number
}

/** YooKassa refused the request (a 4xx with its error object); `httpStatus` tells a missing payment (404) apart. */
export class YooKassaRefusal extends AppError {
  constructor(
    readonly httpStatus: number,
    readonly apiCode: string,
    detail: string,
  ) {
    super('provider_error', detail)
  }
}

export interface YooKassaApi {
  get(path: string): Promise<unknown>
  post(path: string, body: unknown, idempotencyKey: string): Promise<unknown>
}

// YooKassa answers 202 `{type: 'processing', retry_after}` while it still works on an earlier request with the same
// key: ask again after `retry_after` ms, within the call's deadline (interaction-format#async).
const MAX_PROCESSING_WAIT_MS = 5_000

export function createYooKassaApi(credentials: YooKassaCredentials): YooKassaApi {
  const base = credentials.apiUrl.replace(/\/+$/, '')
  const authorization = `Basic ${Buffer.from(`${credentials.shopId}:${credentials.secretKey}`, 'utf8').toString('base64')}`
  const secrets = [credentials.secretKey, credentials.shopId].filter((s) => s.length > 0)
  const mask = (text: string): string => secrets.reduce((t, s) => t.split(s).join('***'), text)

  async function send(method: 'GET' | 'POST', path: string, body?: unknown, idempotencyKey?: string): Promise<unknown> {
    const signal = AbortSignal.timeout(credentials.timeoutMs)
    const deadline = performance.now() + credentials.timeoutMs
    const headers: Record<string, string> = { authorization, accept: 'application/json' }
    if (idempotencyKey !== undefined) headers['idempotence-key'] = idempotencyKey
    if (body !== undefined) headers['content-type'] = 'application/json'
    const payload = body === undefined ? undefined : JSON.stringify(body)
    for (;;) {
      let status: number
      let text: string
      try {
        const res = await fetch(`${base}${path}`, { method, headers, body: payload ?? null, signal, redirect: 'error' })
        status = res.status
        text = await res.text()
      } catch (err) {
        const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')
        throw new AppError(
          'provider_unavailable',
          timedOut ? `YooKassa did not answer within ${credentials.timeoutMs} ms` : 'YooKassa could not be reached',
        )
      }
      const json = parseJson(text)
      if (status === 202 && isObject(json) && json['type'] === 'processing') {
        const wait = Math.min(Number(json['retry_after']) || 1_000, MAX_PROCESSING_WAIT_MS)
        if (performance.now() + wait >= deadline)
          throw new AppError('provider_unavailable', 'YooKassa is still processing the request; try again')
        await new Promise((resolve) => setTimeout(resolve, wait))
        continue
      }
      if (status >= 200 && status < 300) {
        if (json === undefined) throw new AppError('provider_unavailable', 'YooKassa answered with unreadable JSON')
        return json
      }
      if (status === 429 || status >= 500)
        throw new AppError('provider_unavailable', `YooKassa is unavailable (HTTP ${status}); try again`)
      const error = isObject(json) ? json : {}
      const code = typeof error['code'] === 'string' ? error['code'] : `http_${status}`
      const description =
        typeof error['description'] === 'string' && error['description'] !== ''
          ? error['description']
          : `HTTP ${status} (${code})`
      throw new YooKassaRefusal(status, code, `the acquirer refused: ${mask(description).slice(0, 500)}`)
    }
  }

  return {
    get: (path) => send('GET', path),
    post: (path, body, idempotencyKey) => send('POST', path, body, idempotencyKey),
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
