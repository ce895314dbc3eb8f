import { AppError, validationFailed } from '../domain/errors.js'
import { parseUuid, type ApiKeyId, type MerchantId } from '../domain/ids.js'
import { findService } from '../domain/catalog.js'
import type { ApiKeyRecord, Merchant, MerchantStatus } from '../domain/merchant.js'
import type { Tx } from '../ports/store.js'
import type { AppDeps } from './deps.js'

type Deps = Pick<AppDeps, 'store' | 'clock' | 'newId' | 'secrets' | 'catalog'>

export interface IssuedKey {
  readonly key: ApiKeyRecord
  /** The key itself: shown once, never stored. */
  readonly apiKey: string
}

export interface CreatedMerchant {
  readonly merchant: Merchant
  readonly apiKey: string
  readonly apiKeyId: ApiKeyId
  readonly webhookSecret: string
}

/** `merchant create`: the merchant with its first API key and webhook secret, in one transaction. */
export async function createMerchant(deps: Deps, input: { name: string; defaultService?: string | undefined }): Promise<CreatedMerchant> {
  const name = input.name.trim()
  if (name === '' || name.length > 200) throw validationFailed([{ field: 'name', message: 'must be 1 to 200 characters' }])
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw validationFailed([{ field: 'name', message: 'must not contain control characters' }])
  const defaultService = input.defaultService ?? deps.catalog.services[0]?.name ?? 'card'
  if (findService(deps.catalog, defaultService) === undefined) {
    const names = deps.catalog.services.map((s) => s.name).join(', ')
    throw validationFailed([{ field: 'default_service', message: `must be one of: ${names}` }])
  }
  const now = deps.clock.now()
  const merchant: Merchant = { id: deps.newId() as MerchantId, name, defaultService, status: 'active', createdAt: now }
  const webhookSecret = deps.secrets.newWebhookSecret()
  return deps.store.transaction(async (tx) => {
    await tx.merchants.insert(merchant)
    const issued = await insertKey(tx, deps, merchant.id, now)
    await tx.webhookSecrets.insert({ merchantId: merchant.id, secret: webhookSecret, createdAt: now, expiresAt: null })
    return { merchant, apiKey: issued.apiKey, apiKeyId: issued.key.id, webhookSecret }
  })
}

export async function listMerchants(deps: Pick<AppDeps, 'store'>): Promise<Merchant[]> {
  return deps.store.merchants.list()
}

/** `merchant disable|enable`: a disabled merchant's keys answer 403 merchant_disabled. */
export async function setMerchantStatus(deps: Pick<AppDeps, 'store'>, id: string, status: MerchantStatus): Promise<Merchant> {
  const merchantId = requireUuid('merchant_id', id) as MerchantId
  return deps.store.transaction(async (tx) => {
    if (!(await tx.merchants.setStatus(merchantId, status))) throw merchantNotFound(id)
    const merchant = await tx.merchants.findById(merchantId)
    if (merchant === undefined) throw merchantNotFound(id)
    return merchant
  })
}

/** `key create`: a further active key for the merchant (rotation without downtime). */
export async function issueApiKey(deps: Deps, merchantIdText: string): Promise<IssuedKey> {
  const merchantId = requireUuid('merchant_id', merchantIdText) as MerchantId
  return deps.store.transaction(async (tx) => {
    if ((await tx.merchants.findById(merchantId)) === undefined) throw merchantNotFound(merchantIdText)
    return insertKey(tx, deps, merchantId, deps.clock.now())
  })
}

export async function listApiKeys(deps: Pick<AppDeps, 'store'>, merchantIdText: string): Promise<ApiKeyRecord[]> {
  const merchantId = requireUuid('merchant_id', merchantIdText) as MerchantId
  if ((await deps.store.merchants.findById(merchantId)) === undefined) throw merchantNotFound(merchantIdText)
  return deps.store.apiKeys.listByMerchant(merchantId)
}

export async function revokeApiKey(deps: Pick<AppDeps, 'store' | 'clock'>, keyIdText: string): Promise<void> {
  const keyId = requireUuid('key_id', keyIdText) as ApiKeyId
  const revoked = await deps.store.transaction((tx) => tx.apiKeys.revoke(keyId, deps.clock.now()))
  if (!revoked) throw new AppError('not_found', `no active API key ${keyIdText}`)
}

/**
 * `webhook-secret rotate`: a new secret signs from now on; the previous ones keep signing alongside it for
 * the grace period, so a merchant can deploy the new secret without rejecting webhooks meanwhile.
 */
export async function rotateWebhookSecret(
  deps: Pick<AppDeps, 'store' | 'clock' | 'secrets' | 'webhookSecretGrace'>,
  merchantIdText: string,
): Promise<{ webhookSecret: string; previousValidUntil: Date }> {
  const merchantId = requireUuid('merchant_id', merchantIdText) as MerchantId
  const now = deps.clock.now()
  const previousValidUntil = new Date(now.getTime() + deps.webhookSecretGrace * 1000)
  const webhookSecret = deps.secrets.newWebhookSecret()
  await deps.store.transaction(async (tx) => {
    if ((await tx.merchants.findById(merchantId)) === undefined) throw merchantNotFound(merchantIdText)
    await tx.webhookSecrets.retireCurrent(merchantId, previousValidUntil)
    await tx.webhookSecrets.insert({ merchantId, secret: webhookSecret, createdAt: now, expiresAt: null })
  })
  return { webhookSecret, previousValidUntil }
}

async function insertKey(tx: Tx, deps: Deps, merchantId: MerchantId, now: Date): Promise<IssuedKey> {
  const apiKey = deps.secrets.newApiKey()
  const key: ApiKeyRecord = {
    id: deps.newId() as ApiKeyId,
    merchantId,
    hash: deps.secrets.hashApiKey(apiKey),
    prefix: apiKey.slice(0, 9),
    createdAt: now,
    revokedAt: null,
  }
  await tx.apiKeys.insert(key)
  return { key, apiKey }
}

function requireUuid(field: string, text: string): string {
  const id = parseUuid(text)
  if (id === undefined) throw validationFailed([{ field, message: 'must be a UUID' }])
  return id
}

function merchantNotFound(id: string): AppError {
  return new AppError('not_found', `no merchant ${id}`)
}
