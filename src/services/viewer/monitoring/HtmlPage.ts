/**
 * The viewer's HTML pages (health, weather, print preview) are written with one tagged template
 * that escapes every value it embeds: text from a broker, a URL or a parameter cannot become markup
 * however it reached the page. Pages are self-contained (inline style and script, no external
 * asset), so they show the same behind any proxy.
 */

/** Markup already escaped: embedded as it is. */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString() {
    return this.markup
  }
}

export const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

type Embedded = SafeHtml | string | number | boolean | null | undefined | ReadonlyArray<Embedded>

const embed = (value: Embedded): string =>
  value instanceof SafeHtml
    ? value.markup
    : Array.isArray(value)
    ? value.map(embed).join("")
    : value === null || value === undefined
    ? ""
    : escapeHtml(String(value))

/** `html\`<td>${text}</td>\``: every value escaped, but SafeHtml (and arrays of it) kept. */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Embedded>) =>
  new SafeHtml(strings.reduce((out, part, i) => out + part + (i < values.length ? embed(values[i]!) : ""), ""))

/** A whole page: title, inline style (trusted text of ours), body. */
export const htmlPage = (title: string, style: string, body: SafeHtml, script?: string) =>
  `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">` +
  `<meta name="viewport" content="width=device-width, initial-scale=1">` +
  html`<title>${title}</title>`.markup +
  `<style>${style}</style></head>\n<body>\n${body.markup}\n` +
  (script === undefined ? "" : `<script>${script}</script>\n`) +
  `</body></html>\n`

/** The style the monitoring pages share: a plain readable table. */
export const TABLE_STYLE = `
body { font: 15px/1.4 system-ui, sans-serif; margin: 2em; color: #1b1b1b; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
p.summary { margin: 0 0 1em; color: #444; }
table { border-collapse: collapse; min-width: 40em; }
th, td { text-align: left; padding: .35em .8em; border-bottom: 1px solid #ddd; vertical-align: top; }
th { background: #f3f3f3; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.up { color: #0a6b2d; font-weight: 600; }
.down { color: #a3140b; font-weight: 600; }
td.error { color: #a3140b; max-width: 40em; overflow-wrap: anywhere; }
`
