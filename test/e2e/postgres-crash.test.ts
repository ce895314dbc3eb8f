/**
 * Crash safety on PostgreSQL: the scenario of test/helpers/crash-scenario.ts (SIGKILL under load, restart on the
 * same database). Other instances may share a PostgreSQL database, so a start does not release claims: the
 * killed instance's attempts under way are sent again once their leases lapse (WEBHOOK_TIMEOUT + 30 s; with
 * WEBHOOK_TIMEOUT=1 here, 31 s — most of this test's time).
 * Needs TEST_DATABASE_URL; without it the file skips, except in CI, where it fails.
 */
import { describe, it } from 'vitest'
import { crashAndRecover } from '../helpers/crash-scenario.js'
import { createTestSchema, IS_CI, MISSING_IN_CI, TEST_DATABASE_URL } from '../helpers/postgres.js'

if (TEST_DATABASE_URL === undefined && IS_CI) {
  it('PostgreSQL in CI: TEST_DATABASE_URL is set', () => {
    throw new Error(MISSING_IN_CI)
  })
}

describe.skipIf(TEST_DATABASE_URL === undefined)('crash safety on PostgreSQL', () => {
  it('when the server is killed under load and restarted, then every acknowledged create and payment survives, and every paid invoice gets its webhook once the dead claims lapse', async () => {
    const schema = await createTestSchema()
    try {
      await crashAndRecover(schema.url, { WEBHOOK_TIMEOUT: '1', DATABASE_POOL_SIZE: '5' }, 45_000)
    } finally {
      await schema.drop()
    }
  }, 90_000)
})
