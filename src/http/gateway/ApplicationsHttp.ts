import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Applications } from "../../services/gateway/applications/Applications.ts"
import { GatewayApi } from "./Api.ts"

export const AdminApplicationsHttpLive = HttpApiBuilder.group(
  GatewayApi,
  "adminApplications",
  (handlers) =>
    Effect.gen(function*() {
      const applications = yield* Applications
      return handlers
        .handle("list", () => applications.list())
        .handle("get", ({ path }) => applications.get(path.id))
        .handle("create", ({ payload }) => applications.create(payload))
        .handle("update", ({ path, payload }) => applications.update(path.id, payload))
        .handle("remove", ({ path }) => applications.remove(path.id))
    })
)
