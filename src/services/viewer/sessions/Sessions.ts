/**
 * Viewer sessions, kept in the database (table viewer_sessions) rather than in one instance's
 * memory: any viewer instance behind a load balancer finds a session, so none needs sticky
 * sessions. A session holds the current document (the two downloads without a document parameter),
 * and the user, user agent and its version that destroySession clears. Sessions idle for longer than
 * VIEWER_SESSION_IDLE_TIMEOUT are removed (docs/viewer.md "Sessions").
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect, Option, Schedule, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { durationConfig } from "../../common/DurationConfig.ts"

export class SessionRecord extends Schema.Class<SessionRecord>("SessionRecord")({
  id: Schema.String,
  /** The broker ID of the document the session last opened. */
  currentDocument: Schema.NullOr(Schema.String),
  userName: Schema.NullOr(Schema.String),
  userAgent: Schema.NullOr(Schema.String),
  versionUserAgent: Schema.NullOr(Schema.String)
}) {}

/** The browser and its version from a User-Agent header (`Chrome/131.0.0.0`), the last product that names one. */
export const browserVersion = (userAgent: string | undefined): string | null => {
  if (userAgent === undefined) return null
  const known = /(Edg|OPR|Firefox|Chrome|Version|Safari)\/([\d.]+)/g
  let found: string | null = null
  for (const match of userAgent.matchAll(known)) {
    // Chrome's UA also names Safari, Edge's names Chrome: the first named wins over Safari.
    if (found === null || match[1] === "Edg" || match[1] === "OPR") found = `${match[1]}/${match[2]}`
  }
  return found
}

export class Sessions extends Effect.Service<Sessions>()("docstack/viewer/Sessions", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const idle = yield* durationConfig("VIEWER_SESSION_IDLE_TIMEOUT", Duration.hours(8))
    const idleSeconds = Duration.toSeconds(idle)

    const find = (id: string) =>
      sql`UPDATE viewer_sessions SET touched_at = now()
          WHERE id = ${id} AND touched_at > now() - make_interval(secs => ${idleSeconds})
          RETURNING id, current_document, user_name, user_agent, version_user_agent`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(SessionRecord))),
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const sweep = sql`DELETE FROM viewer_sessions WHERE touched_at < now() - make_interval(secs => ${idleSeconds})`
    yield* sweep.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("Expired sessions could not be removed", cause)),
      Effect.repeat(Schedule.spaced(Duration.minutes(10))),
      Effect.forkScoped
    )

    return {
      /** The session with that ID, unless it is unknown or expired (touched now). */
      find,
      /** A new session for a browser: its ID. */
      create: (userAgent: string | undefined) =>
        Effect.gen(function*() {
          const id = randomBytes(24).toString("base64url")
          yield* sql`INSERT INTO viewer_sessions ${
            sql.insert({
              id,
              userAgent: userAgent ?? null,
              versionUserAgent: browserVersion(userAgent)
            })
          }`.pipe(Effect.orDie)
          return id
        }),
      setCurrentDocument: (id: string, brokerId: string) =>
        sql`UPDATE viewer_sessions SET current_document = ${brokerId}, touched_at = now() WHERE id = ${id}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      setUser: (id: string, user: string | null) =>
        sql`UPDATE viewer_sessions SET user_name = ${user}, touched_at = now() WHERE id = ${id}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      /** destroySession: the session and everything it held. */
      destroy: (id: string) => sql`DELETE FROM viewer_sessions WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie)
    }
  })
}) {}
