// Driver for bench/instructions.mjs: GET /api/invoice/getInfo over a real socket to the app listening on 127.0.0.1,
// from a keep-alive client in the same process, one request at a time — the path a deployed service takes (the
// server's request listener, getInfo's fast path where the build has it), where get-info.mjs's app.inject goes to
// the framework alone. The count includes the client's own work and the loopback's, the same for every build, so
// compare builds by their difference. 200 invoices made by creates first, then INSTR_N reads (round robin) after
// INSTR_WARMUP (2000) of warm-up.
//
//   node bench/drivers/get-info-socket.mjs [dist directory; default dist/]
// With TIME=1 it prints the CPU and wall time per getInfo (client and server together) of the measured loop.
import { Agent, request } from 'node:http'
import { benchApp, measureGetInfo, seedGetInfoPaths } from './inject-app.mjs'

const { rt, app, apiKey, merchantId } = await benchApp(process.argv[2])
const paths = await seedGetInfoPaths(app, apiKey, merchantId)
await app.listen({ port: 0, host: '127.0.0.1' })
const { port } = app.server.address()
const agent = new Agent({ keepAlive: true, maxSockets: 1 })
let i = 0
const getInfo = () =>
  new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: paths[i++ % 200], agent, headers: { 'x-api-key': apiKey } },
      (res) => {
        res.resume()
        res.on('end', () => resolve({ statusCode: res.statusCode }))
      },
    )
    req.on('error', reject)
    req.end()
  })
await measureGetInfo(rt, getInfo)
agent.destroy()
