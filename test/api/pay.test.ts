import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { api, expectProblem, expectStatus, unchecked, type InvoiceFields, type TestClient } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

const UNKNOWN = '00000000-0000-7000-8000-000000000000'
const SUCCESS = 'https://shop.example/thanks?order=P-1&x=<y>'
const FAIL = 'https://shop.example/sorry'

describe('hosted payment page (docs/payment-page.md)', () => {
  let t: TestApp
  let m: TestMerchant
  /** The merchant's client; `buyer`, the payment page's (no key). */
  let shop: TestClient
  let buyer: TestClient
  const setup = async (env: Record<string, string> = {}) => {
    t = await buildTestApp(env)
    m = await t.merchant('Mugs & <Co>')
    shop = api(t).as(m)
    buyer = api(t)
  }
  afterEach(async () => t.close())

  const create = (extra: InvoiceFields = {}): Promise<string> =>
    shop.newInvoice({
      amount: '1234.50',
      currency: 'RUB',
      comment: '<script>alert("x")</script> blue mug',
      success_url: SUCCESS,
      fail_url: FAIL,
      ...extra,
    })
  const page = (id: string, headers: Record<string, string> = {}, query = '') =>
    buyer.paymentPage(id, query, { headers })
  const simulate = (id: string, outcome: 'paid' | 'hold' | 'failed') => buyer.simulate(id, { outcome })
  const simulateForm = (id: string, form: string, query = '') => buyer.simulateForm(id, form, { query })
  const status = async (id: string) => {
    const res = await buyer.paymentStatus(id)
    expectStatus(res, 200)
    return res.body
  }
  const langOf = (body: string) => /<html lang="([a-z]+)">/.exec(body)?.[1]
  const forms = (body: string) => [...body.matchAll(/name="outcome" value="(\w+)"/g)].map((x) => x[1])

  describe('with the sandbox provider (default)', () => {
    beforeEach(async () => setup())

    it('when a pending invoice is opened, then the page shows merchant, amount, currency, escaped comment, QR and test controls', async () => {
      const id = await create()
      const res = await page(id)
      expectStatus(res, 200)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      const body = res.text
      expect(langOf(body)).toBe('en')
      expect(body).toContain('Mugs &amp; &lt;Co&gt;')
      expect(body).toMatch(/RUB\s1,234\.50/)
      expect(body).toContain('RUB · Russian Ruble')
      expect(body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; blue mug')
      expect(body).not.toContain('<script>alert')
      expect(body).toContain('Awaiting payment')
      expect(body).toContain('data-countdown>1:00:00<')
      expect(body).toContain(`<img src="/qr/${id}.png"`)
      expect(body).toContain('TEST MODE')
      expect(forms(body)).toEqual(['paid', 'hold', 'failed'])
      // only our own resources: no CDN, no web fonts, no inline script
      for (const [, url] of body.matchAll(/(?:src|href)="([^"]+)"/g)) expect(url).toMatch(/^(\/|data:,$)/)
      expect(body).not.toMatch(/<script>|<style|style="|\son[a-z]+=/)
    })

    it('when the page is served, then a strict CSP and the other security headers are set', async () => {
      const res = await page(await create())
      const csp = String(res.headers['content-security-policy'])
      expect(
        csp
          .split(';')
          .map((d) => d.trim())
          .sort(),
      ).toEqual([
        "base-uri 'none'",
        "connect-src 'self'",
        "default-src 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "img-src 'self' data:",
        "script-src 'self'",
        "style-src 'self'",
      ])
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.headers['referrer-policy']).toBe('no-referrer')
      expect(res.headers['x-frame-options']).toBe('DENY')
      expect(res.headers['cache-control']).toBe('no-store')
      expect(res.headers['vary']).toMatch(/Accept-Language/)
    })

    it('when another route than the page is served, then it keeps the global policy', async () => {
      expect((await buyer.healthz()).headers['content-security-policy']).toBe(
        "default-src 'none';frame-ancestors 'none'",
      )
    })

    it('when Accept-Language or ?lang choose a language, then q-values are honoured and ?lang wins', async () => {
      const id = await create()
      const cases: [Record<string, string>, string, string][] = [
        [{}, '', 'en'],
        [{ 'accept-language': 'ru' }, '', 'ru'],
        [{ 'accept-language': 'ru-RU,ru;q=0.9' }, '', 'ru'],
        [{ 'accept-language': 'de-DE, ru;q=0.8, en;q=0.7' }, '', 'ru'],
        [{ 'accept-language': 'en;q=0.5, ru' }, '', 'ru'],
        [{ 'accept-language': 'ru;q=0, de' }, '', 'en'],
        [{ 'accept-language': '*' }, '', 'en'],
        [{ 'accept-language': 'fr-FR' }, '', 'en'],
        [{ 'accept-language': ';;garbage,,' }, '', 'en'],
        [{ 'accept-language': 'en' }, '?lang=ru', 'ru'],
        [{ 'accept-language': 'ru' }, '?lang=en', 'en'],
        [{ 'accept-language': 'ru' }, '?lang=xx', 'ru'],
        // a language tag in any case (RFC 5646 §2.1.1)
        [{ 'accept-language': 'en' }, '?lang=RU', 'ru'],
        [{ 'accept-language': 'ru' }, '?lang=En', 'en'],
        // a stray parameter still opens the page: given twice (the first language named counts), or long
        [{ 'accept-language': 'ru' }, '?lang=ru&lang=en', 'ru'],
        [{ 'accept-language': 'en' }, '?lang=xx&lang=ru', 'ru'],
        [{ 'accept-language': 'ru' }, `?lang=${'x'.repeat(300)}`, 'ru'],
        [{ 'accept-language': 'ru' }, '?lang=', 'ru'],
      ]
      for (const [headers, query, want] of cases) {
        const res = await page(id, headers, query)
        expect(res.status, JSON.stringify(headers) + query).toBe(200)
        expect(langOf(res.text), JSON.stringify(headers) + query).toBe(want)
      }
    })

    it('when the page is in Russian, then texts and the amount are Russian', async () => {
      const body = (await page(await create(), { 'accept-language': 'ru-RU,ru;q=0.9' })).text
      for (const text of [
        'Счёт от',
        'К оплате',
        'Ожидает оплаты',
        'Осталось времени на оплату',
        'ТЕСТОВЫЙ РЕЖИМ',
        'Оплатить',
        'Удержать',
        'Отклонить',
        'российский рубль',
      ]) {
        expect(body).toContain(text)
      }
      expect(body).toMatch(/1\s234,50\s₽/)
      expect(body).not.toContain('Awaiting payment')
    })

    it.each([
      ['unknown', UNKNOWN],
      ['not a UUID', 'not-a-uuid'],
      ['markup', '<script>'],
    ])('when the invoice id is %s, then a 404 HTML page answers in the chosen language', async (_name, id) => {
      const en = await page(id)
      expectStatus(en, 404)
      expect(en.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(en.headers['content-security-policy']).toContain("script-src 'self'")
      expect(en.body).toContain('<h1>Invoice not found</h1>')
      expect(en.body).not.toContain('<script>')
      const ru = await page(id, { 'accept-language': 'ru' })
      expectStatus(ru, 404)
      expect(langOf(ru.body)).toBe('ru')
      expect(ru.body).toContain('<h1>Счёт не найден</h1>')
    })

    it('when the page address has a trailing slash, then 301 to the page itself, query kept, and the page opens', async () => {
      const id = await create()
      const res = await buyer.raw({ url: `/pay/${id}/?lang=ru&x=%3Cy%3E` })
      expect(res.status).toBe(301)
      expect(res.headers['location']).toBe(`/pay/${id}?lang=ru&x=%3Cy%3E`)
      const followed = await buyer.raw({ url: res.headers['location'] as string })
      expect(followed.status).toBe(200)
      expect(langOf(followed.body)).toBe('ru')
    })

    it('when the address of an id that names nothing has a trailing slash, then 301 to its 404 page, its characters encoded in the Location', async () => {
      const odd = await buyer.raw({ url: '/pay/%3Cscript%3E/' })
      expect(odd.status).toBe(301)
      expect(odd.headers['location']).toBe('/pay/%3Cscript%3E')
      expect((await buyer.raw({ url: `/pay/${UNKNOWN}/` })).headers['location']).toBe(`/pay/${UNKNOWN}`)
    })

    it('when the status is polled, then it reads pending, then paid with the success_url', async () => {
      const id = await create()
      const res = await buyer.paymentStatus(id)
      expect(res.headers['cache-control']).toBe('no-store')
      expect(res.body).toEqual({
        status: 'pending',
        expired_at: '2026-11-22T11:00:00.000Z',
        paid_at: null,
        redirect_url: null,
      })
      expectStatus(await simulate(id, 'paid'), 200)
      expect(await status(id)).toEqual({
        status: 'paid',
        expired_at: '2026-11-22T11:00:00.000Z',
        paid_at: '2026-11-22T10:00:00.000Z',
        redirect_url: SUCCESS,
      })
    })

    it('when the status of an unknown invoice is polled, then 404 invoice_not_found', async () => {
      expectProblem(await buyer.paymentStatus(UNKNOWN), 404, 'invoice_not_found')
    })

    it('when the buyer pays through JSON, then 200 with the status and the page shows the paid view without controls', async () => {
      const id = await create()
      const res = await simulate(id, 'paid')
      expectStatus(res, 200)
      expect(res.body).toEqual(expect.objectContaining({ status: 'paid', redirect_url: SUCCESS }))
      const body = (await page(id)).text
      expect(body).toContain('Payment received')
      expect(body).toContain('href="https://shop.example/thanks?order=P-1&amp;x=%3Cy%3E"')
      expect(forms(body)).toEqual([])
      expect(body).not.toContain('data-qr')
      expect(body).not.toContain('data-countdown')
      const info = await shop.getInvoice(id)
      expectStatus(info, 200)
      expect(info.body.status).toBe('paid')
    })

    it('when the test controls are posted as a form, then 303 back to the page, keeping ?lang', async () => {
      const id = await create()
      const res = await simulateForm(id, 'outcome=hold', '?lang=ru')
      expect(res.status).toBe(303)
      expect(res.headers['location']).toBe(`/pay/${id}?lang=ru`)
      const held = (await page(id, {}, '?lang=ru')).text
      expect(held).toContain('Платёж авторизован')
      expect(held).toContain(`action="/pay/${id}/simulate?lang=ru"`)
      // a held payment can only be settled by the provider: pay or decline, no second hold (docs/api.md#statuses)
      expect(forms(held)).toEqual(['paid', 'failed'])
      const declined = await simulateForm(id, 'outcome=failed', '?lang=xx&lang=RU')
      expect(declined.status).toBe(303)
      expect(declined.headers['location']).toBe(`/pay/${id}?lang=ru`)
      expect((await status(id)).status).toBe('failed')
    })

    it('when hold is sent twice, then the second is 409 invalid_transition', async () => {
      const id = await create()
      expectStatus(await simulate(id, 'hold'), 200)
      expectProblem(await simulate(id, 'hold'), 409, 'invalid_transition')
    })

    it.each(['paid', 'hold', 'failed'] as const)(
      'when %s is sent as JSON from a final status, then 409 invalid_transition',
      async (outcome) => {
        const id = await create()
        expectStatus(await simulate(id, 'failed'), 200)
        expectProblem(await simulate(id, outcome), 409, 'invalid_transition')
      },
    )

    it('when an outcome is posted as a form from a final status, then it lands back on the page, which shows that status', async () => {
      const id = await create()
      expectStatus(await simulate(id, 'hold'), 200)
      expectStatus(await simulate(id, 'failed'), 200)
      const form = await simulateForm(id, 'outcome=paid')
      expect(form.status).toBe(303)
      const body = (await page(id)).text
      expect(body).toContain('Payment declined')
      expect(body).toContain(`href="${FAIL}"`)
      expect(forms(body)).toEqual([])
    })

    it.each([
      ['an unknown outcome', { outcome: 'refund' }],
      ['no outcome', {}],
      ['an unknown field', { outcome: 'paid', amount: 1 }],
    ])('when the JSON body has %s, then 400 validation_failed and nothing changes', async (_name, body) => {
      const id = await create()
      expectProblem(await buyer.simulate(id, unchecked(body)), 400, 'validation_failed')
      expect((await status(id)).status).toBe('pending')
    })

    it('when the form has an unknown outcome, then 400 validation_failed and nothing changes', async () => {
      const id = await create()
      expectProblem(await simulateForm(id, 'outcome=refund'), 400, 'validation_failed')
      expect((await status(id)).status).toBe('pending')
    })

    it.each([
      ['unknown', UNKNOWN],
      ['not a UUID', 'nope'],
    ])('when the invoice id is %s, then simulate is 404 invoice_not_found', async (_name, id) => {
      expectProblem(await simulate(id, 'paid'), 404, 'invoice_not_found')
    })

    it('when a form body is sent to any other route, then it is still 415', async () => {
      const res = await shop.raw({
        method: 'POST',
        url: '/api/v1/invoices',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'order_id=1',
      })
      expect(expectProblem(res, 415, 'unsupported_media_type').detail).toBe('send the body as application/json')
    })

    it('when the test controls get a body that is neither JSON nor a form, then 415 names both types they take', async () => {
      const id = await create()
      const res = await buyer.raw({
        method: 'POST',
        url: `/pay/${id}/simulate`,
        headers: { 'content-type': 'text/plain' },
        payload: 'paid',
      })
      expect(expectProblem(res, 415, 'unsupported_media_type').detail).toBe(
        'send the body as application/json or application/x-www-form-urlencoded',
      )
      expect((await status(id)).status).toBe('pending')
    })

    it('when the invoice passes expiry, then the page shows the expired view with the fail_url and no controls', async () => {
      const id = await create()
      t.clock.advance(3600)
      const res = await page(id)
      expectStatus(res, 200)
      expect(res.text).toContain('Invoice expired')
      expect(res.text).toContain(`href="${FAIL}"`)
      expect(forms(res.text)).toEqual([])
      expect(res.text).not.toContain('data-qr')
      expect(await status(id)).toEqual(expect.objectContaining({ status: 'expired', redirect_url: FAIL }))
      expectProblem(await simulate(id, 'paid'), 409, 'invalid_transition')
    })

    it('when an invoice has no return URLs, then the final view has no back link', async () => {
      const id = await create({ success_url: undefined, fail_url: undefined, comment: undefined })
      expectStatus(await simulate(id, 'paid'), 200)
      const body = (await page(id)).text
      expect(body).toContain('Payment received')
      expect(body).not.toContain('data-back')
      expect(body).not.toContain('data-comment')
    })

    it('when the page assets are fetched, then they come with their type and a year of immutable caching', async () => {
      const body = (await page(await create())).text
      const urls = [...body.matchAll(/(?:src|href)="(\/pay\/assets\/[^"]+)"/g)].map((x) => x[1] ?? '')
      expect(urls).toHaveLength(2)
      for (const url of urls) {
        const res = await buyer.raw({ url })
        expect(res.status).toBe(200)
        expect(res.headers['content-type']).toMatch(url.endsWith('.css') ? /^text\/css/ : /^text\/javascript/)
        expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable')
      }
    })

    it('when an asset the page does not have is asked for, then 404', async () => {
      expect((await buyer.raw({ url: '/pay/assets/evil.js' })).status).toBe(404)
    })

    it('when /openapi.json is read, then the payment routes are documented as public', async () => {
      const doc = (await buyer.openapi()).body
      const ops = {
        getPaymentPage: doc.paths['/pay/{invoice_id}']?.get,
        getPaymentStatus: doc.paths['/pay/{invoice_id}/status']?.get,
        simulatePayment: doc.paths['/pay/{invoice_id}/simulate']?.post,
      }
      for (const [operationId, op] of Object.entries(ops)) {
        expect(op).toEqual(expect.objectContaining({ operationId, tags: ['public'] }))
      }
      expect(Object.keys(ops.simulatePayment.responses)).toEqual(
        expect.arrayContaining(['200', '303', '400', '404', '409']),
      )
      expect(Object.keys(ops.getPaymentPage.responses)).toEqual(expect.arrayContaining(['200', '404']))
      expect(Object.keys(doc.paths).some((p) => p.startsWith('/pay/assets'))).toBe(false)
    })
  })

  describe('without the sandbox provider (SANDBOX=false)', () => {
    beforeEach(async () => setup({ SANDBOX: 'false' }))

    it('when simulate is called, then it does not exist (404) and the page shows no test controls', async () => {
      const id = await create()
      expectProblem(await simulate(id, 'paid'), 404, 'not_found')
      const body = (await page(id)).text
      expect(body).toContain('Awaiting payment')
      expect(body).not.toContain('TEST MODE')
      expect(forms(body)).toEqual([])
      expect((await status(id)).status).toBe('pending')
    })
  })

  describe('with a card acquirer (docs/providers.md#checkout)', () => {
    // nothing here reaches the acquirer: the page is rendered from our own store
    const stripe = {
      SERVICE_PROVIDERS: 'card=stripe',
      STRIPE_SECRET_KEY: 'sk_test_page',
      STRIPE_WEBHOOK_SECRET: 'whsec_page',
    }
    const formAction = (csp: unknown) =>
      String(csp)
        .split(';')
        .map((d) => d.trim())
        .filter((d) => d.startsWith('form-action '))

    it("when the page has a Pay button, then its CSP lets the form's redirect go on to the acquirer's checkout, and nowhere else", async () => {
      // a browser holds a form's redirects to form-action: 'self' alone refused the 303 to the acquirer
      await setup({ ...stripe, SERVICES: 'card' })
      const res = await page(await create({ service: 'card' }))
      expect(res.text).toContain('data-checkout')
      expect(formAction(res.headers['content-security-policy'])).toEqual([
        "form-action 'self' https://checkout.stripe.com",
      ])
      expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'")
    })

    it('when the acquirer is YooKassa, then the form may go on to its confirmation page`s origin', async () => {
      await setup({
        SERVICES: 'sbp',
        CURRENCIES: 'RUB',
        SERVICE_PROVIDERS: 'sbp=yookassa',
        YOOKASSA_SHOP_ID: '1',
        YOOKASSA_SECRET_KEY: 'test_page',
      })
      const res = await page(await create({ service: 'sbp', currency: 'RUB' }))
      expect(formAction(res.headers['content-security-policy'])).toEqual(["form-action 'self' https://yoomoney.ru"])
    })

    it("when the invoice is the sandbox's, then form-action stays 'self'", async () => {
      await setup({ ...stripe, SERVICES: 'card,demo' })
      const res = await page(await create({ service: 'demo' }))
      expect(res.text).not.toContain('data-checkout')
      expect(formAction(res.headers['content-security-policy'])).toEqual(["form-action 'self'"])
    })
  })
})
