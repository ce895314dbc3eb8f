/**
 * Waits until `check` holds, looking again every `everyMs`; fails naming `what` once `ms` have passed without it.
 */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  { ms, everyMs }: { ms: number; everyMs: number },
): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((done) => setTimeout(done, everyMs))
  }
}
