/** Reading the environment's text: each variable trimmed, parsed, and its default when unset or bad. */

export type Env = Readonly<Record<string, string | undefined>>

/** Records a bad variable: `NAME: message`. Loading goes on, so that one start reports every bad variable. */
export type Report = (name: string, message: string) => void

export interface EnvReader {
  /** The trimmed value; undefined when unset or blank. */
  raw(name: string): string | undefined
  int(name: string, def: number, min: number, max: number): number
  bool(name: string, def: boolean): boolean
  oneOf<T extends string>(name: string, def: T, allowed: readonly T[]): T
}

export function envReader(env: Env, bad: Report): EnvReader {
  const raw = (name: string): string | undefined => {
    const v = env[name]
    return v === undefined || v.trim() === '' ? undefined : v.trim()
  }
  return {
    raw,
    int(name, def, min, max) {
      const v = raw(name)
      if (v === undefined) return def
      if (!/^[0-9]+$/.test(v) || Number(v) < min || Number(v) > max) {
        bad(name, `must be a whole number from ${min} to ${max}, got "${v}"`)
        return def
      }
      return Number(v)
    },
    bool(name, def) {
      const v = raw(name)?.toLowerCase()
      if (v === undefined) return def
      if (['true', '1', 'yes', 'on'].includes(v)) return true
      if (['false', '0', 'no', 'off'].includes(v)) return false
      bad(name, `must be true or false, got "${v}"`)
      return def
    },
    oneOf(name, def, allowed) {
      const v = raw(name)?.toLowerCase()
      if (v === undefined) return def
      if ((allowed as readonly string[]).includes(v)) return v as typeof def
      bad(name, `must be one of ${allowed.join(', ')}, got "${v}"`)
      return def
    },
  }
}
