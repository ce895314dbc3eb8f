/**
 * A database read shared by the gauges of one scrape: called again only after `maxAgeMs`. A failed read (storage
 * down) resolves undefined, and the gauges keep their last values.
 */
export function scrapeRead<T>(read: () => Promise<T>, maxAgeMs = 250): () => Promise<T | undefined> {
  let cached: { at: number; value: Promise<T | undefined> } | undefined
  return () => {
    const now = performance.now()
    if (cached === undefined || now - cached.at > maxAgeMs) cached = { at: now, value: read().catch(() => undefined) }
    return cached.value
  }
}
