// Driver for bench/instructions.mjs: POST /api/v1/invoices through the whole app (routing, authentication, rate
// limit, validation, the create use case, an in-memory SQLite insert, the answer with its QR image), by
// app.inject — no sockets, so the count is the service's own work. INSTR_N creates after INSTR_WARMUP (1000) of warm-up, each a
// new order_id.
//
//   node bench/drivers/create-invoice.mjs [dist directory; default dist/]
// With TIME=1 it prints the CPU and wall time per create of the measured loop.
// Comparing two versions: build each, then run this driver against each one's dist/ (a paired measurement).
import { benchApp, measure } from './inject-app.mjs'

const { rt, app, apiKey } = await benchApp(process.argv[2])
let order = 0
const create = () =>
  app.inject({
    method: 'POST',
    url: '/api/v1/invoices',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    payload: `{"order_id":"B-${(order += 1)}","amount":"100.50","currency":"RUB","service":"card"}`,
  })
await measure(rt, {
  operation: create,
  status: 201,
  warmup: Number(process.env.INSTR_WARMUP ?? 1000),
  unit: 'create',
  counted: 'creates',
})
