/**
 * Crash safety on SQLite (docs/api.md#idempotency, docs/api.md#statuses, docs/webhooks.md#delivery; docs/operations.md#crash-safety): SIGKILL under load — no shutdown, no
 * flush — and a restart on the same file lose no acknowledged create or payment and no webhook
 * (test/helpers/crash-scenario.ts). On SQLite (one process per database) the start releases the claims of the
 * killed process, so its attempts under way go out again at once instead of after their lease.
 * The same scenario on PostgreSQL: postgres-crash.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, it } from 'vitest'
import { crashAndRecover } from '../helpers/crash-scenario.js'

const dir = mkdtempSync(join(tmpdir(), 'invoice-crash-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('crash safety: SIGKILL under load, restart on the same database', () => {
  it('on SQLite: every acknowledged create and payment survives, and every paid invoice gets its webhook', async () => {
    // 10 s for the webhooks: far below the killed process's leases (WEBHOOK_TIMEOUT 15 s + 30 s)
    await crashAndRecover(`sqlite:${join(dir, 'crash.db')}`, {}, 10_000)
  })
})
