const DAY_MS = 86_400_000
/** '00'…'99': two-digit fields without padStart on every call. */
const TWO = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : String(i)))
/** '000'…'999': the milliseconds. */
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'))

/**
 * The last day formatted, 'YYYY-MM-DDT': the timestamps of one answer, and those of the invoices of a day, share
 * it, so the calendar arithmetic runs once a day rather than for each of them.
 */
const day = { number: Number.NaN, text: '' }

/**
 * `at.toISOString()`, computed in JavaScript. V8's own formats through snprintf, many times the work of this
 * (bench/history/changes.json); a getInfo answer and every webhook carry two or three timestamps. Same output for every
 * date of years 0000–9999 (the rest, and invalid dates, go to toISOString itself).
 *
 * The calendar arithmetic is the days-to-civil-date method of Howard Hinnant's "chrono-compatible low-level
 * date algorithms": shift the epoch to 0000-03-01 so a leap day ends each 4/100/400-year cycle.
 */
export function isoTime(at: Date): string {
  const ms = at.getTime()
  // 0000-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z
  if (!(ms >= -62_167_219_200_000 && ms <= 253_402_300_799_999)) return at.toISOString()
  const days = Math.floor(ms / DAY_MS)
  if (days !== day.number) {
    day.number = days
    day.text = dateText(days)
  }
  // the time of day: integers below 2³¹, so `| 0` truncates
  let rest = ms - days * DAY_MS
  const hours = (rest / 3_600_000) | 0
  rest -= hours * 3_600_000
  const minutes = (rest / 60_000) | 0
  rest -= minutes * 60_000
  const seconds = (rest / 1000) | 0
  return `${day.text}${TWO[hours]}:${TWO[minutes]}:${TWO[seconds]}.${THREE[rest - seconds * 1000]}Z`
}

/** 'YYYY-MM-DDT' of the day `days` after 1970-01-01. */
function dateText(days: number): string {
  const z = days + 719_468 // days since 0000-03-01
  const era = Math.floor(z / 146_097)
  const dayOfEra = z - era * 146_097
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  )
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153)
  const dayOfMonth = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  const yyyy = year >= 1000 ? String(year) : String(year).padStart(4, '0')
  return `${yyyy}-${TWO[month]}-${TWO[dayOfMonth]}T`
}
