import { pino, symbols, type DestinationStream, type LoggerOptions } from 'pino'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/config.js'
import { currencyExponent } from '../../domain/currencies.js'
import { createLogger } from '../../wiring/runtime.js'
import { logAnswered } from './request-id.js'

/** A destination that keeps its lines. */
function lines(): DestinationStream & { readonly written: string[] } {
  const written: string[] = []
  return { written, write: (line: string) => void written.push(line) }
}

/** The line pino itself writes for the same answer (what `logAnswered` wrote before it wrote lines itself). */
function pinoLine(log: pino.Logger, fields: Record<string, unknown>): void {
  log.info(fields, 'request completed')
}

/** How many lines pino's own serializer has made for `log` (and its children) from here on. */
function countSerializations(log: pino.Logger): () => number {
  let count = 0
  const own = log as unknown as Record<symbol, (...args: unknown[]) => string>
  const asJson = own[symbols.asJsonSym]
  own[symbols.asJsonSym] = function (this: unknown, ...args: unknown[]) {
    count += 1
    return asJson?.apply(this, args) ?? ''
  }
  return () => count
}

/** Lines with their time set to 0: two lines written a millisecond apart differ only there. */
const timeless = (written: readonly string[]) => written.map((l) => l.replace(/"time":\d+/, '"time":0'))

const URLS = [
  '/api/invoice/getInfo?merchant_id=0196e4c8-8a4b-7cc0-9d6a-3f6b1a2c4d5e&invoice_id=0196e4c8-8a4b-7cc0-9d6a-3f6b1a2c4d5f',
  '/a?q="quoted"&b=back\\slash',
  '/a?tab=\t&nl=\n&nul=\u0000&del=\u007f',
  '/caf\u00e9/\u00ff?x=\u00c0',
  `/${'long'.repeat(40)}`,
]

describe('the access-log line (plugins/access-log.ts: written as pino writes it, without its serializer)', () => {
  const config = loadConfig({ LOG_LEVEL: 'info' }, currencyExponent)

  it("when the logger is the service's, then each line is the text pino writes, and pino's serializer makes only the first line's probe", () => {
    const direct = lines()
    const viaPino = lines()
    const log = createLogger(config, direct)
    const reference = createLogger(config, viaPino)
    const serialized = countSerializations(log)
    for (const [i, url] of URLS.entries()) {
      const ms = [0, 1.5, 12.34, 1000, 0.01][i] ?? 0
      logAnswered(log, i % 2 === 0 ? 'GET' : 'POST', url, 200 + i, ms, i === 3 ? undefined : `req-${i}`)
      const reqId = i === 3 ? {} : { reqId: `req-${i}` }
      pinoLine(reference, { ...reqId, method: i % 2 === 0 ? 'GET' : 'POST', url, statusCode: 200 + i, ms })
    }
    expect(timeless(direct.written)).toEqual(timeless(viaPino.written))
    // pino serialized one line: the probe of the first
    expect(serialized()).toBe(1)
    for (const l of direct.written) expect(JSON.parse(l)).toMatchObject({ level: 30, msg: 'request completed' })
  })

  it("when the logger is a request's child (the framework's, reqId bound), then the line is pino's with that binding", () => {
    const direct = lines()
    const viaPino = lines()
    const root = createLogger(config, direct)
    const reference = createLogger(config, viaPino)
    const serialized = countSerializations(root)
    for (const id of ['abc-1', 'abc-2']) {
      logAnswered(root.child({ reqId: id }), 'GET', URLS[0] ?? '', 404, 2.5)
      pinoLine(reference.child({ reqId: id }), { method: 'GET', url: URLS[0], statusCode: 404, ms: 2.5 })
    }
    expect(timeless(direct.written)).toEqual(timeless(viaPino.written))
    expect(JSON.parse(direct.written[1] ?? '')).toMatchObject({ reqId: 'abc-2', statusCode: 404 })
    // the root logger's one probe, none for each request's child
    expect(serialized()).toBe(1)
  })

  it('when the URL holds a key, then the line holds it redacted, as before', () => {
    const direct = lines()
    logAnswered(
      createLogger(config, direct),
      'GET',
      '/x?api_key=mk_0aO3N30vTump1TDg8y29kXGbt1okbrUuc4lCtE6VmrM',
      200,
      1,
    )
    expect(JSON.parse(direct.written[0] ?? '')).toMatchObject({ url: '/x?api_key=mk_[redacted]' })
  })

  it('when the level is above info, then no line is written', () => {
    const direct = lines()
    logAnswered(createLogger(loadConfig({ LOG_LEVEL: 'warn' }, currencyExponent), direct), 'GET', '/x', 200, 1)
    logAnswered(pino({ level: 'silent' }, direct), 'GET', '/x', 200, 1)
    expect(direct.written).toEqual([])
  })

  // Loggers configured otherwise: where the line does not come out as pino's (probed), pino writes it, as before;
  // where it does (the third column), it is written directly.
  const others: ReadonlyArray<[string, LoggerOptions, boolean?]> = [
    ['a mixin', { mixin: () => ({ instance: 7 }) }],
    ['a message prefix', { msgPrefix: '[api] ' }],
    ['a nested key', { nestedKey: 'payload' }],
    ['a log formatter', { formatters: { log: (o) => ({ ...o, extra: true }) } }],
    ['level labels', { formatters: { level: (label) => ({ level: label }) } }, true],
    ['a serializer of the URL', { serializers: { url: () => 'hidden' } }],
    ['redaction of the URL', { redact: ['url'] }],
    [
      'a logMethod hook',
      {
        hooks: {
          logMethod(args, method) {
            method.apply(this, args)
          },
        },
      },
    ],
    ['a custom time', { timestamp: pino.stdTimeFunctions.isoTime }, true],
    ['no pid or hostname', { base: null }, true],
    ['a CRLF line end', { crlf: true }, true],
  ]
  it.each(others)('when the logger has %s, then the line is the one pino writes', (_name, options, direct = false) => {
    const written = lines()
    const viaPino = lines()
    const log = pino({ level: 'info', ...options }, written)
    const serialized = countSerializations(log)
    logAnswered(log, 'GET', '/x?y="z"', 200, 1.5, 'rid')
    logAnswered(log, 'GET', '/x', 201, 2)
    const reference = pino({ level: 'info', ...options }, viaPino)
    pinoLine(reference, { reqId: 'rid', method: 'GET', url: '/x?y="z"', statusCode: 200, ms: 1.5 })
    pinoLine(reference, { method: 'GET', url: '/x', statusCode: 201, ms: 2 })
    const time = /"time":(\d+|"[^"]+")/
    expect(written.written.map((l) => l.replace(time, '"time":0'))).toEqual(
      viaPino.written.map((l) => l.replace(time, '"time":0')),
    )
    // written directly: pino serialized the probe only; otherwise it serialized each line (and perhaps the probe)
    expect(direct ? serialized() === 1 : serialized() >= 2).toBe(true)
  })

  it('when a child has a serializer of its own, then its lines are pino’s, while its parent’s stay direct', () => {
    const written = lines()
    const root = createLogger(config, written)
    logAnswered(root, 'GET', '/a', 200, 1)
    const child = root.child({ reqId: 'c' }, { serializers: { url: () => 'child-hidden' } })
    logAnswered(child, 'GET', '/b', 200, 1)
    expect(JSON.parse(written.written[1] ?? '')).toMatchObject({ url: 'child-hidden', reqId: 'c' })
  })

  it('when the destination asks pino for each line’s metadata, then pino writes the line and sets it', () => {
    const written = lines()
    const destination = Object.assign(written, { [symbols.needsMetadataGsym]: true, lastLevel: 0 })
    logAnswered(pino({ level: 'info' }, destination), 'GET', '/x', 200, 1)
    expect(destination.lastLevel).toBe(30)
    expect(JSON.parse(written.written[0] ?? '')).toMatchObject({ url: '/x' })
  })
})
