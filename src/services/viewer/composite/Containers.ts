/**
 * Composite containers being built by compositeAccessorServlet's GET/PUT sequence (table
 * viewer_containers), keyed by the broker ID they will have once registered: each PUT may reach
 * another viewer instance, and two PUTs at once each add their child (one statement each).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Schema } from "effect"
import { ProviderFile } from "../../../schemas/provider/ProviderContract.ts"

export class ContainerRecord extends Schema.Class<ContainerRecord>("ContainerRecord")({
  title: Schema.String,
  children: Schema.Array(ProviderFile),
  finalized: Schema.Boolean
}) {}

const decodeRows = Schema.decodeUnknown(Schema.Array(ContainerRecord))

export class Containers extends Effect.Service<Containers>()("docstack/viewer/Containers", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const first = (rows: ReadonlyArray<unknown>) =>
      Effect.map(decodeRows(rows), (records) => Option.fromNullable(records[0]))

    const find = (id: string) =>
      sql`SELECT title, children, finalized FROM viewer_containers WHERE id = ${id}`.pipe(
        Effect.flatMap(first),
        Effect.orDie
      )

    return {
      find,
      create: (id: string, title: string) =>
        sql`INSERT INTO viewer_containers ${sql.insert({ id, title })}`.pipe(Effect.asVoid, Effect.orDie),

      /** Adds a child at the end of a container still open; none when it is unknown or finalized. */
      append: (id: string, child: ProviderFile) =>
        sql`UPDATE viewer_containers SET children = children || ${JSON.stringify([child])}::jsonb
            WHERE id = ${id} AND NOT finalized
            RETURNING title, children, finalized`.pipe(Effect.flatMap(first), Effect.orDie),

      /**
       * Marks an open container holding children finalized, answering it; none when it is unknown,
       * already finalized or empty (whoever finalizes it first registers it with a broker).
       */
      claim: (id: string, title: string | undefined) =>
        sql`UPDATE viewer_containers SET finalized = true, title = COALESCE(${title ?? null}, title)
            WHERE id = ${id} AND NOT finalized AND jsonb_array_length(children) > 0
            RETURNING title, children, finalized`.pipe(Effect.flatMap(first), Effect.orDie),

      /** Opens a claimed container again, its registration having failed, so that a later PUT final can retry. */
      release: (id: string) =>
        sql`UPDATE viewer_containers SET finalized = false WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie)
    }
  })
}) {}
