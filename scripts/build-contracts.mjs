// Compiles the Solidity contracts (contracts/*.sol, and the tests' token in contracts/test/) with solc from npm into
// contracts/artifacts/<Name>.json: abi, bytecode, the compiler's version and a hash of the sources compiled.
//   node scripts/build-contracts.mjs           writes the artifacts
//   node scripts/build-contracts.mjs --check   fails when an artifact is stale (part of `npm run lint`)
// The check compares hashes and the compiler's version, without compiling: the artifacts are what runs (the deposit
// address is computed from the forwarder's bytecode), so sources changed without a rebuild must not pass.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
const ARTIFACTS = join(ROOT, 'contracts', 'artifacts')

/** Each artifact: the contract, and the source files it is compiled from (the root one first). */
const UNITS = [
  { name: 'Forwarder', sources: ['contracts/Forwarder.sol'] },
  { name: 'ForwarderFactory', sources: ['contracts/ForwarderFactory.sol', 'contracts/Forwarder.sol'] },
  // the tests' ERC-20; its hash covers the OpenZeppelin version it is built from
  { name: 'TestToken', sources: ['contracts/test/TestToken.sol'], openzeppelin: true },
]

function solcVersion() {
  return JSON.parse(readFileSync(require.resolve('solc/package.json'), 'utf8')).version
}

function openzeppelinVersion() {
  return JSON.parse(readFileSync(require.resolve('@openzeppelin/contracts/package.json'), 'utf8')).version
}

function sourceHash(unit) {
  const h = createHash('sha256')
  for (const file of unit.sources) h.update(`${file}\0${readFileSync(join(ROOT, file), 'utf8')}\0`)
  if (unit.openzeppelin) h.update(`@openzeppelin/contracts@${openzeppelinVersion()}`)
  return `sha256:${h.digest('hex')}`
}

function compile() {
  const solc = require('solc')
  const sources = {}
  for (const unit of UNITS) sources[unit.sources[0]] = { content: readFileSync(join(ROOT, unit.sources[0]), 'utf8') }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'paris', // no PUSH0: deployable on chains that lag behind mainnet's upgrades
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const findImports = (path) => {
    const local = join(ROOT, path)
    if (existsSync(local)) return { contents: readFileSync(local, 'utf8') }
    try {
      return { contents: readFileSync(require.resolve(path), 'utf8') }
    } catch {
      return { error: `not found: ${path}` }
    }
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }))
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  return output
}

function build() {
  const output = compile()
  const version = solcVersion()
  for (const unit of UNITS) {
    const compiled = output.contracts[unit.sources[0]]?.[unit.name]
    if (compiled === undefined) throw new Error(`${unit.name} is not in the compiler's output`)
    const artifact = {
      contractName: unit.name,
      compiler: `solc ${version}`,
      sourceHash: sourceHash(unit),
      abi: compiled.abi,
      bytecode: `0x${compiled.evm.bytecode.object}`,
    }
    writeFileSync(join(ARTIFACTS, `${unit.name}.json`), `${JSON.stringify(artifact, null, 2)}\n`)
    console.log(`${relative(ROOT, join(ARTIFACTS, `${unit.name}.json`))}`)
  }
}

/** The problems of the committed artifacts: missing, or built from other sources or by another compiler. */
export function staleArtifacts() {
  const problems = []
  const version = `solc ${solcVersion()}`
  for (const unit of UNITS) {
    const file = join(ARTIFACTS, `${unit.name}.json`)
    const rel = relative(ROOT, file)
    if (!existsSync(file)) {
      problems.push(`${rel}: missing`)
      continue
    }
    const artifact = JSON.parse(readFileSync(file, 'utf8'))
    if (artifact.sourceHash !== sourceHash(unit)) problems.push(`${rel}: built from other sources`)
    if (artifact.compiler !== version) problems.push(`${rel}: built by ${artifact.compiler}, not ${version}`)
  }
  return problems
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const problems = staleArtifacts()
    for (const p of problems) console.error(`${p}: run \`npm run contracts:build\` and commit the result`)
    process.exit(problems.length > 0 ? 1 : 0)
  } else build()
}
