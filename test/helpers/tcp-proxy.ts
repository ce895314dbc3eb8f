/** TCP tools for outage tests: a port nobody listens on, and a forwarder that can cut its links, stop, or go silent. */
import { connect, createServer, type Server, type Socket } from 'node:net'

/** `url` pointing at 127.0.0.1:`port` instead. */
export function urlWithPort(url: string, port: number): string {
  const u = new URL(url)
  u.hostname = '127.0.0.1'
  u.port = String(port)
  return u.toString()
}

/** A local port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const { port } = srv.address() as { port: number }
  await new Promise((r) => srv.close(r))
  return port
}

export interface TcpProxy {
  /** `target` with its host and port replaced by the proxy's. */
  readonly url: string
  /** Listens again, on the same port. */
  start(): Promise<void>
  /** Cuts every open link (the server "drops" its connections). */
  dropAll(): void
  /** Stops listening and cuts every link. */
  stop(): Promise<void>
  /** Keeps every link, old and new, open but silent: nothing is forwarded (a peer that stopped answering). */
  freeze(): void
  /** Forwards again what was held back and what follows. */
  thaw(): void
  /** What clients sent through the proxy so far (recorded only when started with `{ record: true }`). */
  sent(): Buffer
}

/** A TCP forwarder on 127.0.0.1 to the host and port of `target` (a URL). */
export async function startProxy(target: string, opts: { record?: boolean } = {}): Promise<TcpProxy> {
  const t = new URL(target)
  const targetHost = t.hostname
  const targetPort = Number(t.port || 5432)
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  let frozen = false
  const recorded: Buffer[] = []
  const dropAll = (): void => {
    for (const s of sockets) s.destroy()
  }
  const start = async (): Promise<void> => {
    const srv = createServer((client) => {
      const upstream = connect(targetPort, targetHost)
      for (const s of [client, upstream]) {
        if (frozen) s.pause()
        sockets.add(s)
        s.on('close', () => sockets.delete(s))
        s.on('error', () => {
          client.destroy()
          upstream.destroy()
        })
      }
      if (opts.record === true) client.on('data', (chunk: Buffer) => recorded.push(chunk))
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>((r) => srv.listen(port, '127.0.0.1', r))
    port = (srv.address() as { port: number }).port
    server = srv
  }
  await start()
  return {
    url: urlWithPort(target, port),
    start,
    dropAll,
    freeze() {
      frozen = true
      for (const s of sockets) s.pause()
    },
    thaw() {
      frozen = false
      for (const s of sockets) s.resume()
    },
    sent: () => Buffer.concat(recorded),
    async stop() {
      const srv = server
      server = undefined
      dropAll()
      if (srv !== undefined) await new Promise((r) => srv.close(r))
    },
  }
}
