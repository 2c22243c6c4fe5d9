import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeHtml, html } from "./html.js";

describe("html", () => {
  it("escapes every interpolated string, nested html stays as built", () => {
    const name = `<script>alert("x")</script>&'`;
    const inner = html`<b>${name}</b>`;
    expect(html`<p title="${name}">${inner}${[inner, 3, null, false]}</p>`.text).toBe(
      `<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"><b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</b><b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</b>3</p>`,
    );
  });

  it("never lets markup characters through", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(escapeHtml(text)).not.toMatch(/[<>"']/);
        const decoded = escapeHtml(text)
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">")
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&amp;/g, "&");
        expect(decoded).toBe(text);
      }),
    );
  });
});
