// `npm run lint`: every installed package accepts every Node.js line the service supports (docs/operations.md#nodejs-versions),
// so `npm install` on a supported Node warns EBADENGINE for nothing. The lines: the minimum, the 22 line and the
// 24 line; a package whose `engines.node` refuses one of them is named.
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import semver from 'semver'
import { MINIMUM } from '../bin/supported-node.js'

const VERSIONS = [`${MINIMUM.join('.')}.0`, '22.99.0', '24.0.0', '24.99.0']

const problems = []
let checked = 0
const visit = (dir) => {
  if (!existsSync(dir)) return
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue
    if (name.startsWith('@')) {
      visit(join(dir, name))
      continue
    }
    const pkgDir = join(dir, name)
    const file = join(pkgDir, 'package.json')
    if (!existsSync(file)) continue
    const pkg = JSON.parse(readFileSync(file, 'utf8'))
    checked++
    const range = pkg.engines?.node
    if (typeof range === 'string') {
      const refused = VERSIONS.filter((v) => !semver.satisfies(v, range, { includePrerelease: true }))
      if (refused.length > 0)
        problems.push(`${pkg.name}@${pkg.version} (engines.node ${range}) refuses Node ${refused.join(', ')}`)
    }
    visit(join(pkgDir, 'node_modules'))
  }
}
visit('node_modules')
for (const ws of ['packages', 'examples']) for (const name of readdirSync(ws)) visit(join(ws, name, 'node_modules'))
if (problems.length > 0) {
  console.error(`packages that would warn EBADENGINE on a supported Node:\n${problems.join('\n')}`)
  process.exit(1)
}
console.log(`engines: ${checked} installed packages accept Node ${VERSIONS.join(', ')}`)
