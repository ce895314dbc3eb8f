import { medusaIntegrationTestRunner } from '@medusajs/test-utils'

medusaIntegrationTestRunner({
  testSuite: ({ api }) => {
    it('boots', async () => {
      const res = await api.get('/health')
      expect(res.status).toBe(200)
    })
  },
})
