import type { FastifyBaseLogger } from 'fastify'
import { symbols } from 'pino'

/**
 * The access-log line of an answered request (plugins/request-id.ts's `logAnswered`: its URL already redacted, its
 * time already rounded), written as pino writes it but without
 * pino's general serializer: every request writes one, and pino's generic path (the line's object walked key by key,
 * each value's type looked up, each string escaped by a loop) costs ≈ 0.8 µs of a getInfo's ≈ 23 µs, where the line
 * itself, whose fields are always these five, is put together in ≈ 0.25 µs (bench/history/changes.json).
 *
 * The line is the same text pino would write: the same level and time fields, the logger's bindings (pid,
 * hostname, a request's reqId), the fields in the same order, the same message, to the logger's own destination.
 * That holds for a logger configured as the service configures it; for any other (a mixin, hooks, a message prefix,
 * formatters, serializers or redaction that touch these fields, a destination that asks for metadata, or a logger
 * that is not pino), it is checked once per logger by asking pino itself to serialize a probe line and comparing,
 * and when they differ the line goes through `log.info` as before. access-log.test.ts, beside this file, compares
 * the lines of both ways.
 */
export function writeAccessLine(
  log: FastifyBaseLogger,
  method: string,
  url: string,
  statusCode: number,
  ms: number,
  reqId?: string,
): void {
  const pinoLog = log as unknown as PinoInternals
  if (writesDirectly(pinoLog)) {
    if (!pinoLog.isLevelEnabled('info')) return
    const fields = fieldsText(method, url, statusCode, ms, reqId)
    pinoLog[symbols.streamSym].write(line(pinoLog, pinoLog[symbols.timeSym](), fields))
  } else {
    log.info(reqId === undefined ? { method, url, statusCode, ms } : { reqId, method, url, statusCode, ms }, MESSAGE)
  }
}

const MESSAGE = 'request completed'
const MESSAGE_FIELD = `,"msg":${JSON.stringify(MESSAGE)}`
/** pino's level number of `info` (its default levels; a logger with other levels fails the probe). */
const INFO = 30

/** What of a pino logger this reads: the symbols pino exports for integrations (pino.symbols). */
interface PinoInternals {
  readonly [symbols.lsCacheSym]?: Record<number, string>
  readonly [symbols.timeSym]: () => string
  readonly [symbols.chindingsSym]: string
  readonly [symbols.endSym]: string
  readonly [symbols.streamSym]: { write(line: string): unknown; readonly [symbols.needsMetadataGsym]?: boolean }
  readonly [symbols.asJsonSym]?: (obj: object, msg: string, level: number, time: string) => string
  readonly [symbols.mixinSym]?: unknown
  readonly [symbols.hooksSym]?: { readonly logMethod?: unknown; readonly streamWrite?: unknown }
  readonly [symbols.nestedKeySym]?: string | null
  readonly [symbols.serializersSym]?: object
  readonly [symbols.stringifiersSym]?: object
  readonly [symbols.formattersSym]?: { readonly level?: unknown; readonly log?: unknown }
  readonly msgPrefix?: string
  isLevelEnabled(level: string): boolean
}

/** The line's own fields as JSON, in the order pino writes the object `logAnswered` gave it. */
function fieldsText(method: string, url: string, statusCode: number, ms: number, reqId: string | undefined): string {
  return (
    (reqId === undefined ? '' : `,"reqId":${JSON.stringify(reqId)}`) +
    `,"method":${JSON.stringify(method)},"url":${JSON.stringify(url)},"statusCode":${statusCode},"ms":${ms}`
  )
}

function line(log: PinoInternals, time: string, fields: string): string {
  return `${log[symbols.lsCacheSym]?.[INFO] ?? ''}${time}${log[symbols.chindingsSym]}${fields}${MESSAGE_FIELD}${log[symbols.endSym]}`
}

/** Each logger's answer, and each one's parent's (a request's logger is a child made for it: the parent's is kept). */
const checked = new WeakMap<object, boolean>()

/** Whether `log` writes this line exactly as pino would (see above); asked once per logger. */
function writesDirectly(log: PinoInternals): boolean {
  // A request's child logger (Object.create(parent) in pino) with nothing of its own but its bindings: its parent's
  // answer, without a probe (or a look-up of its own) for every request.
  const parent = Object.getPrototypeOf(log) as PinoInternals | null
  if (parent !== null && verdict(parent) && sameConfig(log, parent)) return true
  return verdict(log)
}

function verdict(log: PinoInternals): boolean {
  let answer = checked.get(log)
  if (answer === undefined) {
    answer = probe(log)
    checked.set(log, answer)
  }
  return answer
}

/** A child that inherits every part of its parent's configuration that the line depends on. */
function sameConfig(log: PinoInternals, parent: PinoInternals): boolean {
  return (
    log[symbols.serializersSym] === parent[symbols.serializersSym] &&
    log[symbols.stringifiersSym] === parent[symbols.stringifiersSym] &&
    // (a child gets formatters of its own, with its parent's level and log formatters: those are compared)
    log[symbols.formattersSym]?.level === parent[symbols.formattersSym]?.level &&
    log[symbols.formattersSym]?.log === parent[symbols.formattersSym]?.log &&
    log[symbols.mixinSym] === parent[symbols.mixinSym] &&
    log[symbols.hooksSym] === parent[symbols.hooksSym] &&
    log[symbols.streamSym] === parent[symbols.streamSym] &&
    log[symbols.lsCacheSym] === parent[symbols.lsCacheSym] &&
    log.msgPrefix === parent.msgPrefix
  )
}

/** pino's own serialization of a probe line against this one's, and nothing that acts outside it. */
function probe(log: PinoInternals): boolean {
  const asJson = log[symbols.asJsonSym]
  const stream = log[symbols.streamSym]
  const hooks = log[symbols.hooksSym]
  if (
    typeof asJson !== 'function' ||
    typeof log.isLevelEnabled !== 'function' ||
    typeof log[symbols.timeSym] !== 'function' ||
    typeof log[symbols.chindingsSym] !== 'string' ||
    typeof stream?.write !== 'function' ||
    stream[symbols.needsMetadataGsym] === true ||
    log[symbols.mixinSym] ||
    hooks?.logMethod !== undefined ||
    hooks?.streamWrite !== undefined ||
    log[symbols.nestedKeySym] ||
    log.msgPrefix !== undefined
  ) {
    return false
  }
  const time = ',"time":0'
  const probeLine = { reqId: 'r-1', method: 'GET', url: '/p?a="b"&c=\\d\u00e9', statusCode: 404, ms: 1.25 }
  const { reqId, method, url, statusCode, ms } = probeLine
  try {
    // the line as writeAccessLine makes it, from the same fields, against pino's
    return (
      asJson.call(log, probeLine, MESSAGE, INFO, time) ===
      line(log, time, fieldsText(method, url, statusCode, ms, reqId))
    )
  } catch {
    return false
  }
}
