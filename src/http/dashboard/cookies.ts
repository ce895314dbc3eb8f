/** The dashboard's cookies (docs/dashboard.md#sessions): parsed from the header, written with fixed attributes. */

/** The session token. */
export const SESSION_COOKIE = 'dashboard_session'
/** The CSRF token of the signed-out forms (sign-in, the invitation page): double-submitted with the form. */
export const FORM_COOKIE = 'dashboard_form'

/** The value of cookie `name` in a Cookie header, if it is there once; undefined otherwise. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  const values = header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1))
  // two cookies of one name (one planted for a parent path): neither is trusted
  return values.length === 1 && /^[A-Za-z0-9_-]{1,128}$/.test(values[0] ?? '') ? values[0] : undefined
}

/** `HttpOnly; SameSite=Lax; Path=/dashboard`, `Secure` when PUBLIC_URL is https; a session cookie (no Max-Age). */
export function cookie(name: string, value: string, secure: boolean): string {
  return `${name}=${value}; Path=/dashboard; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
}

/** Removes the cookie. */
export function clearedCookie(name: string, secure: boolean): string {
  return `${name}=; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`
}
