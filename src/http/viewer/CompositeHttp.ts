import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Option } from "effect"
import { Composites } from "../../services/viewer/composite/Composites.ts"
import { Sessions } from "../../services/viewer/sessions/Sessions.ts"
import type { ViewerApi } from "./Api.ts"
import { bodyText } from "./RawBody.ts"
import { makeCurrent } from "./SessionCookie.ts"

export const CompositeHttp = (api: typeof ViewerApi) =>
  HttpApiBuilder.group(api, "composite", (handlers) =>
    Effect.gen(function*() {
      const composites = yield* Composites
      const sessions = yield* Sessions
      // A composite made (POST, PUT final) is opened: it becomes the session's current document.
      const opened = ({ brokerId, viewerId }: { readonly brokerId: string; readonly viewerId: string }) =>
        makeCurrent(brokerId).pipe(
          Effect.as(viewerId),
          Effect.provideService(Sessions, sessions)
        )
      return handlers
        .handle("create", ({ payload }) => Effect.flatMap(composites.create(payload), opened))
        .handle("open", ({ urlParams }) => composites.open(urlParams.containerTitleComposite))
        // Raw: the body is one URL-encoded value, which a form decoder would read as a parameter's name.
        .handleRaw("add", ({ request, urlParams }) =>
          bodyText(request).pipe(
            Effect.flatMap((body) =>
              composites.put({
                viewerId: urlParams.documentIdComposite,
                body: body.trim() === "" ? undefined : body,
                final: urlParams.final !== undefined,
                title: urlParams.containerTitleComposite
              })
            ),
            Effect.flatMap(Option.match({
              onNone: () => Effect.succeed(urlParams.documentIdComposite),
              onSome: opened
            }))
          ))
    }))
