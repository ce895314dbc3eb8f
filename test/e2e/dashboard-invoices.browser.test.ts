/**
 * The invoices pages in Chromium (docs/dashboard.md#invoices): the list → a filter → an invoice → capture a hold,
 * cancel another, refund a paid one, redeliver its webhook → the CSV downloaded and parsed. axe on each page (no
 * serious or critical violation); screenshots docs/dashboard-invoices-en.png and docs/dashboard-invoice-en.png
 * (rewritten with UPDATE_SCREENSHOTS=1).
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DeliveryId } from '../../src/domain/ids.js'
import { api, expectStatus } from '../helpers/api.js'
import { browserSkipReason } from '../helpers/browser.js'
import type { TestApp } from '../helpers/build-test-app.js'
import { signedIn } from '../helpers/dashboard.js'
import { openDashboardBrowser, type DashboardBrowser, DESKTOP } from '../helpers/dashboard-browser.js'

describe.skipIf(browserSkipReason !== undefined)('dashboard invoices in Chromium (docs/dashboard.md#invoices)', () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let d: DashboardBrowser

  beforeAll(async () => {
    d = await openDashboardBrowser({ CALLBACK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' })
    ;({ t, browser, origin } = d)
  })
  afterAll(async () => {
    await d?.close()
  })

  const axe = (context: BrowserContext, url: string) => d.axe(context, url)
  const shot = (page: Page, name: string) => d.shot(page, name)

  it('lists, filters, opens, captures, cancels, refunds, redelivers and downloads the CSV', async () => {
    const m = await t.merchant('Blue Mug Coffee Roasters')
    const shop = api(t).as(m)
    const made: Record<string, string> = {}
    const create = async (order: string, fields: Record<string, unknown> = {}) => {
      const res = await shop.createInvoice({ order_id: order, amount: '24.90', currency: 'EUR', ...fields } as never)
      expectStatus(res, 201)
      made[order] = res.body.order_id // the original API's create names the invoice id `order_id`
      t.clock.advance(97)
    }
    const hook = { callback_url: 'http://127.0.0.1:9/webhooks/payments' }
    for (let i = 1; i <= 8; i += 1)
      await create(`ORD-10${i}`, {
        amount: `${i * 7}.50`,
        currency: i % 3 === 0 ? 'RUB' : 'EUR',
        service: i % 4 === 0 ? 'sbp' : 'card',
      })
    await create('ORD-201', { ...hook, amount: '1250', currency: 'RUB' })
    await create('ORD-202', { ...hook, amount: '89.00', currency: 'USD' })
    await create('ORD-300', { ...hook, amount: '42.00', comment: 'Ethiopia Yirgacheffe, 2 × 250 g' })
    for (const o of ['ORD-201', 'ORD-202']) expectStatus(await api(t).simulate(made[o]!, { outcome: 'hold' }), 200)
    expectStatus(await api(t).simulate(made['ORD-300']!, { outcome: 'paid' }), 200)
    expectStatus(await api(t).simulate(made['ORD-105']!, { outcome: 'failed' }), 200)
    // the paid invoice's webhook: refused once, then answered, as the dispatcher would have recorded it
    const [delivery] = await t.rt.store.deliveries.list({
      merchantId: m.id as never,
      invoiceId: made['ORD-300'] as never,
      limit: 10,
    })
    const at = t.clock.now().getTime()
    for (const [n, code] of [
      [0, 503],
      [5_000, 200],
    ] as const)
      await t.rt.store.transaction((tx) =>
        tx.deliveries.addAttempt(delivery!.id as DeliveryId, {
          id: randomUUID(),
          at: new Date(at + n),
          statusCode: code,
          latencyMs: 84,
          error: code === 200 ? null : 'answered 503',
        }),
      )

    const owner = await signedIn(t, { merchantId: m.id, email: 'owner@bluemug.example' })
    const context = await browser.newContext(DESKTOP)
    await owner.into(context, origin)
    const page = await context.newPage()
    const errors: string[] = []
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text())
    })
    page.on('pageerror', (err) => errors.push(err.message))

    // the list
    await page.goto(`${origin}/dashboard/invoices`)
    await page.getByRole('heading', { name: 'Invoices', level: 1 }).waitFor()
    expect(await page.locator('tbody tr').count()).toBe(11)
    await axe(context, `${origin}/dashboard/invoices`)
    await axe(context, `${origin}/dashboard/invoices?lang=ru`)
    await shot(page, 'dashboard-invoices-en')

    // filter the holds, open one, capture it
    await page.getByLabel('Status').selectOption('hold')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/status=hold/)
    expect(await page.locator('tbody tr').count()).toBe(2)
    await page.getByRole('link', { name: 'ORD-201' }).click()
    await page.getByRole('heading', { name: 'Invoice ORD-201' }).waitFor()
    await axe(context, page.url())
    await page.getByRole('button', { name: 'Capture the hold' }).click()
    await page.getByText('The hold was captured: the invoice is paid.').waitFor()
    expect(await page.locator('.badge').first().textContent()).toBe('paid')

    // the other hold: cancel it
    await page.goto(`${origin}/dashboard/invoices?status=hold`)
    await page.getByRole('link', { name: 'ORD-202' }).click()
    await page.getByRole('button', { name: 'Cancel the hold' }).click()
    await page.getByText('The invoice was cancelled.').waitFor()

    // search the paid one, refund part of it, redeliver its webhook
    await page.goto(`${origin}/dashboard/invoices`)
    await page.getByLabel('Invoice id or order_id').fill('ORD-300')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.getByRole('link', { name: 'ORD-300' }).click()
    await page.getByLabel('Amount (empty: the rest)').fill('12.00')
    await page.getByLabel('Reason (optional)').fill('One bag arrived torn')
    await page.getByRole('button', { name: 'Refund' }).click()
    await page.getByText('The refund was made.').waitFor()
    await page.getByRole('button', { name: 'Redeliver' }).first().click()
    await page.getByText('The webhook is queued to be sent again.').waitFor()
    const invoiceUrl = page.url().replace(/\?.*$/, '')
    await page.goto(invoiceUrl)
    await page.getByText('12.00 EUR').first().waitFor()
    await axe(context, invoiceUrl)
    await shot(page, 'dashboard-invoice-en')

    // the CSV, downloaded as a person would
    await page.goto(`${origin}/dashboard/invoices?currency=EUR`)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ])
    expect(download.suggestedFilename()).toMatch(/^invoices-\d{4}-\d{2}-\d{2}\.csv$/)
    const lines = readFileSync((await download.path())!, 'utf8')
      .trimEnd()
      .split('\r\n')
    expect(lines[0]).toBe(
      'id,order_id,amount,currency,status,service,credited,fee,created_at,paid_at,expires_at,comment',
    )
    const rows = lines.slice(1).map((l) => l.split(','))
    expect(rows).toHaveLength(7)
    expect(rows[0]?.slice(1, 5)).toEqual(['ORD-300', '42.00', 'EUR', 'paid'])
    expect(rows.find((r) => r[1] === 'ORD-105')?.[4]).toBe('failed')
    expect(errors).toEqual([])
    await context.close()
  }, 120_000)
})
