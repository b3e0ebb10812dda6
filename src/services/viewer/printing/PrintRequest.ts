/**
 * The print servlets' parameters whose format the contract leaves open (docs/viewer.md "Printing"):
 * page lists (`0,2,5-7`, zero-based like pagePosition), printServlet's `desc` and `imagePrintStyle`.
 * Each is checked before any broker is asked, except the page numbers' range, which needs the
 * document's page count.
 */
import { Effect } from "effect"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"
import { MAX_IMAGE_WIDTH } from "../../../schemas/viewer/Servlets.ts"

/** How the preview lays each page on paper. */
export type PrintStyle = "fit-page" | "fit-width" | "actual"

const PRINT_STYLES: ReadonlyArray<PrintStyle> = ["fit-page", "fit-width", "actual"]

export const parsePrintStyle = (text: string | undefined): Effect.Effect<PrintStyle, InvalidRequest> => {
  const style = (text ?? "").trim().toLowerCase()
  if (style === "") return Effect.succeed("fit-page")
  const known = PRINT_STYLES.find((s) => s === style)
  return known !== undefined
    ? Effect.succeed(known)
    : Effect.fail(
      new InvalidRequest({ message: `imagePrintStyle must be fit-page (default), fit-width or actual, got '${text}'` })
    )
}

/** The page images' drawing: width in pixels and an extra clockwise turn. */
export interface PrintImage {
  readonly width: number
  readonly rotation: 0 | 90 | 180 | 270
}

/** printServlet's `desc`: the width in pixels (`1200`) or the broker's page image descriptor `IM_{width}_{rotation}`. */
export const parsePrintDesc = (desc: string): Effect.Effect<PrintImage, InvalidRequest> => {
  const text = desc.trim()
  const descriptor = /^IM_(\d{1,6})_(\d{1,3})$/i.exec(text)
  const width = /^\d{1,6}$/.test(text) ? Number(text) : descriptor === null ? NaN : Number(descriptor[1])
  const rotation = descriptor === null ? 0 : Number(descriptor[2])
  // NaN (neither form) fails the first comparison.
  if (!(width >= 1) || width > MAX_IMAGE_WIDTH || ![0, 90, 180, 270].includes(rotation)) {
    return Effect.fail(
      new InvalidRequest({
        message:
          `desc must be the image width in pixels (1 to ${MAX_IMAGE_WIDTH}), e.g. 1200, or IM_{width}_{rotation} with a rotation of 0, 90, 180 or 270, e.g. IM_1200_90; got '${desc}'`
      })
    )
  }
  return Effect.succeed({ width, rotation: rotation as PrintImage["rotation"] })
}

/**
 * A page list: comma-separated zero-based page positions or ranges `a-b` (both included), in the
 * order given, each page once; every one must be in the document's `pageCount` pages.
 */
export const parsePageList = (
  name: string,
  text: string,
  pageCount: number
): Effect.Effect<ReadonlyArray<number>, InvalidRequest> => {
  const invalid = (why: string) =>
    Effect.fail(
      new InvalidRequest({
        message:
          `${name} ${why}: give zero-based page positions and ranges, e.g. 0,2,4-6 (the document has ${pageCount} page${
            pageCount === 1 ? "" : "s"
          }, 0 to ${pageCount - 1})`
      })
    )
  const pages = new Set<number>()
  for (const item of text.split(",").map((s) => s.trim())) {
    const match = /^(\d{1,9})(?:\s*-\s*(\d{1,9}))?$/.exec(item)
    if (match === null) {
      return invalid(item === "" ? "has an empty item" : `has '${item}', which is not a page or a range`)
    }
    const first = Number(match[1])
    const last = match[2] === undefined ? first : Number(match[2])
    if (last < first) return invalid(`has the range '${item}', which ends before it starts`)
    if (last >= pageCount) return invalid(`names page ${last}, past the end`)
    for (let page = first; page <= last; page++) pages.add(page)
  }
  return Effect.succeed([...pages])
}
