/** Before every test file of both projects (vitest.config.ts `setupFiles`). */
import { afterAll } from 'vitest'

// The PostgreSQL schemas the file's apps emptied and kept for each other (test/helpers/postgres.ts) go with the file.
if ((process.env.TEST_DATABASE_URL ?? '').trim() !== '')
  afterAll(async () => {
    const { dropEmptiedSchemas } = await import('./helpers/postgres.js')
    await dropEmptiedSchemas()
  })
