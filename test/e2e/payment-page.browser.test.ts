import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PNG } from 'pngjs'
import { createServer as createHttpServer, request as httpRequest, type Server as HttpServer } from 'node:http'
import { createServer } from 'node:net'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserSkipReason, launchBrowser, seriousViolations } from '../helpers/browser.js'
import { api, expectStatus } from '../helpers/api.js'
import { buildTestApp, type TestApp, type TestMerchant } from '../helpers/build-test-app.js'
import { decodeQrPng } from '../helpers/decode-qr.js'
import { freePort } from '../helpers/free-port.js'

const UPDATE_SCREENSHOTS = process.env['UPDATE_SCREENSHOTS'] === '1'
const SUCCESS = 'https://shop.example/thanks'
// A phone: the page is designed mobile-first.
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, timezoneId: 'UTC' }

describe.skipIf(browserSkipReason !== undefined)('payment page in a real browser (docs/payment-page.md)', () => {
  let t: TestApp
  let m: TestMerchant
  let browser: Browser
  let n = 0

  beforeAll(async () => {
    // The QR and pay_url carry PUBLIC_URL, so the app must know its real origin before it listens.
    const port = await freePort()
    t = await buildTestApp({ PUBLIC_URL: `http://127.0.0.1:${port}` })
    await t.app.listen({ port, host: '127.0.0.1' })
    m = await t.merchant('Blue Mug Coffee Roasters')
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  const create = async (): Promise<{ id: string; payUrl: string }> => {
    n += 1
    const res = await api(t)
      .as(m)
      .createInvoice({
        order_id: `E2E-${n}`,
        amount: '1234.50',
        currency: 'RUB',
        comment: 'Ethiopia Yirgacheffe, 1 kg, whole beans',
        success_url: SUCCESS,
        fail_url: 'https://shop.example/cart',
      })
    expectStatus(res, 201)
    return { id: res.body.order_id, payUrl: res.body.pay_url }
  }
  const info = async (id: string) => {
    const res = await api(t).as(m).getInvoice(id)
    expectStatus(res, 200)
    return res.body
  }

  /** A page in a fresh context; CSP violations and script errors are collected, since the page must have none. */
  const open = async (url: string, options: BrowserContextOptions = {}): Promise<{ page: Page; errors: string[] }> => {
    const context = await browser.newContext({ ...PHONE, ...options })
    const page = await context.newPage()
    const errors: string[] = []
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text())
    })
    page.on('pageerror', (err) => errors.push(err.message))
    await page.goto(url)
    return { page, errors }
  }

  const qrLoaded = async (page: Page) => {
    const qr = page.locator('img[data-qr]')
    await expect
      .poll(() => qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0)
    return qr
  }

  it('when the buyer opens pay_url, reads the QR and clicks Pay, then the page shows paid without reloading', async () => {
    const { id, payUrl } = await create()
    const { page, errors } = await open(payUrl, { locale: 'en-US' })
    expect(await page.getAttribute('html', 'lang')).toBe('en')
    expect((await page.locator('.amount').textContent())?.replace(/\s/g, ' ')).toBe('RUB 1,234.50')
    await page.getByRole('heading', { name: 'Awaiting payment' }).waitFor()

    expect(decodeQrPng(await (await qrLoaded(page)).screenshot())).toBe((await info(id)).qr_data)

    // A reload would lose this marker and fire a main-frame navigation.
    await page.evaluate(() => {
      ;(globalThis as Record<string, unknown>)['paymentPageMarker'] = 'still here'
    })
    let navigations = 0
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations += 1
    })
    await page.getByRole('button', { name: 'Pay', exact: true }).click()
    await page.getByRole('heading', { name: 'Payment received' }).waitFor()

    expect(await page.evaluate(() => (globalThis as Record<string, unknown>)['paymentPageMarker'])).toBe('still here')
    expect(navigations).toBe(0)
    expect(await page.getByRole('link', { name: 'Return to the shop' }).getAttribute('href')).toBe(SUCCESS)
    expect(await page.getByRole('button').count()).toBe(0)
    expect(await page.title()).toMatch(/^Payment received/)
    expect((await info(id)).status).toBe('paid')
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('when the page is opened at another address of the server than PUBLIC_URL, then Pay still works', async () => {
    // PUBLIC_URL names 127.0.0.1; localhost is the same server, and a different origin to the browser
    const { id, payUrl } = await create()
    const { page, errors } = await open(payUrl.replace('//127.0.0.1:', '//localhost:'))
    await page.getByRole('button', { name: 'Pay', exact: true }).click()
    await page.getByRole('heading', { name: 'Payment received' }).waitFor()
    expect((await info(id)).status).toBe('paid')
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('when a test button is refused, then the page says why and keeps its buttons', async () => {
    const { id, payUrl } = await create()
    const { page } = await open(payUrl)
    // the refusal a busy service gives (only this answer is replaced; the page and its assets are real)
    await page.route('**/simulate', (route) =>
      route.fulfill({
        status: 429,
        contentType: 'application/problem+json',
        body: JSON.stringify({ code: 'rate_limited', detail: 'too many requests; retry in 1 s' }),
      }),
    )
    await page.getByRole('button', { name: 'Pay', exact: true }).click()
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('The test payment was not sent: too many requests; retry in 1 s')
    expect(await page.getByRole('button', { name: 'Pay', exact: true }).isEnabled()).toBe(true)
    expect((await info(id)).status).toBe('pending')
    await page.context().close()
  })

  it('when a test button gets no answer (the connection dropped), then the page says so and keeps its buttons', async () => {
    const { id, payUrl } = await create()
    const { page } = await open(payUrl)
    await page.route('**/simulate', (route) => route.abort('internetdisconnected'))
    await page.getByRole('button', { name: 'Pay', exact: true }).click()
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('The test payment was not sent: no answer from the payment service; check the connection and try again')
    expect(await page.getByRole('button', { name: 'Pay', exact: true }).isEnabled()).toBe(true)
    expect((await info(id)).status).toBe('pending')
    await page.context().close()
  })

  it('when the comment has line breaks, then the page shows them', async () => {
    const res = await api(t)
      .as(m)
      .createInvoice({
        order_id: `E2E-LINES-${(n += 1)}`,
        amount: '5.00',
        currency: 'RUB',
        comment: 'Ethiopia Yirgacheffe, 1 kg\nKenya AA, 250 g',
      })
    expectStatus(res, 201)
    const { page } = await open(res.body.pay_url)
    expect(await page.locator('[data-comment]').innerText()).toBe('Ethiopia Yirgacheffe, 1 kg\nKenya AA, 250 g')
    await page.context().close()
  })

  it('when the status changes elsewhere, then the open page follows it by polling', async () => {
    const { id, payUrl } = await create()
    const { page, errors } = await open(payUrl)
    const simulate = (outcome: 'paid' | 'hold' | 'failed') => api(t).simulate(id, { outcome })
    expectStatus(await simulate('hold'), 200)
    await page.getByRole('heading', { name: 'Payment authorised' }).waitFor({ timeout: 10_000 })
    expect(await page.getByRole('button', { name: 'Hold' }).count()).toBe(0)
    expectStatus(await simulate('failed'), 200)
    await page.getByRole('heading', { name: 'Payment declined' }).waitFor({ timeout: 10_000 })
    expect(await page.getByRole('link', { name: 'Return to the shop' }).getAttribute('href')).toBe(
      'https://shop.example/cart',
    )
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('when JavaScript is off, then the test controls still work through a form post and a redirect back', async () => {
    const { id, payUrl } = await create()
    const { page, errors } = await open(`${payUrl}?lang=ru`, { javaScriptEnabled: false })
    await page.getByRole('button', { name: 'Удержать' }).click()
    await page.waitForURL(`${payUrl}?lang=ru`)
    await page.getByRole('heading', { name: 'Платёж авторизован' }).waitFor()
    expect(await page.getByRole('link', { name: 'Обновить статус' }).count()).toBe(1)
    expect((await info(id)).status).toBe('hold')
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('when the buyer reads Russian, then the page and its journey are in Russian', async () => {
    const { payUrl } = await create()
    const { page, errors } = await open(`${payUrl}?lang=ru`)
    expect(await page.getAttribute('html', 'lang')).toBe('ru')
    expect((await page.locator('.amount').textContent())?.replace(/\s/g, ' ')).toBe('1 234,50 ₽')
    await page.getByRole('heading', { name: 'Ожидает оплаты' }).waitFor()
    await page.getByRole('button', { name: 'Оплатить' }).click()
    await page.getByRole('heading', { name: 'Оплата получена' }).waitFor()
    expect(await page.getAttribute('html', 'lang')).toBe('ru')
    expect(await page.getByRole('link', { name: 'Вернуться в магазин' }).count()).toBe(1)
    expect(errors).toEqual([])
    await page.context().close()

    // without ?lang, the browser's own language decides
    const byHeader = await open(payUrl, { locale: 'ru-RU' })
    expect(await byHeader.page.getAttribute('html', 'lang')).toBe('ru')
    await byHeader.page.context().close()
  })

  it('when axe-core checks the pending (en, ru), paid and not-found views, then nothing serious or critical is found', async () => {
    const { id, payUrl } = await create()
    // addScriptTag injects an inline script, which the page's own CSP rightly refuses: bypass it for axe only.
    const views: [string, string][] = [
      ['pending en', payUrl],
      ['pending ru', `${payUrl}?lang=ru`],
      ['not found', `${payUrl.replace(id, '00000000-0000-7000-8000-000000000000')}`],
    ]
    for (const [name, url] of views) {
      const { page } = await open(url, { bypassCSP: true })
      expect({ name, violations: await seriousViolations(page) }).toEqual({ name, violations: [] })
      await page.context().close()
    }
    const { page } = await open(payUrl, { bypassCSP: true })
    await page.getByRole('button', { name: 'Pay', exact: true }).click()
    await page.getByRole('heading', { name: 'Payment received' }).waitFor()
    expect({ name: 'paid', violations: await seriousViolations(page) }).toEqual({ name: 'paid', violations: [] })
    await page.context().close()
  })

  it('when a phone opens the page, then it renders full-page screenshots (written to docs/ with UPDATE_SCREENSHOTS=1)', async () => {
    // Always rendered, so a page that no longer renders fails here; docs/ is only rewritten on request.
    const dir = UPDATE_SCREENSHOTS ? 'docs' : mkdtempSync(join(tmpdir(), 'pay-shots-'))
    mkdirSync(dir, { recursive: true })
    const { payUrl } = await create()
    const shot = { fullPage: true, animations: 'disabled' } as const
    const written: Buffer[] = []
    for (const lang of ['en', 'ru']) {
      const { page } = await open(`${payUrl}?lang=${lang}`)
      await qrLoaded(page)
      written.push(await page.screenshot({ ...shot, path: join(dir, `payment-page-${lang}.png`) }))
      await page.context().close()
    }
    const { page } = await open(`${payUrl}?lang=en`)
    await page.getByRole('button', { name: 'Pay', exact: true }).click()
    await page.getByRole('heading', { name: 'Payment received' }).waitFor()
    written.push(await page.screenshot({ ...shot, path: join(dir, 'payment-page-paid-en.png') }))
    await page.context().close()
    for (const png of written) {
      const img = PNG.sync.read(png)
      expect(img.width).toBe(390)
      expect(img.height).toBeGreaterThan(600)
    }
  })
})

describe.skipIf(browserSkipReason !== undefined)(
  'payment page behind a reverse proxy that serves it under a path',
  () => {
    let t: TestApp
    let m: TestMerchant
    let browser: Browser
    let proxy: HttpServer
    const seen: string[] = []

    beforeAll(async () => {
      // PUBLIC_URL is the proxy's, with a path; the proxy strips it and forwards to the service at its root
      const proxyPort = await freePort()
      t = await buildTestApp({ PUBLIC_URL: `http://127.0.0.1:${proxyPort}/payments` })
      const servicePort = await t.listen()
      proxy = createHttpServer((req, res) => {
        seen.push(req.url ?? '')
        if (!(req.url ?? '').startsWith('/payments/')) {
          res.writeHead(404).end('not under /payments')
          return
        }
        const upstream = httpRequest(
          {
            host: '127.0.0.1',
            port: servicePort,
            method: req.method,
            path: (req.url ?? '').slice('/payments'.length),
            headers: req.headers,
          },
          (answer) => {
            if ((answer.statusCode ?? 502) >= 400) seen.push(`answered ${answer.statusCode}: ${req.url}`)
            res.writeHead(answer.statusCode ?? 502, answer.headers)
            answer.pipe(res)
          },
        )
        req.pipe(upstream)
      })
      await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', resolve))
      m = await t.merchant('Blue Mug Coffee Roasters')
      browser = await launchBrowser()
    })
    afterAll(async () => {
      await browser?.close()
      await new Promise((resolve) => proxy?.close(resolve))
      await t?.close()
    })

    it('when the buyer opens pay_url through the proxy, then its assets, QR, status feed and test controls all go through the proxy', async () => {
      const res = await api(t).as(m).createInvoice({ order_id: 'PX-1', amount: '10.00', currency: 'RUB' })
      expectStatus(res, 201)
      const { order_id: id, pay_url: payUrl } = res.body
      expect(payUrl).toMatch(/\/payments\/pay\//)
      const context = await browser.newContext(PHONE)
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', (err) => errors.push(err.message))
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(msg.text())
      })
      await page.goto(payUrl)
      const qr = page.locator('img[data-qr]')
      await expect
        .poll(() => qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
        .toBeGreaterThan(0)
      await page.getByRole('button', { name: 'Pay', exact: true }).click()
      await page.getByRole('heading', { name: 'Payment received' }).waitFor()
      const paid = await api(t).as(m).getInvoice(id)
      expectStatus(paid, 200)
      expect(paid.body.status).toBe('paid')
      expect(errors).toEqual([])
      // every request the page made reached the proxy under its path
      expect(seen.length).toBeGreaterThanOrEqual(4)
      expect(seen.filter((u) => !u.startsWith('/payments/'))).toEqual([])
      expect(
        seen
          .filter((u) => u.startsWith('/payments/pay/assets/'))
          .map((u) => u.split('.').at(-1))
          .sort(),
      ).toEqual(['css', 'js'])
      expect(seen.some((u) => u.startsWith(`/payments/qr/${id}.png`))).toBe(true)
      expect(seen.some((u) => u === `/payments/pay/${id}/simulate`)).toBe(true)
      await context.close()
    })
  },
)
