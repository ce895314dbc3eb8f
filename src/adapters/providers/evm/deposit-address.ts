/**
 * An invoice's deposit address (docs/stablecoins.md#security-model): the CREATE2 address of the forwarder the
 * factory deploys for (payout, salt), computed locally as the factory computes it on chain
 * (ForwarderFactory.forwarderAddress): no network call, nothing deployed until the first sweep.
 */
import { concat, encodeAbiParameters, getContractAddress, keccak256, stringToHex, type Address, type Hex } from 'viem'
import { contracts } from './contracts.js'

/** The CREATE2 salt of an invoice: keccak256 of its id's UTF-8 bytes. */
export const saltFor = (invoiceId: string): Hex => keccak256(stringToHex(invoiceId))

export function depositAddress(factory: Address, payout: Address, salt: Hex): Address {
  const initCode = concat([contracts().forwarder.bytecode, encodeAbiParameters([{ type: 'address' }], [payout])])
  return getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecode: initCode })
}
