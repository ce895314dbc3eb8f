/**
 * The compiled contracts (contracts/artifacts/, built by `npm run contracts:build` and checked fresh by the lint):
 * read from the checkout, the same path from src/ and from dist/.
 */
import { readFileSync } from 'node:fs'
import type { Abi, Hex } from 'viem'

export interface ContractArtifact {
  readonly abi: Abi
  readonly bytecode: Hex
}

function load(name: string): ContractArtifact {
  const url = new URL(`../../../../contracts/artifacts/${name}.json`, import.meta.url)
  const parsed = JSON.parse(readFileSync(url, 'utf8')) as ContractArtifact
  return { abi: parsed.abi, bytecode: parsed.bytecode }
}

let cache: { forwarder: ContractArtifact; factory: ContractArtifact } | undefined

export function contracts(): { forwarder: ContractArtifact; factory: ContractArtifact } {
  cache ??= { forwarder: load('Forwarder'), factory: load('ForwarderFactory') }
  return cache
}
