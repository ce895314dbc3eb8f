import { Counter, Histogram, type Registry } from 'prom-client'

/**
 * `http_requests_total` and `http_request_duration_seconds` (docs/operations.md#metrics): one count and one
 * observation for every answer, so they are kept in plain numbers per series here and prom-client renders them.
 *
 * prom-client's labelled `inc` and `observe` derive the series' key from its labels on every call (the label names
 * sorted, a string built and looked up), even through `labels(…)`: ≈ 0.35 µs of each request
 * (docs/performance.md#the-metrics-of-a-request). Here a series is looked up once, by the recorder, and a request
 * adds to its numbers. What /metrics shows is prom-client's own text for the same numbers: the counter's are
 * added to prom-client's counter when it is collected (its public `collect`); the histogram's values are given to
 * the registry in the shape and order prom-client's Histogram gives them. request-metrics.test.ts compares both
 * with prom-client's own metrics fed the same answers.
 */
export class RequestMetrics {
  readonly #series = new Map<string, Series>()
  readonly #duration: SeriesHistogram

  constructor(registry: Registry, buckets: readonly number[]) {
    const all = this.#series
    new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      registers: [registry],
      collect() {
        for (const s of all.values()) {
          if (s.uncounted === 0) continue
          this.inc(s.counterLabels, s.uncounted)
          s.uncounted = 0
        }
      },
    })
    this.#duration = new SeriesHistogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route'] as const,
      buckets: [...buckets],
      registers: [registry],
    })
  }

  /**
   * What counts an answer of this method, route and status and observes its time in ms: made once per series (a
   * map lookup for a caller that does not keep it, as the framework's hook).
   */
  recorder(method: string, route: string, statusCode: number): (ms: number) => void {
    const key = `${method} ${statusCode} ${route}`
    const known = this.#series.get(key)
    if (known !== undefined) return known.record
    const counted: Series = {
      counterLabels: { method, route, status_code: String(statusCode) },
      uncounted: 0,
      record: (ms) => {
        counted.uncounted += 1
        const seconds = ms / 1000
        if (!Number.isFinite(seconds)) return
        observed.sum += seconds
        observed.count += 1
        // the first bucket whose upper bound takes it (none: only +Inf, which is the count)
        for (let i = 0; i < bounds.length; i++) {
          if (seconds <= (bounds[i] as number)) {
            observed.buckets[i] = (observed.buckets[i] as number) + 1
            break
          }
        }
      },
    }
    const observed = this.#duration.series(method, route)
    const bounds = this.#duration.bounds
    this.#series.set(key, counted)
    return counted.record
  }
}

interface Series {
  readonly counterLabels: { readonly method: string; readonly route: string; readonly status_code: string }
  /** Answers not yet added to prom-client's counter. */
  uncounted: number
  readonly record: (ms: number) => void
}

interface Observed {
  readonly labels: { readonly method: string; readonly route: string }
  /** Observations per bucket (not cumulative), in the order of the bounds. */
  readonly buckets: number[]
  sum: number
  count: number
}

type HistogramConfig = ConstructorParameters<typeof Histogram<'method' | 'route'>>[0]

/** prom-client's Histogram, its series kept as `Observed` numbers (see RequestMetrics). */
class SeriesHistogram extends Histogram<'method' | 'route'> {
  readonly bounds: readonly number[]
  readonly #name: string
  // not a #private field: prom-client's constructor calls reset() before the fields of a subclass exist
  private readonly observed: Map<string, Observed> | undefined = new Map<string, Observed>()

  constructor(config: HistogramConfig) {
    super(config)
    this.#name = config.name
    this.bounds = [...(config.buckets ?? [])]
  }

  series(method: string, route: string): Observed {
    const key = `${method} ${route}`
    let o = this.observed?.get(key)
    if (o === undefined) {
      o = { labels: { method, route }, buckets: this.bounds.map(() => 0), sum: 0, count: 0 }
      this.observed?.set(key, o)
    }
    return o
  }

  /**
   * The values prom-client's Histogram gives the registry (which asks for them by this name; `get` too): per
   * series its buckets, +Inf, sum and count.
   */
  async getForPromString(): Promise<Exported> {
    const base = (Histogram.prototype as unknown as { getForPromString(): Promise<Exported> }).getForPromString
    const own = await base.call(this)
    const name = this.#name
    const values = [...own.values]
    for (const o of this.observed?.values() ?? []) {
      if (o.count === 0) continue
      let cumulative = 0
      for (const [i, le] of this.bounds.entries()) {
        cumulative += o.buckets[i] as number
        values.push(value({ le }, cumulative, `${name}_bucket`, null, o.labels))
      }
      values.push(value({ le: '+Inf' }, o.count, `${name}_bucket`, null, o.labels))
      values.push(value({}, o.sum, `${name}_sum`, undefined, o.labels))
      values.push(value({}, o.count, `${name}_count`, undefined, o.labels))
    }
    return { ...own, values }
  }

  override reset(): void {
    super.reset()
    // the recorders hold their series: they are emptied, not dropped
    for (const o of this.observed?.values() ?? []) {
      o.buckets.fill(0)
      o.sum = 0
      o.count = 0
    }
  }
}

/** What prom-client's Histogram gives the registry (not in its type declarations). */
interface Exported {
  readonly values: readonly ExportedValue[]
  readonly [other: string]: unknown
}

interface ExportedValue {
  readonly labels: Record<string, string | number>
  readonly sharedLabels: Record<string, string>
  readonly value: number
  readonly metricName: string
  readonly exemplar: null | undefined
}

/** One exported value, as prom-client's Histogram makes it (its `setValuePair`). */
function value(
  labels: Record<string, string | number>,
  v: number,
  metricName: string,
  exemplar: null | undefined,
  sharedLabels: Record<string, string>,
): ExportedValue {
  return { labels, sharedLabels: { ...sharedLabels }, value: v, metricName, exemplar }
}
