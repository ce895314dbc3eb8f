// The dashboard's stylesheet, served from /pay/assets/ beside the payment page's (CSP style-src 'self': no inline
// styles). The signed-in pages are wider than the payment page: tables, filters and a chart. System fonts only;
// colours keep WCAG AA contrast (≥ 4.5:1 for text).
export const DASHBOARD_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;min-height:100vh;background:#eef1f5;color:#111827;
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif}
a{color:#1d4ed8}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:2}
.skip:focus{left:.5rem}
header.top{background:#111827;color:#fff}
header.top .bar{max-width:72rem;margin:0 auto;padding:.5rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem}
header.top .who{font-weight:700;margin-right:auto;display:flex;flex-direction:column;line-height:1.25}
header.top .who small{font-weight:400;color:#d1d5db;font-size:.8125rem}
header.top nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem}
header.top nav a{display:block;color:#e5e7eb;text-decoration:none;padding:.375rem .625rem;border-radius:.375rem}
header.top nav a:hover{background:#1f2937;color:#fff}
header.top nav a[aria-current=page]{background:#fff;color:#111827;font-weight:600}
header.top form{margin:0}
header.top .btn{background:transparent;color:#fff;border-color:#9ca3af;min-height:2.25rem;padding:.25rem .75rem;width:auto}
header.top .langs a{color:#e5e7eb}
main.wide{max-width:72rem;margin:0 auto;padding:1.25rem 1rem 3rem}
main.narrow{max-width:28rem;margin:0 auto;padding:2.5rem .75rem 0}
.card{background:#fff;border-radius:.75rem;box-shadow:0 1px 2px rgba(17,24,39,.06),0 4px 16px rgba(17,24,39,.06);padding:1.25rem;margin:0 0 1.25rem}
h1{margin:0 0 1rem;font-size:1.5rem;line-height:1.3;overflow-wrap:anywhere}
h2{margin:0 0 .75rem;font-size:1.125rem;line-height:1.3}
.btn{display:inline-block;min-height:2.5rem;padding:.5rem 1rem;border-radius:.5rem;border:2px solid transparent;
font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
.btn-primary{background:#1d4ed8;color:#fff}
.btn-primary:hover{background:#1e40af}
.btn-secondary{background:#fff;color:#1f2937;border-color:#9ca3af}
.btn-danger{background:#fff;color:#b42318;border-color:#d9736a}
.error{margin:0 0 1rem;padding:.75rem 1rem;border-radius:.5rem;background:#fef2f2;color:#991b1b}
.notice{margin:0 0 1rem;padding:.75rem 1rem;border-radius:.5rem;background:#ecfdf3;color:#14532d}
.muted{color:#4b5563}
table{width:100%;border-collapse:collapse;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:0 0 .5rem}
th,td{padding:.5rem .625rem;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:top}
th{font-weight:600;color:#374151;background:#f9fafb}
td.num,th.num{text-align:right}
.scroll{overflow-x:auto}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875em;overflow-wrap:anywhere}
dl.fields{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.375rem 1rem;margin:0}
dl.fields dt{color:#4b5563}
dl.fields dd{margin:0;overflow-wrap:anywhere}
.badge{display:inline-block;padding:.0625rem .5rem;border-radius:999px;font-size:.8125rem;font-weight:600;background:#f3f4f6;color:#1f2937;border:1px solid #d1d5db}
.badge-paid{background:#ecfdf3;color:#14532d;border-color:#a6e9c1}
.badge-hold{background:#eef4ff;color:#1e3a8a;border-color:#bcd0f7}
.badge-failed,.badge-expired{background:#fef2f2;color:#991b1b;border-color:#f5c2c0}
form.inline{display:inline}
form.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end;margin:0 0 1rem}
form.filters label,form.stack label{display:block;font-size:.875rem;color:#374151}
input[type=text],input[type=email],input[type=password],input[type=date],input[type=search],input[type=number],select{
font:inherit;padding:.4375rem .5rem;border:1px solid #6b7280;border-radius:.375rem;background:#fff;color:#111827;min-height:2.5rem}
form.stack p{margin:0 0 .875rem}
.row{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:1rem}
.stat{margin:0}
.stat dt{color:#4b5563;font-size:.875rem}
.stat dd{margin:0;font-size:1.5rem;font-weight:700;font-variant-numeric:tabular-nums}
.pager{display:flex;gap:1rem;margin-top:1rem}
.secret{padding:.75rem 1rem;border-radius:.5rem;background:#fffbea;border:1px solid #e0b400}
@media (prefers-reduced-motion:no-preference){.btn{transition:background-color .15s}}
ol.timeline{list-style:none;margin:0;padding:0 0 0 1rem;border-left:2px solid #d1d5db}
ol.timeline li{margin:0 0 .5rem;position:relative}
ol.timeline li::before{content:"";position:absolute;left:-1.4rem;top:.45rem;width:.625rem;height:.625rem;border-radius:50%;background:#1d4ed8}
ol.attempts{margin:0;padding:0 0 0 1.25rem}
/* account pages (webhooks, API keys, team, settings) */
input[type=url]{font:inherit;padding:.4375rem .5rem;border:1px solid #6b7280;border-radius:.375rem;background:#fff;color:#111827;min-height:2.5rem;width:100%;box-sizing:border-box}
.badge-delivery-succeeded{background:#ecfdf3;color:#14532d;border-color:#a6e9c1}
.badge-delivery-pending{background:#eef4ff;color:#1e3a8a;border-color:#bcd0f7}
.badge-delivery-failed{background:#fef2f2;color:#991b1b;border-color:#f5c2c0}
.secret code{font-size:1rem;user-select:all}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.actions form{margin:0}
.actions select{min-height:2.25rem}
.btn-small{min-height:2.25rem;padding:.25rem .75rem}
nav.tabs ul{list-style:none;margin:0 0 1.25rem;padding:0;display:flex;flex-wrap:wrap;gap:.5rem;border-bottom:1px solid #d1d5db}
nav.tabs a{display:block;padding:.5rem .75rem;color:#1f2937;text-decoration:none;border-bottom:3px solid transparent}
nav.tabs a:hover{color:#1d4ed8}
nav.tabs a[aria-current=page]{border-bottom-color:#1d4ed8;color:#1d4ed8;font-weight:600}
h3{margin:1.25rem 0 .5rem;font-size:1rem}
form.filters .grow{flex:1 1 20rem;margin:0}
form.filters .grow input{width:100%}
form.filters p{margin:0}
form.filters small{display:block;margin-top:.25rem}
dl.grid.stat{margin:0 0 .75rem}
nav.periods ul{list-style:none;margin:0 0 .5rem;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}
nav.periods a{display:block;padding:.375rem .75rem;border-radius:.5rem;border:1px solid #9ca3af;background:#fff;text-decoration:none}
nav.periods a[aria-current=page]{background:#1d4ed8;border-color:#1d4ed8;color:#fff;font-weight:600}
dl.stats{margin:0 0 .75rem;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr))}
figure.chart{margin:0 0 1.25rem}
figure.chart figcaption{font-weight:600;margin:0 0 .25rem}
figure.chart svg{display:block;width:100%;height:auto}
figure.chart .bar{fill:#1d4ed8}
figure.chart .axis{stroke:#6b7280;stroke-width:1}
figure.chart .grid-line{stroke:#e5e7eb;stroke-width:1}
figure.chart text{fill:#374151;font-size:13px}
/* the signed-out pages (sign-in, its code step, the invitation, two-factor enrolment): one column */
main.narrow input[type=text],main.narrow input[type=email],main.narrow input[type=password]{width:100%}
main.narrow .btn{width:100%;margin-top:.25rem}
main.narrow form p{margin:0 0 1rem}
main.narrow label{display:inline-block;margin-bottom:.25rem}
`
