// The payment page's stylesheet, served from /pay/assets/ (CSP style-src 'self': no inline styles anywhere).
// System fonts only: the page loads nothing from outside the service. Colours keep WCAG AA contrast (≥ 4.5:1).
export const PAY_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;align-items:center;background:#eef1f5;color:#111827;
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.banner{width:100%;background:#ffd43b;color:#1a1a1a;text-align:center;padding:.5rem 1rem;font-size:.875rem;border-bottom:1px solid #e0b400}
.banner p{margin:0}
.banner strong{letter-spacing:.06em;margin-right:.35rem}
main{width:100%;max-width:28rem;padding:1rem .75rem 0}
.card{background:#fff;border-radius:1rem;box-shadow:0 1px 2px rgba(17,24,39,.06),0 8px 24px rgba(17,24,39,.08);padding:1.5rem 1.25rem}
.eyebrow{margin:0;color:#4b5563;font-size:.875rem}
h1{margin:.125rem 0 0;font-size:1.25rem;line-height:1.3;overflow-wrap:anywhere}
h2{margin:0;font-size:1.125rem;line-height:1.3;display:flex;align-items:center;gap:.5rem}
h2:focus{outline:none}
.amount{margin:1rem 0 0;font-size:2.25rem;font-weight:700;letter-spacing:-.01em;line-height:1.15;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.amount-label{margin:1.25rem 0 0;color:#4b5563;font-size:.875rem}
.status{margin-top:1.25rem;padding:1rem;border-radius:.75rem;background:#f3f6fb;border:1px solid #dbe3ef}
.status p{margin:.375rem 0 0}
.status-paid{background:#ecfdf3;border-color:#a6e9c1}
.status-hold{background:#eef4ff;border-color:#bcd0f7}
.status-failed,.status-expired{background:#fef2f2;border-color:#f5c2c0}
.icon{flex:none;width:1.5rem;height:1.5rem}
.status-paid .icon{color:#127a3e}
.status-hold .icon,.status-pending .icon{color:#1d4ed8}
.status-failed .icon,.status-expired .icon{color:#b42318}
.timer{font-variant-numeric:tabular-nums}
.timer [role=timer]{font-weight:700}
.qr{margin:1.25rem 0 0;text-align:center}
.qr img{display:block;margin:0 auto;max-width:100%;height:auto;image-rendering:pixelated}
.qr figcaption{margin-top:.5rem;color:#4b5563;font-size:.875rem}
.details{margin:1.25rem 0 0;border-top:1px solid #e5e7eb}
.details div{display:flex;justify-content:space-between;gap:1rem;padding:.625rem 0;border-bottom:1px solid #e5e7eb}
.details dt{color:#4b5563;flex:none}
.details dd{margin:0;text-align:right;overflow-wrap:anywhere;min-width:0}
.details .stack{display:block}
.details .stack dd{text-align:left;margin-top:.125rem}
[data-comment]{white-space:pre-line}
.sandbox{margin-top:1.25rem;padding:1rem;border:2px dashed #c99a00;border-radius:.75rem;background:#fffbea}
.sandbox h2{font-size:1rem;flex-wrap:wrap;row-gap:.375rem}
.sandbox-error{margin:.75rem 0 0;color:#a3141c;font-weight:600}
.tag{flex:none;white-space:nowrap;font-size:.75rem;font-weight:700;letter-spacing:.06em;background:#ffd43b;color:#1a1a1a;border-radius:.25rem;padding:.125rem .375rem}
.actions{display:grid;grid-template-columns:1fr;gap:.5rem;margin-top:.75rem}
.actions form{margin:0}
.btn{display:block;width:100%;min-height:2.75rem;padding:.625rem 1rem;border-radius:.625rem;border:2px solid transparent;
font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
.btn:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
.btn[disabled]{opacity:.6;cursor:progress}
.btn-primary{background:#1d4ed8;color:#fff}
.checkout{margin:1.25rem 0 0}.checkout-error{margin:1.25rem 0 0;padding:.75rem 1rem;border-radius:.5rem;background:#fef2f2;color:#991b1b}
.btn-primary:hover{background:#1e40af}
.btn-secondary{background:#fff;color:#1f2937;border-color:#9ca3af}
.btn-danger{background:#fff;color:#b42318;border-color:#e4a09a}
.back{margin-top:1rem}
.deposit{margin:1.25rem 0 0}.deposit h2{margin:0;font-size:1rem}
.copyable{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.25rem}.copyable input{flex:1 1 100%;min-width:0;font:inherit;font-family:ui-monospace,monospace;font-size:.75rem;padding:.5rem .375rem;border:1px solid #9ca3af;border-radius:.5rem}.copyable .btn{width:auto;flex:0 0 auto}
.deposit code{font-size:.8125rem;overflow-wrap:anywhere}.deposit .note{color:#4b5563;font-size:.875rem}
.confirmations,.received{margin:.75rem 0 0;padding:.75rem 1rem;border-radius:.5rem;background:#eff6ff;color:#1e3a8a}
footer{width:100%;max-width:28rem;padding:1rem .75rem 2rem;color:#4b5563;font-size:.875rem;text-align:center}
footer p{margin:0 0 .25rem}
footer ul{list-style:none;margin:0;padding:0;display:flex;justify-content:center;gap:1rem}
footer a{color:#1d4ed8}
footer a[aria-current]{color:#111827;font-weight:600;text-decoration:none}
@media (min-width:30rem){main{padding-top:2.5rem}.card{padding:2rem}.actions{grid-template-columns:repeat(auto-fit,minmax(7rem,1fr))}}
@media (prefers-reduced-motion:no-preference){.btn{transition:background-color .15s}}
`
