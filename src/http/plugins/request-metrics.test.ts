import { Counter, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { HTTP_DURATION_BUCKETS } from './metrics.js'
import { RequestMetrics } from './request-metrics.js'

const BUCKETS = [...HTTP_DURATION_BUCKETS]

/** prom-client's own counter and histogram, configured as the service's were before request-metrics.ts. */
function reference() {
  const registry = new Registry()
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route'] as const,
    buckets: BUCKETS,
    registers: [registry],
  })
  const record = (method: string, route: string, status: number, ms: number) => {
    requests.labels(method, route, String(status)).inc()
    duration.labels(method, route).observe(ms / 1000)
  }
  return { registry, record }
}

function ours() {
  const registry = new Registry()
  const metrics = new RequestMetrics(registry, BUCKETS)
  const record = (method: string, route: string, status: number, ms: number) =>
    metrics.recorder(method, route, status)(ms)
  return { registry, record, metrics }
}

/** Ours and prom-client's own, each having recorded every one of ANSWERS. */
function bothAnswered() {
  const a = ours()
  const b = reference()
  for (const answer of ANSWERS) {
    a.record(...answer)
    b.record(...answer)
  }
  return [a, b] as const
}

type Answer = readonly [method: string, route: string, status: number, ms: number]
const ANSWERS: readonly Answer[] = [
  ['GET', '/api/invoice/getInfo', 200, 0.42],
  ['POST', '/api/v1/invoices', 201, 3.1],
  ['GET', '/api/invoice/getInfo', 404, 0.5], // exactly on the first bound
  ['GET', '/api/invoice/getInfo', 200, 0],
  ['POST', '/api/v1/invoices', 201, 2500], // exactly on the last bound
  ['POST', '/api/v1/invoices', 201, 4000], // above every bound: +Inf only
  ['GET', 'unmatched', 404, 1.25],
  ['GET', '/api/invoice/getInfo', 200, 17.7],
  ['POST', '/api/v1/invoices', 200, 9.99], // the same route, another status: the histogram's series is shared
]

describe("the request metrics (plugins/request-metrics.ts: prom-client's text, without its per-call label work)", () => {
  it("when the same answers are recorded, then /metrics is prom-client's own text, and so is its JSON", async () => {
    const [a, b] = bothAnswered()
    expect(await a.registry.metrics()).toBe(await b.registry.metrics())
    expect(await a.registry.getMetricsAsJSON()).toEqual(await b.registry.getMetricsAsJSON())
    expect(await a.registry.metrics()).toMatch(
      /http_requests_total\{method="GET",route="\/api\/invoice\/getInfo",status_code="200"\} 3/,
    )
  })

  it('when answers arrive between two scrapes, then each scrape counts every answer once', async () => {
    const a = ours()
    const b = reference()
    for (const [i, answer] of ANSWERS.entries()) {
      a.record(...answer)
      b.record(...answer)
      if (i % 3 === 0) expect(await a.registry.metrics()).toBe(await b.registry.metrics())
    }
    for (let i = 0; i < 1000; i++) {
      a.record('GET', '/api/invoice/getInfo', 200, (i % 40) / 10)
      b.record('GET', '/api/invoice/getInfo', 200, (i % 40) / 10)
    }
    expect(await a.registry.metrics()).toBe(await b.registry.metrics())
    expect(await a.registry.metrics()).toBe(await b.registry.metrics())
  })

  it('when a series has a recorder but no answer yet, then it is not shown; from its first answer on it is', async () => {
    const a = ours()
    const record = a.metrics.recorder('GET', '/api/invoice/getInfo', 200)
    expect(await a.registry.metrics()).not.toContain('getInfo')
    record(1)
    expect(await a.registry.metrics()).toContain(
      'http_request_duration_seconds_count{method="GET",route="/api/invoice/getInfo"} 1',
    )
    // the same series whoever asks for its recorder
    expect(a.metrics.recorder('GET', '/api/invoice/getInfo', 200)).toBe(record)
  })

  it('when the registry is reset, then both start from nothing, and the recorders kept count on', async () => {
    const [a, b] = bothAnswered()
    await a.registry.metrics()
    a.registry.resetMetrics()
    b.registry.resetMetrics()
    expect(await a.registry.metrics()).toBe(await b.registry.metrics())
    a.record('GET', '/api/invoice/getInfo', 200, 2)
    b.record('GET', '/api/invoice/getInfo', 200, 2)
    expect(await a.registry.metrics()).toBe(await b.registry.metrics())
  })

  it('when a time is not a number, then the answer is counted and the histogram is left as it was', async () => {
    const a = ours()
    a.record('GET', '/x', 200, Number.NaN)
    const text = await a.registry.metrics()
    expect(text).toContain('http_requests_total{method="GET",route="/x",status_code="200"} 1')
    expect(text).not.toContain('http_request_duration_seconds_count{method="GET",route="/x"}')
  })
})
