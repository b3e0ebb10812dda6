/**
 * The viewer's metrics, in a registry of its own (prom-client), exposed by GET prometheus in the
 * text exposition format: requests and their latency per servlet, errors, each target's weather and
 * availability, the document-to-target cache, failovers (docs/viewer.md "Metrics").
 */
import { Effect } from "effect"
import * as Prometheus from "prom-client"

export class ViewerMetrics extends Effect.Service<ViewerMetrics>()("docstack/viewer/ViewerMetrics", {
  sync: () => {
    // One registry per viewer: two viewers in one process (tests) keep their counts apart.
    const registry = new Prometheus.Registry()
    Prometheus.collectDefaultMetrics({ register: registry, prefix: "viewer_" })
    const requests = new Prometheus.Counter({
      name: "viewer_requests_total",
      help: "Requests answered, by servlet and status",
      labelNames: ["servlet", "status"] as const,
      registers: [registry]
    })
    const latency = new Prometheus.Histogram({
      name: "viewer_request_duration_seconds",
      help: "Time from request to answer, by servlet",
      labelNames: ["servlet"] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry]
    })
    const errors = new Prometheus.Counter({
      name: "viewer_errors_total",
      help: "Answers with a status of 500 or more, by servlet",
      labelNames: ["servlet"] as const,
      registers: [registry]
    })
    const targetScore = new Prometheus.Gauge({
      name: "viewer_target_weather_score",
      help: "Each rendition target's latest /weather score (lower is better)",
      labelNames: ["target"] as const,
      registers: [registry]
    })
    const targetAvailable = new Prometheus.Gauge({
      name: "viewer_target_available",
      help: "1 when the rendition target answers, 0 when it is taken out",
      labelNames: ["target"] as const,
      registers: [registry]
    })
    const targetCache = new Prometheus.Counter({
      name: "viewer_document_target_cache_total",
      help: "Lookups of a document's target: hit (in memory), stored (read from the database), new (assigned now)",
      labelNames: ["result"] as const,
      registers: [registry]
    })
    const failovers = new Prometheus.Counter({
      name: "viewer_failovers_total",
      help: "Documents moved to another target because theirs stopped answering, by the target left",
      labelNames: ["target"] as const,
      registers: [registry]
    })
    return {
      /** One answered request. */
      request: (servlet: string, status: number, seconds: number) => {
        requests.inc({ servlet, status: String(status) })
        latency.observe({ servlet }, seconds)
        if (status >= 500) errors.inc({ servlet })
      },
      target: (target: string, available: boolean, score: number | null) => {
        targetAvailable.set({ target }, available ? 1 : 0)
        if (score !== null) targetScore.set({ target }, score)
      },
      /** A target no longer in the list: its series end. */
      forgetTarget: (target: string) => {
        targetAvailable.remove({ target })
        targetScore.remove({ target })
      },
      targetLookup: (result: "hit" | "stored" | "new") => targetCache.inc({ result }),
      failover: (target: string) => failovers.inc({ target }),
      /** The text exposition. */
      exposition: Effect.promise(() => registry.metrics()),
      contentType: registry.contentType
    }
  }
}) {}
