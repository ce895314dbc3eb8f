/** The RFC 9457 problem document every error answer carries (docs/api.md#errors), and its body outside Fastify's reply. */
import { STATUS_CODES } from 'node:http'
import { ERROR_STATUS, type ErrorCode, type FieldError } from '../../domain/errors.js'

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
}

export interface Problem {
  type: 'about:blank'
  title: string
  status: number
  code: ErrorCode
  detail: string
  errors?: readonly FieldError[]
}

export function problemOf(code: ErrorCode, detail: string, errors?: readonly FieldError[]): Problem {
  const status = ERROR_STATUS[code]
  return { type: 'about:blank', title: TITLES[status] ?? 'Error', status, code, detail, ...(errors && { errors }) }
}

/**
 * The body of a problem answered with a status docs/api.md#errors does not pair with its code (408, 417, 431: what HTTP says, the
 * contract's nearest code), written outside Fastify's reply.
 */
export function outsideB7(status: number, problem: Problem): string {
  return JSON.stringify({ ...problem, status, title: STATUS_CODES[status] ?? problem.title })
}
