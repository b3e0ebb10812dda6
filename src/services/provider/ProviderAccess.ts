/**
 * Who may view what, from files an administrator edits by hand (so they are read again on every
 * request): an `.access.json` (`{"users": ["alice", "bob"]}`) in a folder restricts that folder and
 * everything below it to the users it lists, and `<root>/.tickets.json` (`{"TICKET_abc": "alice"}`)
 * says which user an `alf_ticket` stands for. Every access file from the root down must list the
 * user. Anything that cannot be read as expected denies (fail closed) and is logged.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect } from "effect"
import * as path from "node:path"
import { AccessDenied } from "../../schemas/provider/ProviderErrors.ts"
import type { DocumentParameters } from "./DocumentNames.ts"
import { ProviderRoot } from "./ProviderRoot.ts"

export const ACCESS_FILE = ".access.json"
export const TICKETS_FILE = ".tickets.json"

/** The user a request acts for, and what that user may view. */
export interface Viewer {
  /** Undefined for a request that names no user: it may view only what no access file restricts. */
  readonly user: string | undefined
  /** Whether the user may view `real`, a file or folder inside the root (a file: its folder). */
  readonly mayView: (real: string, kind: "file" | "folder") => Effect.Effect<boolean>
}

type JsonFile =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Parsed"; readonly value: unknown }
  | { readonly _tag: "Unreadable"; readonly reason: string }

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** An access file's users; undefined when it is not `{"users": [<string>, …]}`. */
const usersOf = (value: unknown): ReadonlyArray<string> | undefined =>
  isRecord(value) && Array.isArray(value.users) && value.users.every((user) => typeof user === "string")
    ? value.users as ReadonlyArray<string>
    : undefined

export class ProviderAccess extends Effect.Service<ProviderAccess>()("docstack/ProviderAccess", {
  effect: Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const root = yield* ProviderRoot

    const readJson = (file: string) =>
      fs.readFileString(file).pipe(
        Effect.map((text): JsonFile => {
          try {
            return { _tag: "Parsed", value: JSON.parse(text) }
          } catch (error) {
            return { _tag: "Unreadable", reason: `it is not JSON (${(error as Error).message})` }
          }
        }),
        Effect.catchAll((error) =>
          Effect.succeed<JsonFile>(
            error._tag === "SystemError" && error.reason === "NotFound"
              ? { _tag: "Missing" }
              : { _tag: "Unreadable", reason: error.message }
          )
        )
      )

    /** Whether the access file of `folder`, if any, lets `user` in. */
    const folderAdmits = (folder: string, user: string | undefined) =>
      readJson(path.join(folder, ACCESS_FILE)).pipe(
        Effect.flatMap((file) => {
          if (file._tag === "Missing") return Effect.succeed(true)
          const users = file._tag === "Parsed" ? usersOf(file.value) : undefined
          if (users === undefined) {
            const reason = file._tag === "Unreadable" ? file.reason : `it is not {"users": [<user names>]}`
            return Effect.logWarning(
              `Access denied to everything under ${root.shown(folder)}: its ${ACCESS_FILE} cannot be read: ${reason}`
            ).pipe(Effect.as(false))
          }
          return Effect.succeed(user !== undefined && users.includes(user))
        })
      )

    /** The user an `alf_ticket` stands for, from `<root>/.tickets.json`. */
    const ticketUser = (ticket: string) =>
      readJson(path.join(root.root, TICKETS_FILE)).pipe(
        Effect.flatMap((file) => {
          if (file._tag === "Unreadable" || (file._tag === "Parsed" && !isRecord(file.value))) {
            const reason = file._tag === "Unreadable" ? file.reason : "it is not an object of ticket: user"
            return Effect.logWarning(`Tickets refused: ${TICKETS_FILE} cannot be read: ${reason}`).pipe(
              Effect.zipRight(Effect.fail(new AccessDenied({ message: "The ticket cannot be checked" })))
            )
          }
          const tickets = file._tag === "Parsed" ? file.value as Readonly<Record<string, unknown>> : {}
          // Own keys only: a ticket named "constructor" or "__proto__" stands for no one.
          const user = Object.hasOwn(tickets, ticket) ? tickets[ticket] : undefined
          return typeof user === "string" && user !== ""
            ? Effect.succeed(user)
            : Effect.fail(new AccessDenied({ message: "Unknown or expired ticket" }))
        })
      )

    /** The user a request names: `user`, or the one its `alf_ticket` stands for; both must agree. */
    const userOf = (parameters: DocumentParameters) =>
      Effect.gen(function*() {
        const named = parameters.user === "" ? undefined : parameters.user
        if (parameters.alf_ticket === undefined || parameters.alf_ticket === "") return named
        const owner = yield* ticketUser(parameters.alf_ticket)
        if (named !== undefined && named !== owner) {
          return yield* new AccessDenied({ message: "The ticket belongs to another user than the one named" })
        }
        return owner
      })

    return {
      /**
       * The viewer a request acts as. Each folder's access file is read once per viewer (a folder
       * answer asks about many entries of the same folders), and again by the next request.
       */
      viewer: Effect.fn("ProviderAccess.viewer")(function*(parameters: DocumentParameters) {
        const user = yield* userOf(parameters)
        const admitted = new Map<string, boolean>()
        const admits = (folder: string) => {
          const known = admitted.get(folder)
          return known !== undefined
            ? Effect.succeed(known)
            : folderAdmits(folder, user).pipe(Effect.tap((yes) => Effect.sync(() => admitted.set(folder, yes))))
        }
        const mayView = (real: string, kind: "file" | "folder") =>
          Effect.forEach(root.foldersDownTo(kind === "folder" ? real : path.dirname(real)), admits).pipe(
            Effect.map((answers) => answers.every((yes) => yes))
          )
        return { user, mayView } satisfies Viewer
      })
    } as const
  }),
  dependencies: [ProviderRoot.Default]
}) {}
