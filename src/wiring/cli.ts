/** The CLI's commands over a runtime's use cases. */
import type { CliCommands } from '../cli/run-cli.js'
import { deployEvmFactory } from './evm.js'
import type { Runtime } from './runtime.js'

/**
 * The CLI's use cases over a runtime, or over one opened on first use (the binary): `--help` and usage errors
 * are answered without opening, let alone migrating, the database.
 */
export function cliCommands(runtime: Runtime | (() => Promise<Runtime>)): CliCommands {
  const open = async (): Promise<Runtime> => (typeof runtime === 'function' ? await runtime() : runtime)
  const accounts = async (): Promise<Runtime['useCases']['accounts']> => (await open()).useCases.accounts
  return {
    migrate: async () => (await open()).store.migrate(),
    createMerchant: async (input) => (await accounts()).createMerchant(input),
    listMerchants: async () => (await accounts()).listMerchants(),
    setMerchantStatus: async (id, status) => (await accounts()).setMerchantStatus(id, status),
    issueApiKey: async (merchantId) => (await accounts()).issueApiKey(merchantId),
    listApiKeys: async (merchantId) => (await accounts()).listApiKeys(merchantId),
    revokeApiKey: async (keyId) => (await accounts()).revokeApiKey(keyId),
    rotateWebhookSecret: async (merchantId) => (await accounts()).rotateWebhookSecret(merchantId),
    setPayout: async (merchantId, service, address) =>
      (await accounts()).setPayoutAddress(merchantId, service, address),
    deployFactory: async (service) => deployEvmFactory((await open()).config, service),
    createAdminToken: async (input) => (await open()).useCases.admin.createToken(input),
    listAdminTokens: async () => (await open()).useCases.admin.listTokens(),
    revokeAdminToken: async (id) => (await open()).useCases.admin.revokeToken(id),
    inviteUser: async (input) => (await open()).useCases.users.invite(input),
    resetPassword: async (email) => (await open()).useCases.users.resetPassword(email),
    createRefund: async (input) => (await (await open()).useCases.refunds.createAsOperator(input)).refund,
  }
}
