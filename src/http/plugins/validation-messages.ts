/** Schema (ajv) errors as field errors that name the field, one per field, in plain words. */
import type { FastifyError } from 'fastify'
import { withArticle, type FieldError } from '../../domain/errors.js'
import { problemOf, type Problem } from './problem.js'

interface AjvError {
  instancePath?: string
  keyword?: string
  message?: string
  params?: Record<string, unknown>
}

/** Turns schema errors into field errors that name the field ("callback_urll: is not a known field"). */
export function validationProblem(err: FastifyError): Problem {
  const where = err.validationContext ?? 'body'
  const found: { error: FieldError; keyword: string | undefined; type: unknown }[] = []
  for (const e of (err.validation ?? []) as AjvError[]) {
    const path = (e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.')
    let error: FieldError
    if (e.keyword === 'additionalProperties') {
      const extra = String(e.params?.['additionalProperty'] ?? '')
      error = { field: path === '' ? extra : `${path}.${extra}`, message: 'is not a known field' }
    } else if (e.keyword === 'required') {
      const missing = String(e.params?.['missingProperty'] ?? '')
      error = { field: path === '' ? missing : `${path}.${missing}`, message: 'is required' }
    } else if (e.keyword === 'type' && path === '' && where === 'body') {
      error = { field: '(body)', message: 'must be a JSON object' }
    } else {
      error = { field: path === '' ? where : path, message: friendly(e) }
    }
    found.push({ error, keyword: e.keyword, type: e.params?.['type'] })
  }
  const unique = onePerField(found)
  const detail = unique.map((e) => `${e.field}: ${e.message}`).join('; ')
  return problemOf('validation_failed', detail, unique)
}

/**
 * One error per field, for a readable answer. A union (`anyOf`: the amount, a number or a string) reports an error
 * for each of its branches. When one branch had the right type and broke a rule of its own (a string over its
 * length), that rule is the answer, not the other branch's "must be a number"; when every branch failed on its
 * type alone, their types together are ("must be a number or a string"). Otherwise the first error stands.
 */
function onePerField(
  found: readonly { error: FieldError; keyword: string | undefined; type: unknown }[],
): FieldError[] {
  const byField = new Map<string, (typeof found)[number][]>()
  for (const f of found) {
    const same = byField.get(f.error.field)
    if (same === undefined) byField.set(f.error.field, [f])
    else same.push(f)
  }
  return [...byField.values()].map((all) => {
    const first = all[0]!.error
    const rule = all.find((f) => f.keyword !== 'type' && f.keyword !== 'anyOf')
    if (all.length === 1 || rule !== undefined) return (rule ?? all[0]!).error
    const types = all.filter((f) => f.keyword === 'type').map((f) => String(f.type))
    return types.length > 1 ? { field: first.field, message: mustBe(types) } : first
  })
}

/** "must be a number", "must be a number or a string": the JSON types a value must have. */
function mustBe(types: readonly string[]): string {
  return `must be ${types.map(withArticle).join(' or ')}`
}

function friendly(e: AjvError): string {
  switch (e.keyword) {
    case 'maxLength':
      return `must be at most ${String(e.params?.['limit'])} characters`
    case 'minLength':
      return `must be at least ${String(e.params?.['limit'])} characters`
    case 'type':
      return mustBe(String(e.params?.['type']).split(','))
    case 'anyOf':
      return 'has the wrong type'
    default:
      return e.message ?? 'is invalid'
  }
}
