import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, type CliCommands } from '../../src/cli/run-cli.js'
import { loadConfig } from '../../src/config/config.js'
import { currencyExponent } from '../../src/domain/currencies.js'
import { cliCommands } from '../../src/wiring/cli.js'
import { createRuntime, type Runtime } from '../../src/wiring/runtime.js'
import { pino } from 'pino'

/**
 * Hostile argv (issue #6), in-process over the real use cases on in-memory SQLite: whatever the arguments, runCli
 * returns an exit code instead of throwing, and speaks on one stream only — stdout on success, stderr on failure.
 */
describe('CLI: random argv never throws (issue #6)', () => {
  let rt: Runtime
  let commands: CliCommands
  let merchantId: string
  let keyId: string
  beforeAll(async () => {
    const config = loadConfig(
      { DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', PUBLIC_URL: 'http://pay.test' },
      currencyExponent,
    )
    rt = await createRuntime(config, { logger: pino({ level: 'silent' }) })
    commands = cliCommands(rt)
    const m = await commands.createMerchant({ name: 'Fuzz' })
    merchantId = m.merchant.id
    keyId = m.apiKeyId
  })
  afterAll(() => rt.close())

  it('random argv: an exit code, never an exception; errors on stderr only', { timeout: 120_000 }, async () => {
    const word = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('merchant', 'key', 'webhook-secret', 'migrate', 'serve', 'help') },
      { weight: 4, arbitrary: fc.constantFrom('create', 'list', 'disable', 'enable', 'revoke', 'rotate') },
      {
        weight: 4,
        arbitrary: fc.constantFrom(
          '--json',
          '--name',
          '--default-service',
          '--merchant',
          '--help',
          '-h',
          '--',
          '-',
          '--json=true',
          '--json=',
          '--name=',
          '--merchant=',
          '--no-json',
          '-x',
          '--unknown',
          '---',
          '-jh',
          '-hj',
        ),
      },
      { weight: 3, arbitrary: fc.constant(null).map(() => merchantId) },
      { weight: 1, arbitrary: fc.constant(null).map(() => keyId) },
      { weight: 2, arbitrary: fc.uuid().map(String) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'card',
          'sbp',
          'cash',
          '',
          ' ',
          '00000000-0000-0000-0000-000000000000',
          'not-a-uuid',
          '\u0000',
          '\ud800',
          '👍🏽',
          'x'.repeat(10_000),
        ),
      },
      { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
      { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map((s) => `--${s}`) },
      { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map((s) => `-${s}`) },
    )
    const argv = fc.oneof(
      fc.array(word, { maxLength: 7 }),
      // a known command line, then some random words
      fc
        .tuple(
          fc.constantFrom<string[]>(
            ['merchant', 'create', '--name'],
            ['merchant', 'list'],
            ['merchant', 'disable'],
            ['merchant', 'enable'],
            ['key', 'create', '--merchant'],
            ['key', 'list', '--merchant'],
            ['key', 'revoke'],
            ['webhook-secret', 'rotate', '--merchant'],
            ['migrate'],
          ),
          fc.array(word, { maxLength: 4 }),
        )
        .map(([head, tail]) => [...head, ...tail]),
    )
    const codes = new Set<number>()
    await fc.assert(
      fc.asyncProperty(argv, async (args) => {
        const out: string[] = []
        const err: string[] = []
        const code = await runCli(args, commands, { out: (s) => out.push(s), err: (s) => err.push(s) })
        codes.add(code)
        expect([0, 2, 3, 64]).toContain(code)
        if (code === 0) {
          expect(err).toEqual([])
          expect(out.join('')).not.toBe('')
        } else {
          expect(out).toEqual([])
          expect(err.join('')).toMatch(/^invoice-service: /)
        }
      }),
      { numRuns: 1000 },
    )
    // the generator reaches success, usage errors and the use cases' own refusals
    expect(codes).toContain(0)
    expect(codes).toContain(64)
    expect(
      [...codes].some((c) => c === 2 || c === 3),
      [...codes].join(', '),
    ).toBe(true)
  })
})
