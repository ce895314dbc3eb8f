/** Merchants, API keys and webhook secrets over Kysely: the same queries serve SQLite and PostgreSQL. */
import { randomUUID } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { ApiKeyId, MerchantId } from '../../../domain/ids.js'
import type { ApiKeyRecord, Merchant, MerchantStatus, WebhookSecret } from '../../../domain/merchant.js'
import type { ApiKeyRepo, MerchantRepo, WebhookSecretRepo } from '../../../ports/store.js'
import {
  API_KEY_COLUMNS,
  MERCHANT_COLUMNS,
  WEBHOOK_SECRET_COLUMNS,
  apiKeyToRow,
  merchantToRow,
  rowToApiKey,
  rowToMerchant,
  rowToWebhookSecret,
  webhookSecretToRow,
  type Database,
} from '../schema.js'
import type { Guard } from '../unavailable.js'

export class KyselyMerchantRepo implements MerchantRepo {
  readonly #db: Kysely<Database>
  readonly #guard: Guard

  constructor(db: Kysely<Database>, guard: Guard) {
    this.#db = db
    this.#guard = guard
  }

  async findById(id: MerchantId): Promise<Merchant | undefined> {
    const row = await this.#guard(
      this.#db.selectFrom('merchants').select(MERCHANT_COLUMNS).where('id', '=', id).executeTakeFirst(),
    )
    return row && rowToMerchant(row)
  }

  async list(): Promise<Merchant[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('merchants')
        .select(MERCHANT_COLUMNS)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute(),
    )
    return rows.map(rowToMerchant)
  }

  async count(): Promise<number> {
    const row = await this.#guard(
      this.#db
        .selectFrom('merchants')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow(),
    )
    return Number(row.n) // PostgreSQL's count(*) is a bigint, returned as text
  }

  async insert(merchant: Merchant): Promise<void> {
    await this.#guard(this.#db.insertInto('merchants').values(merchantToRow(merchant)).execute())
  }

  async setSettings(id: MerchantId, settings: Pick<Merchant, 'name' | 'defaultService'>): Promise<boolean> {
    const result = await this.#guard(
      this.#db
        .updateTable('merchants')
        .set({ name: settings.name, default_service: settings.defaultService })
        .where('id', '=', id)
        .executeTakeFirst(),
    )
    return result.numUpdatedRows > 0n
  }

  async setStatus(id: MerchantId, status: MerchantStatus): Promise<boolean> {
    const result = await this.#guard(
      this.#db.updateTable('merchants').set({ status }).where('id', '=', id).executeTakeFirst(),
    )
    return result.numUpdatedRows > 0n
  }
}

export class KyselyApiKeyRepo implements ApiKeyRepo {
  readonly #db: Kysely<Database>
  readonly #guard: Guard

  constructor(db: Kysely<Database>, guard: Guard) {
    this.#db = db
    this.#guard = guard
  }

  /** One indexed lookup with the merchant joined: authentication runs this on every uncached request. */
  async findByHash(hash: string): Promise<{ key: ApiKeyRecord; merchant: Merchant } | undefined> {
    const row = await this.#guard(
      this.#db
        .selectFrom('api_keys as k')
        .innerJoin('merchants as m', 'm.id', 'k.merchant_id')
        .select([
          'k.id',
          'k.merchant_id',
          'k.hash',
          'k.prefix',
          'k.name',
          'k.created_at',
          'k.revoked_at',
          'k.last_used_at',
          'm.name as merchant_name',
          'm.default_service as merchant_default_service',
          'm.status as merchant_status',
          'm.created_at as merchant_created_at',
        ])
        .where('k.hash', '=', hash)
        .executeTakeFirst(),
    )
    if (row === undefined) return undefined
    return {
      key: rowToApiKey(row),
      merchant: rowToMerchant({
        id: row.merchant_id,
        name: row.merchant_name,
        default_service: row.merchant_default_service,
        status: row.merchant_status,
        created_at: row.merchant_created_at,
      }),
    }
  }

  async listByMerchant(merchantId: MerchantId): Promise<ApiKeyRecord[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('api_keys')
        .select(API_KEY_COLUMNS)
        .where('merchant_id', '=', merchantId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute(),
    )
    return rows.map(rowToApiKey)
  }

  async insert(key: ApiKeyRecord): Promise<void> {
    await this.#guard(this.#db.insertInto('api_keys').values(apiKeyToRow(key)).execute())
  }

  async revoke(id: ApiKeyId, at: Date, merchantId?: MerchantId): Promise<boolean> {
    let query = this.#db
      .updateTable('api_keys')
      .set({ revoked_at: at.getTime() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
    if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId)
    const result = await this.#guard(query.executeTakeFirst())
    return result.numUpdatedRows > 0n
  }

  async markUsed(id: ApiKeyId, at: Date): Promise<void> {
    await this.#guard(
      this.#db
        .updateTable('api_keys')
        .set({ last_used_at: at.getTime() })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at.getTime())]))
        .execute(),
    )
  }
}

export class KyselyWebhookSecretRepo implements WebhookSecretRepo {
  readonly #db: Kysely<Database>
  readonly #guard: Guard

  constructor(db: Kysely<Database>, guard: Guard) {
    this.#db = db
    this.#guard = guard
  }

  async listActive(merchantId: MerchantId, now: Date): Promise<WebhookSecret[]> {
    const rows = await this.#guard(
      this.#db
        .selectFrom('webhook_secrets')
        .select(WEBHOOK_SECRET_COLUMNS)
        .where('merchant_id', '=', merchantId)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now.getTime())]))
        .orderBy('created_at', 'desc')
        // same millisecond (a rotation right after creation): the current secret, which has no expiry, first;
        // spelled out because SQLite and PostgreSQL sort NULLs at opposite ends
        .orderBy(sql`case when expires_at is null then 0 else 1 end`)
        .orderBy('expires_at', 'desc')
        .execute(),
    )
    return rows.map(rowToWebhookSecret)
  }

  async insert(secret: WebhookSecret): Promise<void> {
    // the row's surrogate key: the domain's secret has no id of its own
    await this.#guard(this.#db.insertInto('webhook_secrets').values(webhookSecretToRow(secret, randomUUID())).execute())
  }

  async retireCurrent(merchantId: MerchantId, expiresAt: Date): Promise<void> {
    await this.#guard(
      this.#db
        .updateTable('webhook_secrets')
        .set({ expires_at: expiresAt.getTime() })
        .where('merchant_id', '=', merchantId)
        .where('expires_at', 'is', null)
        .execute(),
    )
  }
}
