/**
 * One service's token on its chain, as the detector and the sweeper need it (docs/stablecoins.md): read over
 * JSON-RPC, written with the relayer key. Every method throws on an RPC failure; the callers retry later.
 */
export interface ChainTransfer {
  readonly txHash: string
  readonly logIndex: number
  readonly blockNumber: bigint
  readonly blockHash: string
  /** The recipient, lower-case hex. */
  readonly to: string
  readonly amount: bigint
}

export interface EvmChain {
  /** The latest block's number. */
  head(): Promise<bigint>
  /** The token's Transfer logs to any of `addresses` (lower-case) in blocks from..to, inclusive. */
  transfersTo(from: bigint, to: bigint, addresses: readonly string[]): Promise<ChainTransfer[]>
  /** The canonical block at `number` now: its hash and timestamp; undefined past the head. */
  block(number: bigint): Promise<{ readonly hash: string; readonly time: Date } | undefined>
  /**
   * Has the factory deploy (if need be) the forwarder of (payout, salt) and send its whole balance of the token to
   * `payout`, with the relayer paying the gas; resolves once mined, to the transaction and the amount moved.
   */
  sweep(payout: string, salt: string): Promise<{ readonly txHash: string; readonly amount: bigint }>
}
