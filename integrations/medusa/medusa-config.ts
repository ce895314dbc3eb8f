// The Medusa application of the integration tests: Medusa's defaults plus this provider, configured from the
// environment as the README shows (the tests set INVOICE_SERVICE_* before the application starts).
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
  modules: [
    {
      resolve: '@medusajs/medusa/payment',
      options: {
        providers: [
          {
            resolve: './src',
            id: 'default',
            options: {
              apiUrl: process.env.INVOICE_SERVICE_URL,
              apiKey: process.env.INVOICE_SERVICE_API_KEY,
              webhookSecret: process.env.INVOICE_SERVICE_WEBHOOK_SECRET,
              webhookUrl: process.env.INVOICE_SERVICE_WEBHOOK_URL,
            },
          },
        ],
      },
    },
  ],
})
