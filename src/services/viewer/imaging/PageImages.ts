/**
 * imageServlet and cropImageServlet: a page image from the document's broker, whole or a part of it
 * (docs/viewer.md "Crop descriptor").
 */
import { Effect } from "effect"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"
import { PageImageCrop, PageImageDescriptor } from "../../../schemas/broker/PageImage.ts"
import { MAX_IMAGE_WIDTH } from "../../../schemas/viewer/Servlets.ts"
import { DocumentAccess, pageMustExist } from "../documents/DocumentAccess.ts"

export interface CropDescriptor {
  /** The width the page is drawn at, in pixels. */
  readonly width: number
  readonly rotation: number
  /** The rectangle returned, in pixels of that drawing. */
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}

const CROP_KEYS = ["width", "x", "y", "w", "h", "rotation"] as const

/** `width=1200;x=100;y=200;w=400;h=300[;rotation=90]`: every value a whole number. */
export const parseCropDescriptor = (desc: string): Effect.Effect<CropDescriptor, InvalidRequest> => {
  const invalid = (why: string) =>
    Effect.fail(
      new InvalidRequest({
        message: `desc ${why}: write it as width=1200;x=100;y=200;w=400;h=300 (optionally ;rotation=90), got '${desc}'`
      })
    )
  const values: Record<string, number> = {}
  for (const item of desc.split(";").map((s) => s.trim()).filter((s) => s !== "")) {
    const match = /^([a-z]+)\s*=\s*(-?\d{1,6})$/i.exec(item)
    if (match === null) return invalid(`has '${item}', which is not name=number`)
    const name = match[1]!.toLowerCase()
    if (!(CROP_KEYS as ReadonlyArray<string>).includes(name)) return invalid(`names '${match[1]}', which is unknown`)
    values[name] = Number(match[2])
  }
  for (const name of ["width", "x", "y", "w", "h"]) if (values[name] === undefined) return invalid(`lacks ${name}`)
  const { width, x, y, w, h } = values as Record<"width" | "x" | "y" | "w" | "h", number>
  const rotation = values.rotation ?? 0
  if (width < 1 || width > MAX_IMAGE_WIDTH) return invalid(`has width ${width}, outside 1 to ${MAX_IMAGE_WIDTH}`)
  if (x < 0 || y < 0 || w < 1 || h < 1) return invalid("needs x, y ≥ 0 and w, h ≥ 1")
  if (rotation % 90 !== 0) return invalid(`has rotation ${rotation}, not a multiple of 90`)
  return Effect.succeed({ width, rotation: ((rotation % 360) + 360) % 360, x, y, w, h })
}

/**
 * The broker's descriptor; without `annotations`, `A~0` leaves out the annotations GET annotations
 * lists, for a browser that draws them itself (the file's links and form fields stay).
 */
const descriptor = (width: number, rotation: number, annotations: boolean) =>
  new PageImageDescriptor({ width, rotation, filters: annotations ? [] : [{ code: "A", value: 0 }] })

export class PageImages extends Effect.Service<PageImages>()("docstack/viewer/PageImages", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess
    return {
      /** The page `width` pixels wide, PNG. */
      image: (viewerId: string, page: number, width: number, annotations = true) =>
        access.onDocument(viewerId, (client, documentId) =>
          client.documents.pageImage({
            path: { documentId, page },
            urlParams: { pageImageDescription: descriptor(width, 0, annotations) }
          })).pipe(pageMustExist(viewerId)),
      /** The part of the page `desc` names, PNG. */
      crop: (viewerId: string, page: number, desc: string, annotations = true) =>
        Effect.flatMap(
          parseCropDescriptor(desc),
          (crop) =>
            access.onDocument(viewerId, (client, documentId) =>
              client.documents.pageImage({
                path: { documentId, page },
                urlParams: {
                  pageImageDescription: descriptor(crop.width, crop.rotation, annotations),
                  crop: new PageImageCrop({ x: crop.x, y: crop.y, w: crop.w, h: crop.h })
                }
              }))
        ).pipe(pageMustExist(viewerId))
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
