import { html, type SafeHtml } from './html.js'

// Inline SVG is markup, not a resource, so it needs no CSP source; colours come from `currentColor` (CSS), and
// the icons are decorative: the heading next to each says the same in words.
const svg = (path: SafeHtml): SafeHtml =>
  html`<svg
    class="icon"
    viewBox="0 0 24 24"
    fill="none"
    stroke="currentColor"
    stroke-width="2"
    stroke-linecap="round"
    stroke-linejoin="round"
    aria-hidden="true"
    focusable="false"
  >
    ${path}
  </svg>`

export const ICONS = {
  pending: svg(html`<circle cx="12" cy="12" r="9" /><path d="M12 7v5l3 2" />`),
  hold: svg(html`<rect x="5" y="11" width="14" height="9" rx="2" /><path d="M8 11V8a4 4 0 0 1 8 0v3" />`),
  paid: svg(html`<circle cx="12" cy="12" r="9" /><path d="m8 12 3 3 5-6" />`),
  failed: svg(html`<circle cx="12" cy="12" r="9" /><path d="m9 9 6 6m0-6-6 6" />`),
  expired: svg(html`<circle cx="12" cy="12" r="9" /><path d="M12 7v5M12 16h.01" />`),
} as const
