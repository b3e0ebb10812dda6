/**
 * The web components' files as the gateway serves them under /api/web-components/: the bundles and
 * stylesheets by the spec's names (`chat/script`, `chat/style`, `quick-prompt/…`, `admin/…`) and
 * whatever else the build wrote beside them (the chunk the bundles share, source maps, licences).
 * Built from web/gateway/ into web/dist/web-components/ by scripts/build-web.mjs.
 */
import { Effect } from "effect"
import { fileURLToPath } from "node:url"
import { NotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import { BUILT_FILE_TYPES, readBuiltFile } from "../../common/BuiltFiles.ts"

const BUILT = fileURLToPath(new URL("../../../../web/dist/web-components/", import.meta.url))

/** The spec's names, and the files they are. */
const NAMED: Readonly<Record<string, string>> = {
  script: "script.js",
  style: "style.css"
}

/** Segments of a file name the build writes: no dot first, so nothing climbs out of the folder. */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/

export class WebComponentAssets extends Effect.Service<WebComponentAssets>()("gateway/WebComponentAssets", {
  succeed: {
    /** The file at `path` (below /api/web-components/) with its type; NOT_FOUND for anything else. */
    get: Effect.fn("WebComponentAssets.get")(function*(path: string) {
      const segments = path.split("/")
      const last = segments.length > 0 ? NAMED[segments[segments.length - 1]!] : undefined
      const file = [...segments.slice(0, -1), last ?? segments[segments.length - 1]]
      const contentType = BUILT_FILE_TYPES[file[file.length - 1]!.split(".").pop()!]
      const missing = new NotFound({ message: `No web component file '${path}'` })
      if (contentType === undefined || !file.every((segment) => segment !== undefined && SEGMENT.test(segment))) {
        return yield* missing
      }
      const built = yield* Effect.tryPromise(() => readBuiltFile(`${BUILT}${file.join("/")}`)).pipe(
        Effect.mapError(() =>
          last === undefined
            ? missing
            : new NotFound({ message: `The web components are not built: run \`npm run setup\` ('${path}')` })
        )
      )
      return { file: built, contentType }
    })
  }
}) {}
