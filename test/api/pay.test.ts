import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildTestApp, json, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'

const UNKNOWN = '00000000-0000-7000-8000-000000000000'
const SUCCESS = 'https://shop.example/thanks?order=P-1&x=<y>'
const FAIL = 'https://shop.example/sorry'
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

describe('hosted payment page (API.md D)', () => {
  let t: TestApp
  let m: TestMerchant
  let n = 0
  const setup = async (env: Record<string, string> = {}) => {
    t = await buildTestApp(env)
    m = await t.merchant('Mugs & <Co>')
  }
  afterEach(async () => t.close())

  const create = async (extra: Record<string, unknown> = {}): Promise<string> => {
    n += 1
    const body = {
      order_id: `P-${n}`,
      amount: '1234.50',
      currency: 'RUB',
      comment: '<script>alert("x")</script> blue mug',
      success_url: SUCCESS,
      fail_url: FAIL,
      ...extra,
    }
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      ...json(body),
      headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey },
    })
    expect(res.statusCode).toBe(201)
    return res.json().order_id
  }
  const page = (id: string, headers: Record<string, string> = {}, query = '') =>
    t.app.inject({ url: `/pay/${id}${query}`, headers })
  const simulate = (id: string, outcome: string, query = '') =>
    t.app.inject({ method: 'POST', url: `/pay/${id}/simulate${query}`, ...json({ outcome }) })
  const simulateForm = (id: string, payload: string, query = '') =>
    t.app.inject({ method: 'POST', url: `/pay/${id}/simulate${query}`, headers: FORM, payload })
  const status = async (id: string) => (await t.app.inject({ url: `/pay/${id}/status` })).json()
  const langOf = (body: string) => /<html lang="([a-z]+)">/.exec(body)?.[1]
  const forms = (body: string) => [...body.matchAll(/name="outcome" value="(\w+)"/g)].map((x) => x[1])

  describe('with the sandbox provider (default)', () => {
    beforeEach(async () => setup())

    it('when a pending invoice is opened, then the page shows merchant, amount, currency, escaped comment, QR and test controls', async () => {
      const id = await create()
      const res = await page(id)
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      const body = res.body
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
      // every other route keeps the global policy
      expect((await t.app.inject({ url: '/healthz' })).headers['content-security-policy']).toBe(
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
        expect(res.statusCode, JSON.stringify(headers) + query).toBe(200)
        expect(langOf(res.body), JSON.stringify(headers) + query).toBe(want)
      }
    })

    it('when the page is in Russian, then texts and the amount are Russian', async () => {
      const body = (await page(await create(), { 'accept-language': 'ru-RU,ru;q=0.9' })).body
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

    it('when the invoice id is unknown or malformed, then a 404 HTML page answers in the chosen language', async () => {
      for (const id of [UNKNOWN, 'not-a-uuid', '%3Cscript%3E']) {
        const en = await page(id)
        expect(en.statusCode).toBe(404)
        expect(en.headers['content-type']).toBe('text/html; charset=utf-8')
        expect(en.headers['content-security-policy']).toContain("script-src 'self'")
        expect(en.body).toContain('<h1>Invoice not found</h1>')
        expect(en.body).not.toContain('<script>')
        const ru = await page(id, { 'accept-language': 'ru' })
        expect(ru.statusCode).toBe(404)
        expect(langOf(ru.body)).toBe('ru')
        expect(ru.body).toContain('<h1>Счёт не найден</h1>')
      }
    })

    it('when the page address has a trailing slash, then 301 to the page itself, query kept, and the page opens', async () => {
      const id = await create()
      const res = await page(`${id}/`, {}, '?lang=ru&x=%3Cy%3E')
      expect(res.statusCode).toBe(301)
      expect(res.headers['location']).toBe(`/pay/${id}?lang=ru&x=%3Cy%3E`)
      const followed = await t.app.inject({ url: res.headers['location'] as string })
      expect(followed.statusCode).toBe(200)
      expect(langOf(followed.body)).toBe('ru')
      // an id that names nothing lands on the 404 page, its characters encoded in the Location
      const odd = await page('%3Cscript%3E/')
      expect(odd.statusCode).toBe(301)
      expect(odd.headers['location']).toBe('/pay/%3Cscript%3E')
      expect((await page(`${UNKNOWN}/`)).headers['location']).toBe(`/pay/${UNKNOWN}`)
    })

    it('when the status is polled, then it reads pending, then paid with the success_url', async () => {
      const id = await create()
      const res = await t.app.inject({ url: `/pay/${id}/status` })
      expect(res.headers['cache-control']).toBe('no-store')
      expect(res.json()).toEqual({
        status: 'pending',
        expired_at: '2026-11-22T11:00:00.000Z',
        paid_at: null,
        redirect_url: null,
      })
      expect((await simulate(id, 'paid')).statusCode).toBe(200)
      expect(await status(id)).toEqual({
        status: 'paid',
        expired_at: '2026-11-22T11:00:00.000Z',
        paid_at: '2026-11-22T10:00:00.000Z',
        redirect_url: SUCCESS,
      })
      const missing = await t.app.inject({ url: `/pay/${UNKNOWN}/status` })
      expect(missing.statusCode).toBe(404)
      expect(missing.json().code).toBe('invoice_not_found')
    })

    it('when the buyer pays through JSON, then 200 with the status and the page shows the paid view without controls', async () => {
      const id = await create()
      const res = await simulate(id, 'paid')
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual(expect.objectContaining({ status: 'paid', redirect_url: SUCCESS }))
      const body = (await page(id)).body
      expect(body).toContain('Payment received')
      expect(body).toContain('href="https://shop.example/thanks?order=P-1&amp;x=%3Cy%3E"')
      expect(forms(body)).toEqual([])
      expect(body).not.toContain('data-qr')
      expect(body).not.toContain('data-countdown')
      const info = await t.app.inject({ url: `/api/v1/invoices/${id}`, headers: { 'x-api-key': m.apiKey } })
      expect(info.json().status).toBe('paid')
    })

    it('when the test controls are posted as a form, then 303 back to the page, keeping ?lang', async () => {
      const id = await create()
      const res = await simulateForm(id, 'outcome=hold', '?lang=ru')
      expect(res.statusCode).toBe(303)
      expect(res.headers['location']).toBe(`/pay/${id}?lang=ru`)
      const held = (await page(id, {}, '?lang=ru')).body
      expect(held).toContain('Платёж авторизован')
      expect(held).toContain(`action="/pay/${id}/simulate?lang=ru"`)
      // a held payment can only be settled by the provider: pay or decline, no second hold (API.md B5)
      expect(forms(held)).toEqual(['paid', 'failed'])
      const declined = await simulateForm(id, 'outcome=failed', '?lang=xx&lang=RU')
      expect(declined.statusCode).toBe(303)
      expect(declined.headers['location']).toBe(`/pay/${id}?lang=ru`)
      expect((await status(id)).status).toBe('failed')
    })

    it('when an outcome is sent from a final status or hold twice, then JSON gets 409 and a form lands back on the page', async () => {
      const id = await create()
      expect((await simulate(id, 'hold')).statusCode).toBe(200)
      const twice = await simulate(id, 'hold')
      expect(twice.statusCode).toBe(409)
      expect(twice.json().code).toBe('invalid_transition')
      expect((await simulate(id, 'failed')).statusCode).toBe(200)
      for (const outcome of ['paid', 'hold', 'failed']) {
        const res = await simulate(id, outcome)
        expect(res.statusCode).toBe(409)
        expect(res.headers['content-type']).toMatch(/application\/problem\+json/)
        expect(res.json().code).toBe('invalid_transition')
      }
      const form = await simulateForm(id, 'outcome=paid')
      expect(form.statusCode).toBe(303)
      const body = (await page(id)).body
      expect(body).toContain('Payment declined')
      expect(body).toContain(`href="${FAIL}"`)
      expect(forms(body)).toEqual([])
    })

    it('when the outcome is invalid, then 400 validation_failed; an unknown invoice is 404 invoice_not_found', async () => {
      const id = await create()
      for (const body of [{ outcome: 'refund' }, {}, { outcome: 'paid', amount: 1 }]) {
        const res = await t.app.inject({ method: 'POST', url: `/pay/${id}/simulate`, ...json(body) })
        expect(res.statusCode).toBe(400)
        expect(res.json().code).toBe('validation_failed')
      }
      const form = await simulateForm(id, 'outcome=refund')
      expect(form.statusCode).toBe(400)
      expect(form.json().code).toBe('validation_failed')
      expect((await status(id)).status).toBe('pending')
      for (const other of [UNKNOWN, 'nope']) {
        const res = await simulate(other, 'paid')
        expect(res.statusCode).toBe(404)
        expect(res.json().code).toBe('invoice_not_found')
      }
    })

    it('when a form body is sent to any other route, then it is still 415', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/invoices',
        headers: { ...FORM, 'x-api-key': m.apiKey },
        payload: 'order_id=1',
      })
      expect(res.statusCode).toBe(415)
      expect(res.json().code).toBe('unsupported_media_type')
      expect(res.json().detail).toBe('send the body as application/json')
    })

    it('when the test controls get a body that is neither JSON nor a form, then 415 names both types they take', async () => {
      const id = await create()
      const res = await t.app.inject({
        method: 'POST',
        url: `/pay/${id}/simulate`,
        headers: { 'content-type': 'text/plain' },
        payload: 'paid',
      })
      expect(res.statusCode).toBe(415)
      expect(res.json()).toMatchObject({
        code: 'unsupported_media_type',
        detail: 'send the body as application/json or application/x-www-form-urlencoded',
      })
      expect((await status(id)).status).toBe('pending')
    })

    it('when the invoice passes expiry, then the page shows the expired view with the fail_url and no controls', async () => {
      const id = await create()
      t.clock.advance(3600)
      const res = await page(id)
      expect(res.statusCode).toBe(200)
      expect(res.body).toContain('Invoice expired')
      expect(res.body).toContain(`href="${FAIL}"`)
      expect(forms(res.body)).toEqual([])
      expect(res.body).not.toContain('data-qr')
      expect(await status(id)).toEqual(expect.objectContaining({ status: 'expired', redirect_url: FAIL }))
      expect((await simulate(id, 'paid')).statusCode).toBe(409)
    })

    it('when an invoice has no return URLs, then the final view has no back link', async () => {
      const id = await create({ success_url: undefined, fail_url: undefined, comment: undefined })
      await simulate(id, 'paid')
      const body = (await page(id)).body
      expect(body).toContain('Payment received')
      expect(body).not.toContain('data-back')
      expect(body).not.toContain('data-comment')
    })

    it('when the page assets are fetched, then they come with their type and a year of immutable caching', async () => {
      const body = (await page(await create())).body
      const urls = [...body.matchAll(/(?:src|href)="(\/pay\/assets\/[^"]+)"/g)].map((x) => x[1] ?? '')
      expect(urls).toHaveLength(2)
      for (const url of urls) {
        const res = await t.app.inject({ url })
        expect(res.statusCode).toBe(200)
        expect(res.headers['content-type']).toMatch(url.endsWith('.css') ? /^text\/css/ : /^text\/javascript/)
        expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable')
      }
      expect((await t.app.inject({ url: '/pay/assets/evil.js' })).statusCode).toBe(404)
    })

    it('when /openapi.json is read, then the payment routes are documented as public', async () => {
      const doc = (await t.app.inject({ url: '/openapi.json' })).json()
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
      const res = await simulate(id, 'paid')
      expect(res.statusCode).toBe(404)
      expect(res.json().code).toBe('not_found')
      const body = (await page(id)).body
      expect(body).toContain('Awaiting payment')
      expect(body).not.toContain('TEST MODE')
      expect(forms(body)).toEqual([])
      expect((await status(id)).status).toBe('pending')
    })
  })
})
