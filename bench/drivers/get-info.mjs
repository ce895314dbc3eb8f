// Driver for bench/instructions.mjs: GET /api/invoice/getInfo through the whole app (routing, authentication, rate
// limit, query validation, the getInfo use case, an in-memory SQLite read, the answer's view, headers, access log and
// metrics), by app.inject — no sockets, so the count is the service's own work. 200 invoices made by creates first,
// then INSTR_N reads (round robin over them) after INSTR_WARMUP (2000) of warm-up.
//
//   node bench/drivers/get-info.mjs [dist directory; default dist/]
// With TIME=1 it prints the CPU and wall time per getInfo of the measured loop.
// Comparing two versions: build each, then run this driver against each one's dist/ (a paired measurement).
import { benchApp, measureGetInfo, seedGetInfoPaths } from './inject-app.mjs'

const { rt, app, apiKey, merchantId } = await benchApp(process.argv[2])
const urls = await seedGetInfoPaths(app, apiKey, merchantId)
let i = 0
const getInfo = () => app.inject({ method: 'GET', url: urls[i++ % 200], headers: { 'x-api-key': apiKey } })
await measureGetInfo(rt, getInfo)
