/**
 * EvmChain over viem (docs/stablecoins.md): eth_getLogs for the token's Transfer events to deposit addresses (the
 * `to` topic an OR of addresses), blocks for their hashes and times, and the factory's `sweep` sent with the relayer
 * key. Also the factory's deployment (`invoice-service evm deploy-factory`).
 */
import {
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  defineChain,
  getAddress,
  http,
  parseAbiItem,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { ChainTransfer, EvmChain } from '../../../ports/evm-chain.js'
import { contracts } from './contracts.js'

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

export interface ChainOptions {
  readonly rpcUrl: string
  readonly chainId: number
  readonly token: string
  readonly factory: string | undefined
  /** Secret: never logged. */
  readonly relayerKey: string | undefined
  readonly timeoutMs: number
}

function chainOf(o: ChainOptions): Chain {
  return defineChain({
    id: o.chainId,
    name: `chain ${o.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [o.rpcUrl] } },
  })
}

function clients(o: ChainOptions): { client: PublicClient; chain: Chain } {
  const chain = chainOf(o)
  // no retries inside viem: the detector's round is the retry, with its backoff
  const client = createPublicClient({ chain, transport: http(o.rpcUrl, { retryCount: 0, timeout: o.timeoutMs }) })
  return { client, chain }
}

function relayer(o: ChainOptions, chain: Chain) {
  if (o.relayerKey === undefined) throw new Error('EVM_RELAYER_KEY is not set')
  return createWalletClient({
    account: privateKeyToAccount(o.relayerKey as Hex),
    chain,
    transport: http(o.rpcUrl, { retryCount: 0, timeout: o.timeoutMs }),
  })
}

export function createEvmChain(o: ChainOptions): EvmChain {
  const { client, chain } = clients(o)
  const token = getAddress(o.token)
  return {
    head: () => client.getBlockNumber({ cacheTime: 0 }),
    async transfersTo(from, to, addresses) {
      const logs = await client.getLogs({
        address: token,
        event: TRANSFER,
        args: { to: addresses.map((a) => getAddress(a)) },
        fromBlock: from,
        toBlock: to,
      })
      const out: ChainTransfer[] = []
      for (const log of logs) {
        if (log.removed || log.transactionHash === null || log.blockHash === null || log.blockNumber === null) continue
        const { args } = decodeEventLog({ abi: [TRANSFER], data: log.data, topics: log.topics })
        out.push({
          txHash: log.transactionHash,
          logIndex: Number(log.logIndex),
          blockNumber: log.blockNumber,
          blockHash: log.blockHash,
          to: args.to.toLowerCase(),
          amount: args.value,
        })
      }
      return out
    },
    async block(number) {
      try {
        const b = await client.getBlock({ blockNumber: number })
        return { hash: b.hash, time: new Date(Number(b.timestamp) * 1000) }
      } catch (err) {
        if (err instanceof Error && err.name === 'BlockNotFoundError') return undefined
        throw err
      }
    },
    async sweep(payout, salt) {
      if (o.factory === undefined) throw new Error('EVM_FACTORY_ADDRESS is not set')
      const { factory } = contracts()
      const wallet = relayer(o, chain)
      const { request, result } = await client.simulateContract({
        account: wallet.account,
        address: getAddress(o.factory),
        abi: factory.abi,
        functionName: 'sweep',
        args: [getAddress(payout), salt as Hex, token],
      })
      const hash = await wallet.writeContract(request)
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 250, timeout: o.timeoutMs * 6 })
      if (receipt.status !== 'success') throw new Error(`the sweep ${hash} reverted`)
      return { txHash: hash, amount: result as bigint }
    },
  }
}

/** Deploys the ForwarderFactory with the relayer key; resolves to its address once mined. */
export async function deployFactory(o: ChainOptions): Promise<Address> {
  const { client, chain } = clients(o)
  const { factory } = contracts()
  const hash = await relayer(o, chain).deployContract({ abi: factory.abi, bytecode: factory.bytecode, args: [] })
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 250, timeout: o.timeoutMs * 6 })
  if (receipt.status !== 'success' || receipt.contractAddress == null) throw new Error(`the deployment ${hash} failed`)
  return getAddress(receipt.contractAddress)
}
