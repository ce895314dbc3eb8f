import { execFileSync } from 'node:child_process'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '..')
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

/**
 * Builds dist/ once before the suite: the CLI and serve tests run the real compiled binary. The client package's
 * dist/ too: the demo shop, which the journey test runs as `npm run demo` does, imports the built client.
 */
export default function setup(): void {
  for (const project of ['tsconfig.build.json', join('packages', 'client', 'tsconfig.json')]) {
    execFileSync(process.execPath, [TSC, '-p', project], { cwd: ROOT, stdio: 'inherit' })
  }
  // tsc does not emit a hand-placed .d.ts: the generated schema goes along as the package's build copies it, or a
  // client regenerated since the last `npm ci` leaves the built one typed by the old document
  const client = join(ROOT, 'packages', 'client')
  copyFileSync(join(client, 'src', 'schema.d.ts'), join(client, 'dist', 'schema.d.ts'))
}
