/**
 * What a page paints with paths, recomputed by a small interpreter of the tests' own (not the
 * module's), so that a redaction's removal of line art is judged independently of the code that
 * does it; and the box arithmetic to ask what reaches into a region.
 */
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream } from "pdf-lib"
import { type Box, boxOf, decoded, pageContent } from "./redaction-support.ts"

type Matrix = readonly [number, number, number, number, number, number]

const times = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5]
]
/**
 * What a page paints with paths, recomputed: a page-space box per filled subpath and per stroked
 * segment (control points included), forms followed. Clips and `n` paint nothing and are skipped.
 */
export const paintedPaths = async (pdf: Uint8Array, page: number) => {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false })
  const fills: Array<Box> = []
  const strokes: Array<Box> = []
  const walk = (content: string, resources: PDFDict | undefined, start: Matrix) => {
    const tokens = content.replace(/\bBI\b[\s\S]*?\bID\b[\s\S]*?\sEI\b/g, " ")
      .match(/\((?:\\[\s\S]|[^\\)])*\)|<<|>>|<[0-9A-Fa-f\s]*>|\[|\]|\/[^\s/[\]()<>{}%]*|[^\s/[\]()<>{}%]+/g) ?? []
    const stack: Array<Matrix> = []
    let ctm = start
    let operands: Array<string> = []
    let subpaths: Array<
      { start: readonly [number, number]; points: Array<readonly [number, number]>; segments: Array<Box> }
    > = []
    let current: readonly [number, number] = [0, 0]
    const at = (x: number, y: number) => [ctm[0] * x + ctm[2] * y + ctm[4], ctm[1] * x + ctm[3] * y + ctm[5]] as const
    const segment = (...points: Array<readonly [number, number]>) => {
      const sub = subpaths[subpaths.length - 1] ?? { start: current, points: [at(...current)], segments: [] }
      if (subpaths.length === 0) subpaths.push(sub)
      const mapped = points.map((p) => at(...p))
      sub.points.push(...mapped)
      sub.segments.push(boxOf([at(...current), ...mapped]))
      current = points[points.length - 1]!
    }
    // Closing where the subpath started draws nothing.
    const close = () => {
      const start = subpaths[subpaths.length - 1]?.start ?? current
      if (start[0] !== current[0] || start[1] !== current[1]) segment(start)
    }
    for (const token of tokens) {
      if (!/^[A-Za-z'"]/.test(token) || ["true", "false", "null"].includes(token)) {
        operands.push(token)
        continue
      }
      const n = operands.filter((o) => /^[+-]?(\d+\.?\d*|\.\d+)$/.test(o)).map(Number)
      const name = operands.find((o) => o.startsWith("/"))?.slice(1)
      operands = []
      if (token === "q") stack.push(ctm)
      else if (token === "Q") ctm = stack.pop() ?? ctm
      else if (token === "cm") ctm = times(n as unknown as Matrix, ctm)
      else if (token === "m") {
        current = [n[0]!, n[1]!]
        subpaths.push({ start: current, points: [at(...current)], segments: [] })
      } else if (token === "l") segment([n[0]!, n[1]!])
      else if (token === "c") segment([n[0]!, n[1]!], [n[2]!, n[3]!], [n[4]!, n[5]!])
      else if (token === "v") segment([n[0]!, n[1]!], [n[2]!, n[3]!])
      else if (token === "y") segment([n[0]!, n[1]!], [n[2]!, n[3]!])
      else if (token === "h") close()
      else if (token === "re") {
        const [x, y, w, h] = n as [number, number, number, number]
        current = [x, y]
        subpaths.push({ start: current, points: [at(x, y)], segments: [] })
        segment([x + w, y], [x + w, y + h])
        segment([x, y + h])
        segment([x, y])
      } else if (["S", "s", "f", "F", "f*", "B", "B*", "b", "b*", "n"].includes(token)) {
        if (["s", "b", "b*"].includes(token)) close()
        if (!["S", "s", "n"].includes(token)) fills.push(...subpaths.map((sub) => boxOf(sub.points)))
        if (["S", "s", "B", "B*", "b", "b*"].includes(token)) strokes.push(...subpaths.flatMap((sub) => sub.segments))
        subpaths = []
      } else if (token === "Do" && name !== undefined) {
        const xobject = doc.context.lookup(
          resources?.lookupMaybe(PDFName.of("XObject"), PDFDict)?.get(PDFName.of(name))
        )
        if (xobject instanceof PDFRawStream && xobject.dict.get(PDFName.of("Subtype"))?.toString() === "/Form") {
          const matrix = xobject.dict.lookupMaybe(PDFName.of("Matrix"), PDFArray)?.asArray().map((v) =>
            (v as PDFNumber).asNumber()
          ) ?? [1, 0, 0, 1, 0, 0]
          walk(
            decoded(xobject).toString("latin1"),
            xobject.dict.lookupMaybe(PDFName.of("Resources"), PDFDict) ?? resources,
            times(matrix as unknown as Matrix, ctm)
          )
        }
      }
    }
  }
  walk(pageContent(doc, page).toString("latin1"), doc.getPage(page).node.Resources(), [1, 0, 0, 1, 0, 0])
  return { fills, strokes }
}

/** Boxes reaching into a region by more than a rounding error. */
export const into = (boxes: ReadonlyArray<Box>, r: Box) =>
  boxes.filter((b) => b[0] < r[2] - 0.001 && r[0] + 0.001 < b[2] && b[1] < r[3] - 0.001 && r[1] + 0.001 < b[3])
export const grow = ([x0, y0, x1, y1]: Box, by: number): Box => [x0 - by, y0 - by, x1 + by, y1 + by]
