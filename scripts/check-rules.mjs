// Rules a dependency graph cannot see (docs/architecture.md#dependency-rules, docs/architecture.md#what-to-avoid): run by `npm run lint`.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, sep } from 'node:path'

const files = []
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) walk(p)
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) files.push(p)
  }
}
walk('src')

const problems = []
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split('\n')
  lines.forEach((line, i) => {
    const at = `${file}:${i + 1}`
    if (/process\.env/.test(line) && !file.startsWith(join('src', 'config') + sep))
      problems.push(`${at}: process.env is read only in src/config/`)
    if (file.startsWith(join('src', 'domain'))) {
      if (/Date\.now\(|Math\.random\(|new Date\(\)/.test(line))
        problems.push(`${at}: domain/ takes time and randomness as inputs`)
    }
    if (/@ts-ignore|@ts-nocheck/.test(line)) problems.push(`${at}: no @ts-ignore`)
  })
}
if (problems.length > 0) {
  console.error(problems.join('\n'))
  process.exit(1)
}
console.log(`rules: ${files.length} files checked, no problems`)
