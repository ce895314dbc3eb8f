import { describe, expect, it } from 'vitest'
import { escapeHtml, html, safeHref } from './html.js'

describe('html escaping', () => {
  it('when text contains markup, then every special character is an entity', () => {
    expect(escapeHtml(`<script>alert("x" + 'y') && 1</script>`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot; + &#39;y&#39;) &amp;&amp; 1&lt;/script&gt;',
    )
  })

  it('when values are interpolated, then strings are escaped and nested html is kept', () => {
    const inner = html`<b>${'<i>'}</b>`
    expect(html`<p title="${'"x"'}">${inner}${[1, ' & ', 2]}${false}${undefined}</p>`.value).toBe(
      '<p title="&quot;x&quot;"><b>&lt;i&gt;</b>1 &amp; 2</p>',
    )
  })

  it('when a merchant URL is not http(s), then no href is produced', () => {
    expect(safeHref('javascript:alert(1)')).toBeUndefined()
    expect(safeHref('not a url')).toBeUndefined()
    expect(safeHref(null)).toBeUndefined()
    expect(safeHref('https://shop.example/ok?a=1&b=2')).toBe('https://shop.example/ok?a=1&b=2')
  })
})
