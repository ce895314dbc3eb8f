/**
 * The operator console (docs/dashboard.md#operator-console): merchants (create, disable / enable, their keys, users
 * and fees), any invoice by id or order_id, and the health of the queues. Operators only: anyone else gets 404.
 * Thin: the use cases are the admin API's (accounts, users) and the console's reads.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../../../domain/errors.js'
import type { ProviderNotificationStats } from '../../../ports/provider-metrics.js'
import type { DashboardContext } from '../context.js'
import { fieldOf, queryOf } from '../context.js'
import { appPage } from '../shell.js'
import { CONSOLE_STRINGS } from '../strings/console.js'
import { healthContent } from './console-health-views.js'
import { invoiceContent, invoicesContent } from './console-invoice-views.js'
import { merchantContent, merchantsContent } from './console-merchant-views.js'
import { homeContent } from './console-views.js'

type IdParams = { Params: { id: string } }
const hide = { schema: { hide: true } }

/** A validation error's field messages, as the page shows them. */
function fieldMessages(err: AppError): string {
  return err.errors?.map((e) => `${e.field}: ${e.message}`).join('; ') ?? err.message
}

export async function consolePages(scope: FastifyInstance, ctx: DashboardContext): Promise<void> {
  const { deps, pageOf, send, redirect, adminPage, adminPost } = ctx
  const c = deps.console
  const texts = (request: FastifyRequest) => CONSOLE_STRINGS[pageOf(request).lang]
  const merchantNames = async () =>
    new Map((await c.listMerchants()).merchants.map((s) => [s.merchant.id, s.merchant.name]))
  /** The configured acquirers, each with what this instance counted (none yet: zeros, never). */
  const providerStats = (): ProviderNotificationStats[] => {
    const seen = new Map(deps.providerMetrics.snapshot().map((s) => [s.provider, s]))
    const names = [...new Set([...deps.notifiers, ...seen.keys()])].sort()
    return names.map(
      (provider) => seen.get(provider) ?? { provider, accepted: 0, refused: 0, unknown: 0, lastAcceptedAt: null },
    )
  }

  scope.get('/dashboard/console', hide, async (request, reply) => {
    const who = await adminPage(request, reply)
    if (who === undefined) return reply
    const p = pageOf(request)
    const [list, health] = await Promise.all([c.listMerchants(), c.health()])
    return send(reply, 200, appPage(p, who, 'console', texts(request).console, homeContent(p, list.merchants, health)))
  })

  scope.get('/dashboard/console/merchants', hide, async (request, reply) => {
    const who = await adminPage(request, reply)
    if (who === undefined) return reply
    const p = pageOf(request)
    const t = texts(request)
    const done = queryOf(request, 'done')
    const list = await c.listMerchants()
    const content = merchantsContent(p, {
      ...list,
      csrf: who.session.csrfToken,
      ...(done === 'disabled' && { notice: t.disabledNotice }),
      ...(done === 'enabled' && { notice: t.enabledNotice }),
    })
    return send(reply, 200, appPage(p, who, 'console', t.merchants, content))
  })

  scope.post('/dashboard/console/merchants', hide, async (request, reply) => {
    const who = await adminPost(request)
    const p = pageOf(request)
    const t = texts(request)
    const name = fieldOf(request.body, 'name')
    const service = fieldOf(request.body, 'default_service')
    try {
      const created = await deps.accounts.createMerchant({ name, ...(service !== '' && { defaultService: service }) })
      const list = await c.listMerchants()
      const content = merchantsContent(p, { ...list, csrf: who.session.csrfToken, created })
      return send(reply, 201, appPage(p, who, 'console', t.merchants, content))
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err
      const list = await c.listMerchants()
      const content = merchantsContent(p, { ...list, csrf: who.session.csrfToken, error: fieldMessages(err), name })
      return send(reply, 400, appPage(p, who, 'console', t.merchants, content))
    }
  })

  for (const action of ['disable', 'enable'] as const) {
    scope.post<IdParams>(`/dashboard/console/merchants/:id/${action}`, hide, async (request, reply) => {
      await adminPost(request)
      const merchant = await deps.accounts.setMerchantStatus(
        request.params.id,
        action === 'disable' ? 'disabled' : 'active',
      )
      const done = `done=${action}d`
      const lang = pageOf(request).langChosen === true ? `&lang=${pageOf(request).lang}` : ''
      return fieldOf(request.body, 'from') === 'merchant'
        ? redirect(reply, `/dashboard/console/merchants/${merchant.id}?${done}${lang}`)
        : redirect(reply, `/dashboard/console/merchants?${done}${lang}`)
    })
  }

  scope.get<IdParams>('/dashboard/console/merchants/:id', hide, async (request, reply) => {
    const who = await adminPage(request, reply)
    if (who === undefined) return reply
    const p = pageOf(request)
    const t = texts(request)
    const details = await c.merchant(request.params.id)
    const done = queryOf(request, 'done')
    const content = merchantContent(p, details, {
      csrf: who.session.csrfToken,
      now: deps.now(),
      ...(done === 'disabled' && { notice: t.disabledNotice }),
      ...(done === 'enabled' && { notice: t.enabledNotice }),
    })
    return send(reply, 200, appPage(p, who, 'console', details.merchant.name, content))
  })

  scope.post<IdParams>('/dashboard/console/merchants/:id/users', hide, async (request, reply) => {
    const who = await adminPost(request)
    const p = pageOf(request)
    const merchantId = (await c.merchant(request.params.id)).merchant.id
    const render = async (status: number, extra: { invited?: string; error?: string }) => {
      // read after the invitation: the new user is in the list
      const details = await c.merchant(merchantId)
      const content = merchantContent(p, details, { csrf: who.session.csrfToken, now: deps.now(), ...extra })
      return send(reply, status, appPage(p, who, 'console', details.merchant.name, content))
    }
    try {
      const role = fieldOf(request.body, 'role')
      const link = await deps.users.invite({
        merchantId,
        email: fieldOf(request.body, 'email'),
        ...(role !== '' && { role }),
      })
      return await render(201, { invited: link.url })
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err
      return render(400, { error: fieldMessages(err) })
    }
  })

  scope.get('/dashboard/console/invoices', hide, async (request, reply) => {
    const who = await adminPage(request, reply)
    if (who === undefined) return reply
    const p = pageOf(request)
    const q = queryOf(request, 'q')
    const found = q.trim() === '' ? undefined : await c.findInvoices(q)
    const names = found === undefined || found.length === 0 ? new Map<string, string>() : await merchantNames()
    const content = invoicesContent(p, { q, found, names, now: deps.now() })
    return send(reply, 200, appPage(p, who, 'console', texts(request).invoices, content))
  })

  scope.get<IdParams>('/dashboard/console/invoices/:id', hide, async (request, reply) => {
    const who = await adminPage(request, reply)
    if (who === undefined) return reply
    const p = pageOf(request)
    const record = await c.invoice(request.params.id)
    const title = `${texts(request).invoice} ${record.invoice.orderId}`
    return send(reply, 200, appPage(p, who, 'console', title, invoiceContent(p, record, deps.now())))
  })

  scope.get('/dashboard/console/health', hide, async (request, reply) => {
    const who = await adminPage(request, reply)
    if (who === undefined) return reply
    const p = pageOf(request)
    const health = await c.health()
    const names = health.deliveries.failingEndpoints.length === 0 ? new Map<string, string>() : await merchantNames()
    const content = healthContent(p, health, { providers: providerStats(), names })
    return send(reply, 200, appPage(p, who, 'console', texts(request).health, content))
  })
}
