// What `npm run bench` makes of its measurements: each profile's ratio to its floor (the headline) and to the bare
// server, and with BENCH_RUNS > 1 the median of the runs. Pure functions, tested in test/bench/summary.test.ts.

/** The median of numbers (the mean of the middle two for an even count); undefined for none. */
export function median(values) {
  const xs = values.filter((v) => typeof v === 'number' && !Number.isNaN(v)).sort((a, b) => a - b)
  if (xs.length === 0) return undefined
  const mid = xs.length >> 1
  return xs.length % 2 === 1 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2
}

/**
 * One profile's slices (wrk runs of a few seconds each, alternating with the other profiles of its group) as one
 * measurement: req/s over all of them, each latency percentile the median of the slices' (wrk reports percentiles,
 * not its histogram), errors added up. Each slice: `{ requests, seconds, p50_ms, p99_ms, errors }`.
 */
export function combineSlices(slices) {
  const requests = slices.reduce((sum, s) => sum + s.requests, 0)
  const seconds = slices.reduce((sum, s) => sum + s.seconds, 0)
  return {
    rps: requests / seconds,
    requests,
    p50_ms: median(slices.map((s) => s.p50_ms)),
    p99_ms: median(slices.map((s) => s.p99_ms)),
    errors: slices.reduce((sum, s) => sum + s.errors, 0),
  }
}

/**
 * Adds to each result of one run `ratio` (its req/s over the bare server's, the first result) and, for a profile
 * with a `floor` (the key of the floor profile doing its own work without the framework), `ratio_to_floor`.
 */
export function withRatios(results) {
  const limit = results[0]?.rps
  const byKey = new Map(results.map((r) => [r.key, r]))
  return results.map((r) => {
    const floor = r.floor === undefined ? undefined : byKey.get(r.floor)
    return {
      ...r,
      ratio: limit === undefined ? undefined : r.rps / limit,
      ...(floor === undefined ? {} : { ratio_to_floor: r.rps / floor.rps }),
    }
  })
}

/**
 * Several runs' results (each from withRatios, the same profiles in the same order) as one: per profile the median
 * of each figure, the ratios included (the median of each run's own ratio: runs on a shared machine drift, ratios
 * within a run much less), and the errors of all runs added up.
 */
export function medianOfRuns(runs) {
  if (runs.length === 1) return runs[0]
  return runs[0].map((first, i) => {
    const all = runs.map((run) => run[i])
    const m = (pick) => median(all.map(pick))
    const server =
      first.server_time === undefined
        ? undefined
        : { p99_ms: m((r) => r.server_time?.p99_ms), max_ms: m((r) => r.server_time?.max_ms) }
    const cores =
      first.cores === undefined
        ? undefined
        : first.cores.map((_, c) => ({ busy: m((r) => r.cores?.[c]?.busy), iowait: m((r) => r.cores?.[c]?.iowait) }))
    return {
      key: first.key,
      profile: first.profile,
      ...(first.floor === undefined ? {} : { floor: first.floor }),
      rps: m((r) => r.rps),
      p50_ms: m((r) => r.p50_ms),
      p99_ms: m((r) => r.p99_ms),
      errors: all.reduce((sum, r) => sum + r.errors, 0),
      server_time: server,
      cpu_us_per_request: m((r) => r.cpu_us_per_request),
      cores,
      ratio: m((r) => r.ratio),
      ...(first.ratio_to_floor === undefined ? {} : { ratio_to_floor: m((r) => r.ratio_to_floor) }),
    }
  })
}

const fixed = (value, digits) => (value === undefined ? '–' : value.toFixed(digits))

/** The headline: each profile measured against its floor, with the floor's CPU per request; then errors. */
export function headline(results) {
  const byKey = new Map(results.map((r) => [r.key, r]))
  const lines = []
  for (const r of results) {
    if (r.ratio_to_floor === undefined) continue
    const floor = byKey.get(r.floor)
    const rps = (x) => Math.round(x).toLocaleString('en')
    lines.push(
      `${r.profile}: ${fixed(r.ratio_to_floor, 2)} of its floor (${rps(r.rps)} against ${rps(floor.rps)} req/s; ` +
        `the floor's CPU ${fixed(floor.cpu_us_per_request, 1)} µs/request, the service's ${fixed(r.cpu_us_per_request, 1)})`,
    )
  }
  const errors = results.reduce((sum, r) => sum + r.errors, 0)
  const mixed = results.find((r) => r.key === 'mixed')
  lines.push(
    `${mixed === undefined ? '' : `mixed p99: ${fixed(mixed.p99_ms, 2)} ms; `}failed requests: ${errors.toLocaleString('en')}`,
  )
  return lines
}
