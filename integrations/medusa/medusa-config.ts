// The Medusa application of the integration tests: Medusa's defaults plus this provider.
import { defineConfig } from '@medusajs/framework/utils'

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: {
      storeCors: '*',
      adminCors: '*',
      authCors: '*',
      jwtSecret: 'test-jwt-secret',
      cookieSecret: 'test-cookie-secret',
    },
  },
  modules: [],
})
