// The payment page's script, served from /pay/assets/ (CSP script-src 'self': no inline code or handlers).
// Progressive enhancement only: without it the page still works (forms POST and redirect back; a link refreshes).
// It reads everything from data-* attributes of [data-view] and, when the status changes, fetches the page again
// and swaps [data-view] in place, so the server stays the only renderer (and translator) of every state.
export const PAY_JS = `'use strict';
(() => {
  const FINAL = ['paid', 'failed', 'expired'];
  const POLL_MS = 2000;
  let view = null;
  let skew = 0;
  let pollTimer = 0;
  let tickTimer = 0;
  let polling = false;

  const attr = (name) => view.getAttribute(name) || '';
  const isFinal = () => FINAL.includes(attr('data-status'));
  const two = (n) => String(n).padStart(2, '0');

  // Same format as src/http/views/format.ts formatRemaining.
  const remaining = (ms, dayUnit) => {
    const total = Math.max(0, Math.floor(ms / 1000));
    const d = Math.floor(total / 86400), h = Math.floor((total % 86400) / 3600);
    const m = Math.floor((total % 3600) / 60), s = total % 60;
    if (d > 0) return d + ' ' + dayUnit + ' ' + two(h) + ':' + two(m) + ':' + two(s);
    return h > 0 ? h + ':' + two(m) + ':' + two(s) : two(m) + ':' + two(s);
  };

  // The server renders times in UTC; show them in the buyer's own zone.
  const localTimes = () => {
    let fmt;
    try { fmt = new Intl.DateTimeFormat(attr('data-lang'), { dateStyle: 'medium', timeStyle: 'short' }); } catch { return; }
    for (const t of view.querySelectorAll('time[data-local]')) {
      const at = new Date(t.getAttribute('datetime') || '');
      if (!Number.isNaN(at.getTime())) t.textContent = fmt.format(at);
    }
  };

  const tick = () => {
    const el = view.querySelector('[data-countdown]');
    if (!el) return;
    // Time left by the server's clock: the page carries the server's "now", the skew corrects the device clock.
    const left = Date.parse(attr('data-expires-at')) - (Date.now() + skew);
    el.textContent = remaining(left, attr('data-day-unit'));
    if (left <= 0) poll(); // the server decides expiry
  };

  const schedule = () => {
    clearTimeout(pollTimer);
    if (!isFinal()) pollTimer = setTimeout(poll, POLL_MS);
  };

  const announce = (text) => {
    const live = document.querySelector('[data-announce]');
    if (live) live.textContent = text;
  };

  // Fetches the page in the same language and swaps the view; true when it was swapped.
  const refresh = async (moveFocus) => {
    try {
      const res = await fetch(attr('data-page-url'), { headers: { accept: 'text/html' }, cache: 'no-store' });
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      const next = doc.querySelector('[data-view]');
      if (!next) return false;
      // A parsed document has scripting off, so <noscript> content is real markup there: drop it.
      for (const n of next.querySelectorAll('noscript')) n.remove();
      view.replaceWith(next);
      document.title = doc.title;
      init(next);
      const heading = next.querySelector('[data-status-heading]');
      if (heading) {
        announce(heading.textContent.trim());
        if (moveFocus) heading.focus();
      }
      return true;
    } catch {
      return false;
    }
  };

  const poll = async () => {
    if (polling || isFinal()) return;
    if (document.hidden) return schedule();
    polling = true;
    try {
      const res = await fetch(attr('data-status-url'), { headers: { accept: 'application/json' }, cache: 'no-store' });
      const body = res.ok ? await res.json() : null;
      // a stablecoin payment also moves while pending: seen, then each confirmation (docs/stablecoins.md#states)
      const moved = body && (body.status !== attr('data-status') || (body.progress || '') !== attr('data-progress'));
      if (moved && (await refresh(false))) return;
    } catch {
      // offline for a moment: try again on the next round
    } finally {
      polling = false;
    }
    schedule();
  };

  const init = (next) => {
    view = next;
    const serverNow = Date.parse(attr('data-now'));
    skew = Number.isNaN(serverNow) ? 0 : serverNow - Date.now();
    localTimes();
    clearInterval(tickTimer);
    if (view.querySelector('[data-countdown]')) {
      tick();
      tickTimer = setInterval(tick, 1000);
    }
    schedule();
  };

  // Test controls: send the outcome as JSON and re-render in place instead of a full form POST + redirect.
  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-simulate')) return;
    event.preventDefault();
    const buttons = [...view.querySelectorAll('[data-simulate] button')];
    for (const b of buttons) b.disabled = true;
    const outcome = new FormData(form).get('outcome');
    const failure = view.querySelector('[data-simulate-error]');
    let refused = '';
    try {
      // A 200, or a 409 when the status moved meanwhile: the page shows the status as it is now. Any other answer
      // is shown with the service's reason, so a refused click does not look like nothing happened.
      const res = await fetch(form.action, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ outcome }),
      });
      if (!res.ok && res.status !== 409) refused = (await res.json().catch(() => ({}))).detail || String(res.status);
    } catch {
      // no answer (offline, the connection dropped): said so, as a refusal is, or the click would look like nothing
      refused = (failure && failure.getAttribute('data-simulate-no-answer')) || 'no answer';
    }
    if (refused && failure) {
      failure.textContent = failure.getAttribute('data-simulate-error') + ' ' + refused;
      failure.hidden = false;
      for (const b of buttons) b.disabled = false;
      return;
    }
    clearTimeout(pollTimer);
    if (!(await refresh(true))) {
      for (const b of buttons) b.disabled = false;
      schedule();
    }
  });

  // Copy a deposit address: the field stays selectable without the script.
  document.addEventListener('click', async (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
    if (!button) return;
    try {
      await navigator.clipboard.writeText(button.getAttribute('data-copy') || '');
      announce(button.getAttribute('data-copied') || '');
    } catch {
      const field = view.querySelector('[data-deposit-address]');
      if (field) field.select();
    }
  });

  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) poll();
  });

  const first = document.querySelector('[data-view]');
  if (first) init(first);
})();
`
