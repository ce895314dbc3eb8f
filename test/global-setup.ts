import { execFileSync } from 'node:child_process'
import { join } from 'node:path'

/** Builds dist/ once before the suite: the CLI and serve tests run the real compiled binary. */
export default function setup(): void {
  execFileSync(process.execPath, [join(import.meta.dirname, '..', 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: join(import.meta.dirname, '..'),
    stdio: 'inherit',
  })
}
