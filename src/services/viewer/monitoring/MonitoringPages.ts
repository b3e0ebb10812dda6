/**
 * The HTML of GET health/records and GET weather: one table row per rendition target (the viewer
 * itself first on the health page), readable without any asset (docs/viewer.md "Monitoring").
 */
import type { TargetState } from "../targets/Weather.ts"
import { html, htmlPage, type SafeHtml, TABLE_STYLE } from "./HtmlPage.ts"
import type { Availability } from "./TargetAvailability.ts"

/** The viewer answering the page: where the browser reached it. */
export interface SelfRecord {
  readonly url: string
  readonly version: string
  readonly startedAt: number
}

const port = (url: string) => {
  const parsed = new URL(url)
  return parsed.port !== "" ? parsed.port : parsed.protocol === "https:" ? "443" : "80"
}

const state = (up: boolean) => (up ? html`<td class="up">UP</td>` : html`<td class="down">DOWN</td>`)

/** A moment as ISO 8601 (UTC) and how long ago, e.g. `2026-02-01T10:00:00.000Z (3 s ago)`. */
const when = (at: number | null, now: number) =>
  at === null ? "not yet" : `${new Date(at).toISOString()} (${Math.max(0, Math.round((now - at) / 1000))} s ago)`

const score = (value: number | null) => (value === null ? "—" : value.toFixed(3))

const availability = ({ answered, polls }: Availability) =>
  polls === 0 ? "no poll yet" : `${((100 * answered) / polls).toFixed(1)} % (${answered} of ${polls} polls)`

const summary = (states: ReadonlyArray<TargetState>) => {
  const up = states.filter((s) => s.available).length
  return html`<p class="summary">${up} of ${states.length} rendition target${
    states.length === 1 ? "" : "s"
  } available.</p>`
}

export const healthPage = (
  self: SelfRecord,
  targets: ReadonlyArray<{ readonly state: TargetState; readonly availability: Availability }>,
  now: number
) => {
  const uptime = Math.round((now - self.startedAt) / 1000)
  const rows: Array<SafeHtml> = [
    html`<tr><td>viewer (this instance, ${self.version})</td><td>${self.url}</td><td class="num">${
      port(self.url)
    }</td>${state(true)}<td>serving for ${uptime} s</td><td class="num">—</td><td>${
      when(now, now)
    }</td><td class="error"></td></tr>`,
    ...targets.map(({ availability: counts, state: target }) =>
      html`<tr><td>rendition target</td><td>${target.url}</td><td class="num">${port(target.url)}</td>${
        state(target.available)
      }<td>${availability(counts)}</td><td class="num">${score(target.score)}</td><td>${
        when(target.checkedAt, now)
      }</td><td class="error">${target.error}</td></tr>`
    )
  ]
  return htmlPage(
    "Viewer health",
    TABLE_STYLE,
    html`<h1>Viewer health</h1>${summary(targets.map((t) => t.state))}
<table>
<thead><tr><th>Service</th><th>URL</th><th>Port</th><th>State</th><th>Availability</th><th>Weather score</th><th>Last check</th><th>Error</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`
  )
}

export const weatherPage = (states: ReadonlyArray<TargetState>, now: number) =>
  htmlPage(
    "Rendition targets' weather",
    TABLE_STYLE,
    html`<h1>Rendition targets' weather</h1>${summary(states)}
<p class="summary">The weather score is each broker's load (engine load plus system load per core): lower is better.</p>
<table>
<thead><tr><th>URL</th><th>State</th><th>Weather score</th><th>Answer time</th><th>Last check</th><th>Error</th></tr></thead>
<tbody>
${
      states.map((target) =>
        html`<tr><td>${target.url}</td>${state(target.available)}<td class="num">${
          score(target.score)
        }</td><td class="num">${target.latencyMs === null ? "—" : `${target.latencyMs} ms`}</td><td>${
          when(target.checkedAt, now)
        }</td><td class="error">${target.error}</td></tr>\n`
      )
    }
</tbody>
</table>`
  )
