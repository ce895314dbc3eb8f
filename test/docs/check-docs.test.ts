/**
 * The docs check of `npm run lint` (scripts/check-docs.mjs), run on small trees of its own: it must pass a tree
 * whose links, cited anchors and configuration table agree, and name each thing that does not, with file:line.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const CHECKER = fileURLToPath(new URL('../../scripts/check-docs.mjs', import.meta.url))

// Paths into the temporary tree, built at run time: written out here they would read as citations of this
// repository's own docs, which the checker verifies when it runs over this file.
const doc = (page: string, anchor?: string): string => `docs/${page}.md${anchor === undefined ? '' : `#${anchor}`}`

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

/** A tree that passes: README → docs, a cited anchor, a config module and its table in agreement. */
function goodTree(): Record<string, string> {
  return {
    'README.md': `# Service\n\nSee [the API](${doc('api', 'errors')}) and [settings](${doc('configuration', 'variables')}).\n`,
    'docs/api.md': [
      '# API',
      '',
      '## Errors',
      '',
      '## Create an invoice — `POST /api/v1/invoices`',
      '',
      '## Errors',
      '',
      '```md',
      '## Not a heading inside a fence',
      '[not a link](missing.md)',
      '```',
      '',
      'Back to [the top](#api), [the second errors](#errors-1), [create](#create-an-invoice--post-apiv1invoices).',
      '',
    ].join('\n'),
    'docs/configuration.md': [
      '# Configuration',
      '',
      '## Variables',
      '',
      '| variable | default | meaning |',
      '|---|---|---|',
      '| `PORT` / `HOST` | `8080` / `127.0.0.1` | listen address |',
      '| `LOG_LEVEL` | `info` | pino level |',
      '',
      '## Variables of the development tools',
      '',
      '| variable | meaning |',
      '|---|---|',
      '| `TEST_ONLY` | read by the tests, not by the service |',
      '',
    ].join('\n'),
    'src/config.ts': [
      'export function loadConfig(env: Record<string, string | undefined>) {',
      "  const port = int('PORT', 8080)",
      "  const host = raw('HOST') ?? '127.0.0.1'",
      "  const logLevel = env['LOG_LEVEL'] ?? 'info'",
      '  return { port, host, logLevel }',
      '}',
      '',
    ].join('\n'),
    'src/app/create.ts': `// the rule: ${doc('api', 'errors')}\n`,
  }
}

function check(files: Record<string, string>): { code: number; output: string } {
  const root = mkdtempSync(join(tmpdir(), 'check-docs-'))
  roots.push(root)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  try {
    const output = execFileSync(process.execPath, [CHECKER, root], { encoding: 'utf8', stdio: 'pipe' })
    return { code: 0, output }
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string }
    return { code: e.status, output: e.stdout + e.stderr }
  }
}

describe('scripts/check-docs.mjs', () => {
  it('when links, cited anchors and the configuration table agree, then it passes', () => {
    const { code, output } = check(goodTree())
    expect(output).not.toMatch(/: (broken|cites|.* is read|.* is in the table)/)
    expect(code).toBe(0)
  })

  it('when a link points at a file that does not exist, then it names the file and line', () => {
    const files = goodTree()
    files['README.md'] += `\nMore in [the guide](${doc('guide')}).\n`
    const { code, output } = check(files)
    expect(code).toBe(1)
    expect(output).toContain(`README.md:5: broken link ${doc('guide')}`)
  })

  it('when a link names an anchor the page does not have, then it is reported', () => {
    const files = goodTree()
    files['docs/api.md'] += '\nSee [limits](#limits) and [webhooks](webhooks.md).\n'
    const { code, output } = check(files)
    expect(code).toBe(1)
    expect(output).toContain('docs/api.md:16: broken link #limits: no heading #limits in docs/api.md')
    expect(output).toContain('docs/api.md:16: broken link webhooks.md: docs/webhooks.md does not exist')
  })

  it('when code cites a docs anchor that does not exist, then it is reported with the citing line', () => {
    const files = goodTree()
    files['src/app/create.ts'] += `// and ${doc('api', 'idempotency')}\n// and ${doc('gone')}\n`
    const { code, output } = check(files)
    expect(code).toBe(1)
    expect(output).toContain(`src/app/create.ts:2: cites ${doc('api', 'idempotency')}, but`)
    expect(output).toContain(`src/app/create.ts:3: cites ${doc('gone')}, which does not exist`)
  })

  it('when the config module reads a variable the table does not list, then it is reported where it is read', () => {
    const files = goodTree()
    files['src/config.ts'] = files['src/config.ts']!.replace(
      '  return',
      "  const ttl = int('KEY_CACHE_TTL', 2)\n  return",
    )
    const { code, output } = check(files)
    expect(code).toBe(1)
    expect(output).toContain('src/config.ts:5: KEY_CACHE_TTL is read but not in the table')
  })

  it('when the table lists a variable the config module does not read, then it is reported', () => {
    const files = goodTree()
    files['docs/configuration.md'] = files['docs/configuration.md']!.replace(
      '| `LOG_LEVEL`',
      '| `OLD_SETTING` | `1` | gone |\n| `LOG_LEVEL`',
    )
    const { code, output } = check(files)
    expect(code).toBe(1)
    expect(output).toContain(
      'docs/configuration.md:8: OLD_SETTING is in the table but the config module does not read it',
    )
  })

  it('when the configuration is a folder of modules, then their reads count too', () => {
    const files = goodTree()
    files['src/config/redis.ts'] = "export const redisUrl = (raw: (n: string) => string) => raw('REDIS_URL')\n"
    const { code, output } = check(files)
    expect(code).toBe(1)
    expect(output).toContain('src/config/redis.ts:1: REDIS_URL is read but not in the table')
  })
})

describe('the error table of the API page', () => {
  it('when the table and the domain’s list of codes differ, then each missing, extra or misstated code is named', () => {
    const files = goodTree()
    files['src/domain/errors.ts'] = [
      'export const ERROR_STATUS = {',
      '  invalid_json: 400,',
      '  not_found: 404,',
      '  rate_limited: 429,',
      '} as const',
      '',
    ].join('\n')
    files[doc('api')] += [
      '',
      '## Errors',
      '',
      '| status | code | when |',
      '|---|---|---|',
      '| 400 | `invalid_json` | not JSON |',
      '| 400 | `not_found` | no such thing |',
      '| 418 | `teapot` | never |',
      '',
    ].join('\n')
    const { code, output } = check(files)
    expect(code).toBe(1)
    expect(output).toContain(`${doc('api')}:1: error code rate_limited (429) is not in the table under "## Errors"`)
    expect(output).toMatch(/docs\/api\.md:\d+: error code not_found is documented as 400, the code answers 404/)
    expect(output).toMatch(/docs\/api\.md:\d+: error code teapot is documented but not in src\/domain\/errors\.ts/)
    expect(output).not.toContain('invalid_json')
  })
})

describe('what must be within two clicks of the README', () => {
  it('when a heading is linked from a page the README links to, then it is reached; one more hop is not', async () => {
    const { checkDocs } = await import('../../scripts/check-docs.mjs')
    const root = mkdtempSync(join(tmpdir(), 'check-docs-reach-'))
    roots.push(root)
    const files: Record<string, string> = {
      'README.md': `# Service\n\n## Set up\n\nRead [the guide](${doc('guide')}).\n`,
      [doc('guide')]: `# Guide\n\nSee [errors](${'api.md#errors'}).\n`,
      [doc('api')]: `# API\n\n## Errors\n\nSee [variables](${'configuration.md#variables'}).\n`,
      [doc('configuration')]: '# Configuration\n\n## Variables\n',
    }
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, name)), { recursive: true })
      writeFileSync(join(root, name), text)
    }
    const problems = checkDocs(root, [
      ['set-up', 'README.md#set-up'],
      ['every error code', `${doc('api', 'errors')}`],
      ['every variable', `${doc('configuration', 'variables')}`],
    ])
    expect(problems).toEqual([
      `README.md:1: every variable (${doc('configuration', 'variables')}) is not within two clicks of the README`,
    ])
  })
})
