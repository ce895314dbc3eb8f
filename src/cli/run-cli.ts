import { parseArgs } from 'node:util'
import type { IssuedAdminToken } from '../app/create-admin-token.js'
import type { CreatedMerchant } from '../app/create-merchant.js'
import type { InviteInput } from '../app/invite-user.js'
import type { IssuedLink } from '../app/user-records.js'
import type { IssuedKey } from '../app/merchant-records.js'
import type { AdminTokenRecord } from '../domain/admin-token.js'
import type { OperatorRefundInput } from '../app/refund-as-operator.js'
import { AppError } from '../domain/errors.js'
import type { Refund } from '../domain/refund.js'
import { refundView } from '../domain/refund-view.js'
import type { ApiKeyRecord, Merchant, MerchantStatus } from '../domain/merchant.js'

/** The use cases the CLI calls, bound by the composition root. */
export interface CliCommands {
  migrate(): Promise<void>
  createMerchant(input: { name: string; defaultService?: string | undefined }): Promise<CreatedMerchant>
  listMerchants(): Promise<Merchant[]>
  setMerchantStatus(id: string, status: MerchantStatus): Promise<Merchant>
  issueApiKey(merchantId: string): Promise<IssuedKey>
  listApiKeys(merchantId: string): Promise<ApiKeyRecord[]>
  revokeApiKey(keyId: string): Promise<void>
  rotateWebhookSecret(merchantId: string): Promise<{ webhookSecret: string; previousValidUntil: Date }>
  /** The payout address stored (checksummed). */
  setPayout(merchantId: string, service: string, address: string): Promise<string>
  deployFactory(service: string | undefined): Promise<{ service: string; address: string }>
  createAdminToken(input: { name?: string | undefined }): Promise<IssuedAdminToken>
  listAdminTokens(): Promise<AdminTokenRecord[]>
  revokeAdminToken(id: string): Promise<void>
  inviteUser(input: InviteInput): Promise<IssuedLink>
  resetPassword(email: string): Promise<IssuedLink>
  createRefund(input: OperatorRefundInput): Promise<Refund>
}

export interface CliIo {
  out(text: string): void
  err(text: string): void
}

export const USAGE = `Usage: invoice-service <command> [options]

Commands:
  serve                                              start the HTTP API (what npm start runs)
  migrate                                            apply database migrations
  merchant create --name NAME [--default-service S]  create a merchant; prints merchant_id, api_key, webhook_secret
  merchant list                                      list merchants
  merchant disable ID | merchant enable ID           disable or re-enable a merchant
  key create --merchant ID                           issue another API key for a merchant
  key list --merchant ID                             list a merchant's keys (prefixes only)
  key revoke KEY_ID                                  revoke an API key
  webhook-secret rotate --merchant ID                new webhook secret; the old one keeps signing for the grace period
  merchant set-payout --merchant ID --service S --address 0x…
                                                     where the merchant's stablecoin deposits of S are forwarded
  evm deploy-factory [--service S]                   deploy the deposit forwarders' factory; prints its address
  admin-token create [--name NAME]                   a bearer token of the admin API (/api/admin/v1); shown once
  admin-token list                                   list admin tokens (prefixes only)
  admin-token revoke TOKEN_ID                        revoke an admin token
  user invite --merchant ID --email E [--role R]     a dashboard user (owner or viewer); prints a one-time link (24 h)
  user invite --admin --email E                      an operator of the dashboard; prints a one-time link (24 h)
  user reset-password --email E                      a new one-time link where the user sets a new password
  refund create --invoice ID [--amount A] [--reason R] [--idempotency-key K]
                                                     refund a paid invoice (all that is left without --amount)

Every command but serve accepts --json: the output is then one JSON object and nothing else.
Configuration comes from the environment (DATABASE_URL, …); see the README.
`

class UsageError extends Error {}

/** argv → use case → stdout; errors → stderr with a non-zero exit code. Returns the exit code. */
export async function runCli(argv: readonly string[], commands: CliCommands, io: CliIo): Promise<number> {
  try {
    await dispatch(argv, commands, io)
    return 0
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`invoice-service: ${err.message}\n\n${USAGE}`)
      return 64 // EX_USAGE
    }
    if (err instanceof AppError) {
      io.err(`invoice-service: ${err.code}: ${err.message}\n`)
      return err.code === 'not_found' ? 3 : 2
    }
    // parseArgs refusals (unknown option, `--json=x`, `--name` without a value, …) are usage errors
    if (
      err instanceof Error &&
      'code' in err &&
      typeof err.code === 'string' &&
      err.code.startsWith('ERR_PARSE_ARGS_')
    ) {
      io.err(`invoice-service: ${err.message}\n\n${USAGE}`)
      return 64
    }
    throw err
  }
}

/**
 * The options each command takes besides --json and --help. Any other is a usage error rather than ignored
 * (`key revoke KEY --merchant M` does not revoke "only M's key"), and so is one given twice (which of two --name
 * values would a merchant get?).
 */
const OPTIONS_OF: Readonly<Record<string, readonly string[]>> = {
  migrate: [],
  'merchant create': ['name', 'default-service'],
  'merchant list': [],
  'merchant disable': [],
  'merchant enable': [],
  'key create': ['merchant'],
  'key list': ['merchant'],
  'key revoke': [],
  'webhook-secret rotate': ['merchant'],
  'merchant set-payout': ['merchant', 'service', 'address'],
  'evm deploy-factory': ['service'],
  'admin-token create': ['name'],
  'admin-token list': [],
  'admin-token revoke': [],
  'user invite': ['merchant', 'email', 'role', 'admin'],
  'user reset-password': ['email'],
  'refund create': ['invoice', 'amount', 'reason', 'idempotency-key'],
}

/** `serve` runs only bare (main starts it); with options or arguments, before or after it, this says why. */
const SERVE_TAKES_NOTHING =
  'serve takes no options or arguments (its configuration comes from the environment): run "invoice-service serve"'

async function dispatch(argv: readonly string[], c: CliCommands, io: CliIo): Promise<void> {
  // before parsing: `serve --port 9999` would otherwise be refused as an unknown option, which hides the reason
  if (argv[0] === 'serve') throw new UsageError(SERVE_TAKES_NOTHING)
  const parsed = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    tokens: true,
    options: {
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      'default-service': { type: 'string' },
      merchant: { type: 'string' },
      service: { type: 'string' },
      address: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      admin: { type: 'boolean' },
      invoice: { type: 'string' },
      amount: { type: 'string' },
      reason: { type: 'string' },
      'idempotency-key': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  const [group, action, arg, ...rest] = parsed.positionals
  const o = parsed.values
  const json = o.json === true
  const print = (human: string, obj: unknown): void => io.out(json ? `${JSON.stringify(obj)}\n` : `${human}\n`)
  const need = (value: string | undefined, what: string): string => {
    if (value === undefined || value === '') throw new UsageError(`missing ${what}`)
    return value
  }
  const noExtra = (...extra: (string | undefined)[]): void => {
    const more = extra.filter((e) => e !== undefined)
    if (more.length > 0 || rest.length > 0) throw new UsageError(`unexpected argument ${[...more, ...rest][0] ?? ''}`)
  }

  if (o.help === true || group === undefined || group === 'help') {
    io.out(USAGE)
    return
  }
  // an option before it (`--json serve`): the same reason rather than "unknown command"
  if (group === 'serve') throw new UsageError(SERVE_TAKES_NOTHING)
  const cmd = action === undefined ? group : `${group} ${action}`
  const allowed = OPTIONS_OF[cmd]
  if (allowed !== undefined) {
    const given = parsed.tokens.flatMap((t) => (t.kind === 'option' ? [t.name] : []))
    const foreign = given.find((name) => name !== 'json' && name !== 'help' && !allowed.includes(name))
    if (foreign !== undefined) throw new UsageError(`${cmd} takes no --${foreign} option`)
    const twice = given.find((name, i) => given.indexOf(name) !== i)
    if (twice !== undefined) throw new UsageError(`--${twice} is given more than once`)
  }
  switch (cmd) {
    case 'migrate': {
      noExtra(action)
      await c.migrate()
      print('migrations applied', { migrated: true })
      return
    }
    case 'merchant create': {
      noExtra(arg)
      const r = await c.createMerchant({ name: need(o.name, '--name NAME'), defaultService: o['default-service'] })
      const obj = {
        merchant_id: r.merchant.id,
        name: r.merchant.name,
        default_service: r.merchant.defaultService,
        api_key_id: r.apiKeyId,
        api_key: r.apiKey,
        webhook_secret: r.webhookSecret,
      }
      print(
        [
          `merchant_id:     ${obj.merchant_id}`,
          `name:            ${obj.name}`,
          `default_service: ${obj.default_service}`,
          `api_key_id:      ${obj.api_key_id}`,
          `api_key:         ${obj.api_key}`,
          `webhook_secret:  ${obj.webhook_secret}`,
          '',
          'Store the API key and the webhook secret now: they are not shown again.',
        ].join('\n'),
        obj,
      )
      return
    }
    case 'merchant list': {
      noExtra(arg)
      const list = (await c.listMerchants()).map(merchantJson)
      print(
        list.length === 0
          ? 'no merchants'
          : list
              .map((m) => `${m.merchant_id}  ${m.status.padEnd(8)}  ${m.default_service.padEnd(6)}  ${m.name}`)
              .join('\n'),
        { merchants: list },
      )
      return
    }
    case 'merchant disable':
    case 'merchant enable': {
      noExtra()
      const m = await c.setMerchantStatus(need(arg, 'merchant ID'), action === 'disable' ? 'disabled' : 'active')
      print(`merchant ${m.id} is ${m.status}`, merchantJson(m))
      return
    }
    case 'key create': {
      noExtra(arg)
      const k = await c.issueApiKey(need(o.merchant, '--merchant ID'))
      const obj = {
        key_id: k.key.id,
        merchant_id: k.key.merchantId,
        api_key: k.apiKey,
        created_at: k.key.createdAt.toISOString(),
      }
      print(`key_id:  ${obj.key_id}\napi_key: ${obj.api_key}\n\nStore the API key now: it is not shown again.`, obj)
      return
    }
    case 'key list': {
      noExtra(arg)
      const keys = (await c.listApiKeys(need(o.merchant, '--merchant ID'))).map((k) => ({
        key_id: k.id,
        prefix: `${k.prefix}…`,
        created_at: k.createdAt.toISOString(),
        revoked_at: k.revokedAt === null ? null : k.revokedAt.toISOString(),
      }))
      print(
        keys
          .map((k) => `${k.key_id}  ${k.prefix}  ${k.revoked_at === null ? 'active' : `revoked ${k.revoked_at}`}`)
          .join('\n') || 'no keys',
        { keys },
      )
      return
    }
    case 'key revoke': {
      noExtra()
      const keyId = need(arg, 'KEY_ID')
      await c.revokeApiKey(keyId)
      print(`key ${keyId} revoked`, { key_id: keyId, revoked: true })
      return
    }
    case 'webhook-secret rotate': {
      noExtra(arg)
      const merchantId = need(o.merchant, '--merchant ID')
      const r = await c.rotateWebhookSecret(merchantId)
      const obj = {
        merchant_id: merchantId,
        webhook_secret: r.webhookSecret,
        previous_valid_until: r.previousValidUntil.toISOString(),
      }
      print(
        `webhook_secret: ${obj.webhook_secret}\nThe previous secret keeps signing until ${obj.previous_valid_until}.`,
        obj,
      )
      return
    }
    case 'merchant set-payout': {
      noExtra(arg)
      const merchantId = need(o.merchant, '--merchant ID')
      const service = need(o.service, '--service S')
      const address = await c.setPayout(merchantId, service, need(o.address, '--address 0x…'))
      print(`payout address of ${merchantId} for ${service}: ${address}`, {
        merchant_id: merchantId,
        service,
        address,
      })
      return
    }
    case 'evm deploy-factory': {
      noExtra(arg)
      const r = await c.deployFactory(o.service)
      print(`${r.address}\n\nSet EVM_FACTORY_ADDRESS=${r.address} (chain of service ${r.service}).`, {
        service: r.service,
        factory_address: r.address,
      })
      return
    }
    case 'admin-token create': {
      noExtra(arg)
      const t = await c.createAdminToken({ name: o.name })
      const obj = {
        token_id: t.record.id,
        name: t.record.name,
        token: t.token,
        created_at: t.record.createdAt.toISOString(),
      }
      print(
        `token_id: ${obj.token_id}\nname:     ${obj.name}\ntoken:    ${obj.token}\n\n` +
          'Send it as "Authorization: Bearer <token>" to /api/admin/v1. Store it now: it is not shown again.',
        obj,
      )
      return
    }
    case 'admin-token list': {
      noExtra(arg)
      const tokens = (await c.listAdminTokens()).map((t) => ({
        token_id: t.id,
        name: t.name,
        prefix: `${t.prefix}…`,
        created_at: t.createdAt.toISOString(),
        revoked_at: t.revokedAt === null ? null : t.revokedAt.toISOString(),
      }))
      print(
        tokens
          .map((t) => `${t.token_id}  ${t.prefix}  ${t.revoked_at === null ? 'active ' : 'revoked'}  ${t.name}`)
          .join('\n') || 'no admin tokens',
        { tokens },
      )
      return
    }
    case 'admin-token revoke': {
      noExtra()
      const id = need(arg, 'TOKEN_ID')
      await c.revokeAdminToken(id)
      print(`admin token ${id} revoked`, { token_id: id, revoked: true })
      return
    }
    case 'user invite': {
      noExtra(arg)
      const email = need(o.email, '--email E')
      if (o.admin === true && (o.merchant !== undefined || o.role !== undefined))
        throw new UsageError('user invite --admin takes neither --merchant nor --role')
      const link = await c.inviteUser(
        o.admin === true
          ? { admin: true, email }
          : { merchantId: need(o.merchant, '--merchant ID (or --admin)'), email, role: o.role },
      )
      printLink(print, link)
      return
    }
    case 'user reset-password': {
      noExtra(arg)
      printLink(print, await c.resetPassword(need(o.email, '--email E')))
      return
    }
    case 'refund create': {
      noExtra(arg)
      const refund = refundView(
        await c.createRefund({
          invoiceId: need(o.invoice, '--invoice ID'),
          amount: o.amount,
          reason: o.reason,
          idempotencyKey: o['idempotency-key'],
        }),
      )
      print(
        [
          `refund_id:      ${refund.id}`,
          `invoice_id:     ${refund.invoice_id}`,
          `amount:         ${refund.amount} ${refund.currency}`,
          `status:         ${refund.status}`,
          ...(refund.failure_reason === null ? [] : [`failure_reason: ${refund.failure_reason}`]),
        ].join('\n'),
        refund,
      )
      return
    }
    default:
      throw new UsageError(`unknown command "${cmd}"`)
  }
}

function printLink(print: (human: string, obj: unknown) => void, link: IssuedLink): void {
  const obj = {
    user_id: link.user.id,
    email: link.user.email,
    role: link.user.role,
    merchant_id: link.user.merchantId,
    url: link.url,
    expires_at: link.expiresAt.toISOString(),
  }
  print(
    `user:    ${obj.email} (${obj.role}${obj.merchant_id === null ? '' : ` of merchant ${obj.merchant_id}`})\n` +
      `link:    ${obj.url}\nexpires: ${obj.expires_at}\n\n` +
      'Give the link to the user: it sets their password, works once, and is not shown again.',
    obj,
  )
}

function merchantJson(m: Merchant): {
  merchant_id: string
  name: string
  default_service: string
  status: string
  created_at: string
} {
  return {
    merchant_id: m.id,
    name: m.name,
    default_service: m.defaultService,
    status: m.status,
    created_at: m.createdAt.toISOString(),
  }
}
