/**
 * A real local chain for the EVM tests: anvil from node_modules (@foundry-rs/anvil's binary package), started on a
 * free loopback port and stopped by the test, with the tests' ERC-20 (contracts/artifacts/TestToken.json, 6
 * decimals) deployed and funded accounts. Blocks are mined only when a transaction arrives or a test mines them.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  type Abi,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type TestClient,
} from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { freePort } from './free-port.js'

const ROOT = join(import.meta.dirname, '..', '..')
const require = createRequire(import.meta.url)

/** anvil's well-known development keys (its default mnemonic): test money only. */
const KEYS = {
  deployer: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  buyer: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  relayer: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  stranger: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
} as const satisfies Record<string, Hex>

export interface Artifact {
  readonly abi: Abi
  readonly bytecode: Hex
}

export function artifact(name: string): Artifact {
  return JSON.parse(readFileSync(join(ROOT, 'contracts', 'artifacts', `${name}.json`), 'utf8')) as Artifact
}

export const TOKEN_ABI = artifact('TestToken').abi

export interface Anvil {
  readonly url: string
  readonly port: number
  readonly chain: Chain
  readonly client: PublicClient
  readonly test: TestClient
  readonly accounts: Readonly<Record<keyof typeof KEYS, PrivateKeyAccount>>
  readonly keys: typeof KEYS
  /** The tests' token, deployed by `deployer`. */
  readonly token: Address
  /** Mints `units` of the token to `to`. */
  mint(to: Address, units: bigint): Promise<void>
  /** Sends `units` of the token from the buyer (or `from`) to `to`; resolves to the transaction's hash once mined. */
  transfer(to: Address, units: bigint, from?: PrivateKeyAccount): Promise<Hex>
  balanceOf(who: Address): Promise<bigint>
  /** Mines `blocks` empty blocks. */
  mine(blocks: number): Promise<void>
  blockNumber(): Promise<bigint>
  /** Stops the chain (its state is lost). */
  stop(): Promise<void>
  /** Stops answering RPC (the process is paused), then answers again: an RPC endpoint down and back. */
  pause(): void
  resume(): void
}

function anvilBinary(): string {
  const pkg = `@foundry-rs/anvil-${process.platform === 'win32' ? 'win32' : process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`
  return join(
    dirname(require.resolve(`${pkg}/package.json`)),
    'bin',
    process.platform === 'win32' ? 'anvil.exe' : 'anvil',
  )
}

async function waitListening(child: ChildProcess): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`anvil did not start: ${out}`)), 20_000)
    const onData = (chunk: Buffer): void => {
      out += chunk.toString()
      if (out.includes('Listening on')) {
        clearTimeout(timer)
        child.stdout?.off('data', onData)
        child.stdout?.resume()
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`anvil exited (${code}): ${out}`))
    })
  })
}

/** Starts anvil (chain id 31337 unless given) and deploys the tests' token. */
export async function startAnvil(opts: { chainId?: number } = {}): Promise<Anvil> {
  const port = await freePort()
  const chainId = opts.chainId ?? 31337
  const child = spawn(
    anvilBinary(),
    ['--port', String(port), '--host', '127.0.0.1', '--chain-id', String(chainId), '--accounts', '5'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  await waitListening(child)
  const url = `http://127.0.0.1:${port}`
  const chain = defineChain({
    id: chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  })
  const transport = http(url, { retryCount: 0 })
  const client = createPublicClient({ chain, transport, pollingInterval: 50 })
  const test = createTestClient({ chain, transport, mode: 'anvil' })
  const accounts = Object.fromEntries(Object.entries(KEYS).map(([k, v]) => [k, privateKeyToAccount(v)])) as Record<
    keyof typeof KEYS,
    PrivateKeyAccount
  >
  const wallet = (account: PrivateKeyAccount) => createWalletClient({ account, chain, transport })
  const mined = async (hash: Hex): Promise<Hex> => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`)
    return hash
  }
  const token = artifact('TestToken')
  const deployHash = await wallet(accounts.deployer).deployContract({ abi: token.abi, bytecode: token.bytecode })
  const receipt = await client.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 20 })
  const tokenAddress = receipt.contractAddress as Address
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    url,
    port,
    chain,
    client,
    test,
    accounts,
    keys: KEYS,
    token: tokenAddress,
    mint: async (to, units) => {
      await mined(
        await wallet(accounts.deployer).writeContract({
          address: tokenAddress,
          abi: token.abi,
          functionName: 'mint',
          args: [to, units],
        }),
      )
    },
    transfer: async (to, units, from = accounts.buyer) =>
      mined(
        await wallet(from).writeContract({
          address: tokenAddress,
          abi: token.abi,
          functionName: 'transfer',
          args: [to, units],
        }),
      ),
    balanceOf: async (who) =>
      (await client.readContract({
        address: tokenAddress,
        abi: token.abi,
        functionName: 'balanceOf',
        args: [who],
      })) as bigint,
    mine: (blocks) => test.mine({ blocks }),
    blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGCONT')
        child.kill('SIGTERM')
        await exited
      }
    },
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
  }
}
