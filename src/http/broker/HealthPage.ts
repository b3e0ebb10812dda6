/**
 * The /health/records dashboard: one row per component, refreshed by the browser every 5 seconds.
 */
import type { HealthRecords } from "../../schemas/broker/Health.ts"

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export const healthPage = (records: HealthRecords, checkedAt: Date) => {
  const rows = Object.entries(records.serviceStates)
    .map(([name, state]) =>
      `<tr><td>${escape(name)}</td><td class="${state.serviceStatus}">${state.serviceStatus}</td><td>${
        state.restarted ? "yes" : "no"
      }</td></tr>`
    )
    .join("\n")
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5"><title>Broker health</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{padding:.4rem 1rem;border-bottom:1px solid #ddd;text-align:left}
.UP{color:#127a2a;font-weight:600}.DOWN{color:#b00020;font-weight:600}.UNKNOWN{color:#888}</style></head>
<body><h1>Broker health</h1>
<table><thead><tr><th>Component</th><th>Status</th><th>Restarted</th></tr></thead><tbody>
${rows || `<tr><td colspan="3" class="UNKNOWN">No check has completed yet</td></tr>`}
</tbody></table><p>Page generated ${checkedAt.toISOString()}. Raw: <a href="/health/records/raw">/health/records/raw</a></p></body></html>`
}
