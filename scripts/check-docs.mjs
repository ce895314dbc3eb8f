// The docs check of `npm run lint`: links and anchors resolve, cited anchors exist, and the configuration table
// matches what the config module reads. `node scripts/check-docs.mjs [root]`; prints `file:line: problem`.
//
// 1. Every relative link and `#anchor` in README.md, docs/*.md and the workspaces' READMEs resolves: the file (or
//    folder) exists, and an anchor into a Markdown file names one of its headings (GitHub's slugs) or an explicit
//    `<a id>`/`<a name>`.
// 2. Every `docs/<page>.md#<anchor>` cited in src/, test/, bench/, scripts/, examples/, packages/ or bin/
//    (comments, strings) names an existing page and anchor.
// 3. The table under `## Variables` in docs/configuration.md names exactly the environment variables the config
//    module (src/config.ts, or the files of src/config/) reads.
// 4. The table under `## Errors` in docs/api.md names exactly the codes of ERROR_STATUS (src/domain/errors.ts),
//    each with the status the code answers.
// 5. In this repository: the destinations of WITHIN_TWO_CLICKS are within two clicks of README.md.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** GitHub's heading slug: lowercase, punctuation dropped (except - and _), each space a hyphen. */
export function slug(text) {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** A heading's text as GitHub renders it, as far as its slug can tell: links and images reduced to their text. */
function headingText(raw) {
  return raw
    .replace(/\s+#+\s*$/, '') // closing hashes
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .trim()
}

/** Lines of a Markdown file with fenced code blocks blanked (their text is neither headings nor links). */
function proseLines(text) {
  let fence
  return text.split('\n').map((line) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line)
    if (fence === undefined && m) {
      fence = m[1]
      return ''
    }
    if (fence !== undefined) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = undefined
      return ''
    }
    return line
  })
}

/** The anchors a Markdown file defines: heading slugs (duplicates get -1, -2, …) and explicit ids. */
function anchorsOf(text) {
  const anchors = new Set()
  const seen = new Map()
  const lines = proseLines(text)
  lines.forEach((line, i) => {
    let heading
    const atx = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line)
    if (atx) heading = atx[1]
    else if (
      /^\s{0,3}(=+|-+)\s*$/.test(line) &&
      i > 0 &&
      lines[i - 1].trim() !== '' &&
      !/^\s*[-*+|]/.test(lines[i - 1])
    )
      heading = lines[i - 1] // setext
    if (heading !== undefined) {
      const base = slug(headingText(heading))
      const n = seen.get(base) ?? 0
      seen.set(base, n + 1)
      anchors.add(n === 0 ? base : `${base}-${n}`)
    }
    for (const m of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(m[1])
  })
  return anchors
}

/** Relative link targets of one line, with inline code spans removed first. */
function linkTargets(line) {
  const text = line.replace(/`[^`]*`/g, '')
  const out = []
  for (const m of text.matchAll(/!?\[(?:[^\]]|\][^(])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1])
  const ref = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)/.exec(text)
  if (ref) out.push(ref[1])
  return out.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('//'))
}

function walk(dir, accept, out = []) {
  if (!existsSync(dir)) return out
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue
    const p = join(dir, name)
    if (statSync(p).isDirectory()) walk(p, accept, out)
    else if (accept(p)) out.push(p)
  }
  return out
}

/**
 * What a reader must find within two clicks from the README: each a page and heading, reached
 * by a link in the README or in a page the README links to.
 */
export const WITHIN_TWO_CLICKS = [
  ['set-up', 'README.md#set-up'],
  ['create an invoice', 'docs/api.md#create-an-invoice'],
  ['verify a webhook', 'docs/webhooks.md#verify-a-webhook'],
  ['run on PostgreSQL', 'docs/scaling.md#database'],
  ['every error code', 'docs/api.md#errors'],
  ['every variable', 'docs/configuration.md#variables'],
  ['the path of a request through the code', 'docs/architecture.md#the-path-of-a-create-request'],
]

/**
 * Runs every check under `root`; returns the problems as `file:line: what`. `required` lists [what, 'page#anchor']
 * that must be within two clicks of README.md (none unless given).
 */
export function checkDocs(root, required = []) {
  const problems = []
  const rel = (p) => relative(root, p) || '.'
  const anchorCache = new Map()
  const anchorsOfFile = (file) => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(readFileSync(file, 'utf8')))
    return anchorCache.get(file)
  }

  // 1. links and anchors of the docs
  const docsDir = join(root, 'docs')
  // README.md, docs/*.md, and the READMEs of the workspaces and integrations (they link into docs/ too)
  const readmesOf = (dir) =>
    existsSync(join(root, dir)) ? readdirSync(join(root, dir)).map((n) => join(root, dir, n, 'README.md')) : []
  const pages = [
    join(root, 'README.md'),
    ...(existsSync(docsDir) ? readdirSync(docsDir).filter((n) => n.endsWith('.md')) : []).map((n) => join(docsDir, n)),
    ...readmesOf('packages'),
    ...readmesOf('examples'),
    ...readmesOf('integrations'),
  ].filter((p) => existsSync(p))
  for (const page of pages) {
    proseLines(readFileSync(page, 'utf8')).forEach((line, i) => {
      for (const target of linkTargets(line)) {
        const at = `${rel(page)}:${i + 1}`
        const hash = target.indexOf('#')
        const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash))
        const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
        const file = pathPart === '' ? page : resolve(dirname(page), pathPart)
        if (!existsSync(file)) {
          problems.push(`${at}: broken link ${target}: ${rel(file)} does not exist`)
          continue
        }
        if (anchor === undefined || anchor === '') continue
        if (!file.endsWith('.md') || statSync(file).isDirectory()) continue // GitHub's line anchors and the like
        if (!anchorsOfFile(file).has(anchor))
          problems.push(`${at}: broken link ${target}: no heading #${anchor} in ${rel(file)}`)
      }
    })
  }

  // 2. doc anchors cited from the code
  const code = ['src', 'test', 'bench', 'scripts', 'examples', 'packages', 'bin'].flatMap((d) =>
    walk(join(root, d), (p) => /\.(ts|mts|cts|js|mjs|cjs|json|md|sh|php)$/.test(p)),
  )
  for (const file of code) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(/(?<![\w/.-])docs\/([\w.-]+\.md)(?:#([\w-]+))?/g)) {
          const at = `${rel(file)}:${i + 1}`
          const page = join(docsDir, m[1])
          if (!existsSync(page)) problems.push(`${at}: cites docs/${m[1]}, which does not exist`)
          else if (m[2] !== undefined && !anchorsOfFile(page).has(m[2]))
            problems.push(`${at}: cites docs/${m[1]}#${m[2]}, but docs/${m[1]} has no such heading`)
        }
      })
  }

  // 3. the configuration table against the config module
  const configFiles = [
    join(root, 'src', 'config.ts'),
    ...walk(join(root, 'src', 'config'), (p) => p.endsWith('.ts') && !p.endsWith('.test.ts')),
  ].filter((p) => existsSync(p))
  const read = new Map() // variable → where it is read
  for (const file of configFiles) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        // a name handed to a reader or to an error (`raw('PORT')`, `int('WEBHOOK_TIMEOUT', …)`, `bad('HOST', …)`),
        // or read straight off the environment (`env['X']`, `env.X`)
        const found = [
          ...line.matchAll(/\b\w+\(\s*['"`]([A-Z][A-Z0-9_]*)['"`]/g),
          ...line.matchAll(/\benv\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\]/g),
          ...line.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g),
        ]
        for (const m of found) if (!read.has(m[1])) read.set(m[1], `${rel(file)}:${i + 1}`)
      })
  }
  const configPage = join(docsDir, 'configuration.md')
  if (configFiles.length > 0) {
    if (!existsSync(configPage)) problems.push(`${rel(configPage)}:1: missing: the table of configuration variables`)
    else {
      const documented = new Map() // variable → line
      let inSection = false
      readFileSync(configPage, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/^##\s/.test(line)) inSection = /^##\s+Variables\s*$/.test(line)
          if (!inSection || !/^\|/.test(line)) return
          const first = line.split('|')[1] ?? ''
          for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) if (!documented.has(m[1])) documented.set(m[1], i + 1)
        })
      if (documented.size === 0) problems.push(`${rel(configPage)}:1: no table under "## Variables"`)
      for (const [name, at] of read)
        if (!documented.has(name))
          problems.push(`${at}: ${name} is read but not in the table of ${rel(configPage)}#variables`)
      for (const [name, line] of documented)
        if (!read.has(name))
          problems.push(`${rel(configPage)}:${line}: ${name} is in the table but the config module does not read it`)
    }
  }
  // 4. the error codes of docs/api.md#errors against the closed list in the domain, both ways, with their status
  const errorsFile = join(root, 'src', 'domain', 'errors.ts')
  const apiPage = join(docsDir, 'api.md')
  if (existsSync(errorsFile) && existsSync(apiPage)) {
    const list = /ERROR_STATUS\s*=\s*\{([^}]*)\}/.exec(readFileSync(errorsFile, 'utf8'))
    const inCode = new Map([...(list?.[1] ?? '').matchAll(/(\w+):\s*(\d{3})/g)].map((m) => [m[1], m[2]]))
    const inDocs = new Map() // code → [status, line]
    let inSection = false
    readFileSync(apiPage, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/^##\s/.test(line)) inSection = /^##\s+Errors\s*$/.test(line)
        const row = inSection ? /^\|\s*(\d{3})\s*\|\s*`(\w+)`\s*\|/.exec(line) : null
        if (row) inDocs.set(row[2], [row[1], i + 1])
      })
    const at = `${rel(apiPage)}`
    if (inCode.size === 0) problems.push(`${rel(errorsFile)}:1: no ERROR_STATUS list found`)
    for (const [code, status] of inCode) {
      const documented = inDocs.get(code)
      if (documented === undefined)
        problems.push(`${at}:1: error code ${code} (${status}) is not in the table under "## Errors"`)
      else if (documented[0] !== status)
        problems.push(
          `${at}:${documented[1]}: error code ${code} is documented as ${documented[0]}, the code answers ${status}`,
        )
    }
    for (const [code, [, line]] of inDocs)
      if (!inCode.has(code))
        problems.push(`${at}:${line}: error code ${code} is documented but not in ${rel(errorsFile)}`)
  }

  // 5. what must be within two clicks of the README: the README's own headings and links are the first click, the
  // links of the pages they lead to the second
  const readme = join(root, 'README.md')
  if (required.length > 0 && existsSync(readme)) {
    const linksOf = (page) =>
      proseLines(readFileSync(page, 'utf8')).flatMap((line) =>
        linkTargets(line).map((target) => {
          const hash = target.indexOf('#')
          const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash))
          const file = pathPart === '' ? page : resolve(dirname(page), pathPart)
          return { file, anchor: hash === -1 ? '' : decodeURIComponent(target.slice(hash + 1)) }
        }),
      )
    const key = (file, anchor) => `${rel(file)}#${anchor}`
    const reached = new Set([...anchorsOfFile(readme)].map((a) => key(readme, a)))
    const first = linksOf(readme)
    for (const l of first) reached.add(key(l.file, l.anchor))
    for (const page of new Set(first.map((l) => l.file)))
      if (page.endsWith('.md') && existsSync(page) && statSync(page).isFile())
        for (const l of linksOf(page)) reached.add(key(l.file, l.anchor))
    for (const [what, target] of required)
      if (!reached.has(target)) problems.push(`README.md:1: ${what} (${target}) is not within two clicks of the README`)
  }
  return problems
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? '.')
  // the two-click list names this repository's pages: it applies when the tree checked is this one
  const self = resolve(dirname(fileURLToPath(import.meta.url)), '..')
  const problems = checkDocs(root, root === self ? WITHIN_TWO_CLICKS : [])
  if (problems.length > 0) {
    console.error(problems.join('\n'))
    console.error(`docs: ${problems.length} problem${problems.length === 1 ? '' : 's'}`)
    process.exit(1)
  }
  console.log(
    'docs: links, cited anchors, the configuration and error tables and what is two clicks from the README check out',
  )
}
