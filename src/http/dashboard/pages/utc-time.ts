/** Times on the account pages: UTC to the minute (or second), the same for every reader whatever their zone. */
export function utcMinute(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

export function utcSecond(d: Date): string {
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`
}
