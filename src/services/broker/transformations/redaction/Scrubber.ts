/**
 * The heart of the second pass: interprets a content stream (a page's, or a form's it draws) and
 * rewrites what MuPDF keeps under the regions. Painted paths are cut at the regions (fills exactly,
 * strokes where the stroke would reach in), shadings are dropped or clipped out, forms over a region
 * are scrubbed into copies, and marked content touching a region loses its replacement text.
 */
import { PDFArray, type PDFContext, PDFDict, PDFName, PDFNumber, type PDFObject, PDFRef, PDFStream } from "pdf-lib"
import { apply, concat as concatMatrices, IDENTITY, invert, type Matrix, type Point } from "../../engine/Matrix.ts"
import { numbersOf } from "../../engine/PdfObjects.ts"
import { concat, latin1, latin1Text, point } from "./ContentBytes.ts"
import { ContentParser, numbers, type Operand, type Operation, resourceName } from "./ContentParser.ts"
import {
  addEdge,
  aroundRegion,
  type Box,
  boxOf,
  closeSubpath,
  curvePieces,
  flatten,
  grow,
  intersection,
  linePieces,
  newSubpath,
  overlaps,
  type Subpath,
  transformBox,
  union
} from "./Geometry.ts"
import { flateStream, streamBytes } from "./PageContent.ts"
import { Resources } from "./Resources.ts"

interface GraphicsState {
  readonly ctm: Matrix
  readonly lineWidth: number
  /** Bounding box of the clip in page space; undefined while unclipped. */
  readonly clip: Box | undefined
}

const INITIAL_STATE: GraphicsState = { ctm: IDENTITY, lineWidth: 1, clip: undefined }

/**
 * How far a stroke paints beyond its path in page space: half the width, a square cap's corner
 * included. Miter spikes at kept joins may reach further; they show nothing of what was removed.
 */
const strokeMargin = (state: GraphicsState): number => {
  const [a, b, c, d] = state.ctm
  return (Math.abs(state.lineWidth) / 2) * Math.SQRT2 * Math.max(Math.hypot(a, b), Math.hypot(c, d))
}

export interface ScrubResult {
  readonly bytes: Uint8Array
  readonly changed: boolean
  /** Whether anything drawn may lie in a region (decides the fate of enclosing replacement text). */
  readonly affected: boolean
  readonly affectedMcids: Set<number>
  /** q without Q at the end of the stream. */
  readonly openStates: number
}

const PATH_OPS = new Set(["m", "l", "c", "v", "y", "h", "re"])
const PAINT_OPS = new Set(["S", "s", "f", "F", "f*", "B", "B*", "b", "b*", "n"])
/** Operators that only set graphics state: tolerated between a path and its painting, as viewers do. */
const STATE_OPS = new Set([
  "w",
  "J",
  "j",
  "M",
  "d",
  "ri",
  "i",
  "gs",
  "g",
  "G",
  "rg",
  "RG",
  "k",
  "K",
  "cs",
  "CS",
  "sc",
  "SC",
  "scn",
  "SCN"
])
const TEXT_SHOW_OPS = new Set(["Tj", "TJ", "'", "\""])
/** Marked-content properties and structure attributes that spell out what is drawn (a replacement, an alternate description, an expansion). */
export const REPLACEMENT_TEXT_KEYS = new Set(["ActualText", "Alt", "E"])
const MAX_FORM_DEPTH = 12

/** A page's content scrubbed, starting from the page's default graphics state. */
export const scrubContent = (
  ctx: PDFContext,
  regions: ReadonlyArray<Box>,
  data: Uint8Array,
  resources: Resources
): ScrubResult => new Scrubber(ctx, regions, 0, data, resources).run(INITIAL_STATE)

/** Interprets one content stream (of a page or a form) and rewrites what paints over the regions. */
class Scrubber {
  /** Output: untouched spans of the input and replacement text. */
  private readonly pieces: Array<Uint8Array | string> = []
  private cursor = 0
  private changed = false
  private affected = false
  private readonly affectedMcids = new Set<number>()
  /** Open marked-content sequences; those with replacement text keep the index of their BDC's piece. */
  private readonly marked: Array<
    { readonly dict?: Extract<Operand, { kind: "dict" }>; readonly piece?: number; affected: boolean }
  > = []

  constructor(
    private readonly ctx: PDFContext,
    private readonly regions: ReadonlyArray<Box>,
    private readonly depth: number,
    private readonly data: Uint8Array,
    private readonly resources: Resources
  ) {}

  run(initial: GraphicsState): ScrubResult {
    const parser = new ContentParser(this.data)
    const stack: Array<GraphicsState> = []
    let state = initial
    let path: Array<Subpath> = []
    let pathStart = -1
    let clipOp: string | undefined
    let interleaved: Array<Operation> = []
    let current: Point = [0, 0]
    const lastSubpath = (): Subpath => {
      if (path.length === 0) path.push(newSubpath(current, undefined, state.ctm))
      return path[path.length - 1]!
    }
    const addSegment = (op: Operation | undefined, to: Point, controls: ReadonlyArray<Point>) => {
      const sub = lastSubpath()
      if (op !== undefined) sub.ops.push(op)
      addEdge(sub, current, to, controls, state.ctm, op)
      current = to
    }

    for (let op = parser.next(); op !== undefined; op = parser.next()) {
      const o = op.operator
      const n = numbers(op)
      if (PATH_OPS.has(o)) {
        if (pathStart < 0) pathStart = op.start
        if (o === "m" && n.length >= 2) {
          current = [n[0]!, n[1]!]
          path.push(newSubpath(current, op, state.ctm))
        } else if (o === "l" && n.length >= 2) addSegment(op, [n[0]!, n[1]!], [])
        else if (o === "c" && n.length >= 6) addSegment(op, [n[4]!, n[5]!], [[n[0]!, n[1]!], [n[2]!, n[3]!]])
        else if (o === "v" && n.length >= 4) addSegment(op, [n[2]!, n[3]!], [current, [n[0]!, n[1]!]])
        else if (o === "y" && n.length >= 4) addSegment(op, [n[2]!, n[3]!], [[n[0]!, n[1]!], [n[2]!, n[3]!]])
        else if (o === "h") {
          const sub = lastSubpath()
          sub.ops.push(op)
          closeSubpath(sub, state.ctm)
          current = sub.start
        } else if (o === "re" && n.length >= 4) {
          const [x, y, w, h] = n as [number, number, number, number]
          const sub = newSubpath([x, y], op, state.ctm)
          path.push(sub)
          const corners: ReadonlyArray<Point> = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
          for (let i = 1; i < 4; i++) addEdge(sub, corners[i - 1]!, corners[i]!, [], state.ctm, undefined)
          closeSubpath(sub, state.ctm)
          current = [x, y]
        }
        continue
      }
      if (pathStart >= 0 && (o === "W" || o === "W*")) {
        clipOp = o
        continue
      }
      if (PAINT_OPS.has(o)) {
        if (pathStart >= 0) {
          const text = this.paint(path, o, clipOp, state)
          if (text !== undefined) {
            this.replace(pathStart, op.end, `\n${interleaved.map((i) => this.textOf(i)).join("\n")}\n${text}\n`)
            this.touch()
          }
          if (clipOp !== undefined) {
            const box = path.reduce<Box | undefined>(
              (acc, sub) => acc === undefined ? sub.box : union(acc, sub.box),
              undefined
            )
            if (box !== undefined) {
              state = { ...state, clip: state.clip === undefined ? box : intersection(state.clip, box) }
            }
          }
        }
        path = []
        pathStart = -1
        clipOp = undefined
        interleaved = []
        continue
      }
      if (pathStart >= 0) {
        if (STATE_OPS.has(o)) interleaved.push(op)
        else {
          // Anything else inside a path cannot be kept in order once the path is rewritten.
          if (path.some((sub) => this.hits(grow(sub.box, strokeMargin(state))))) {
            throw new Error(`a path over a region is interrupted by the operator ${o}`)
          }
          path = []
          pathStart = -1
          clipOp = undefined
          interleaved = []
        }
      }
      switch (o) {
        case "q":
          stack.push(state)
          break
        case "Q":
          if (stack.length === 0) this.replace(op.start, op.end, "") // an unmatched Q would pop the state around the page
          else state = stack.pop()!
          break
        case "cm":
          if (n.length >= 6) state = { ...state, ctm: concatMatrices(n, state.ctm) }
          break
        case "w":
          if (n.length >= 1) state = { ...state, lineWidth: n[0]! }
          break
        case "gs": {
          const gs = this.resource("ExtGState", op)
          const lineWidth = gs instanceof PDFDict ? gs.lookupMaybe(PDFName.of("LW"), PDFNumber)?.asNumber() : undefined
          if (lineWidth !== undefined) state = { ...state, lineWidth }
          break
        }
        case "sh":
          this.shade(op, state)
          break
        case "Do":
          this.drawXObject(op, state)
          break
        case "BI":
          if (this.hits(transformBox([0, 0, 1, 1], state.ctm))) this.touch()
          break
        case "BMC":
          this.marked.push({ affected: false })
          break
        case "BDC":
          this.beginMarkedContent(op)
          break
        case "EMC":
          this.endMarkedContent()
          break
        default:
          if (TEXT_SHOW_OPS.has(o)) this.touch()
      }
    }
    this.pieces.push(this.data.subarray(this.cursor))
    return {
      bytes: this.changed ? concat(this.pieces.map((p) => typeof p === "string" ? latin1(p) : p)) : this.data,
      changed: this.changed,
      affected: this.affected,
      affectedMcids: this.affectedMcids,
      openStates: stack.length
    }
  }

  private replace(from: number, to: number, text: string) {
    this.pieces.push(this.data.subarray(this.cursor, from), text)
    this.cursor = to
    this.changed = true
  }

  /** Something drawn may lie in a region: so does every marked-content sequence around it. */
  private touch() {
    this.affected = true
    for (const m of this.marked) m.affected = true
  }

  private textOf(op: Operation): string {
    return latin1Text(this.data.subarray(op.start, op.end))
  }

  private resource(category: string, op: Operation): PDFObject | undefined {
    const name = resourceName(op)
    const object = name === undefined ? undefined : this.resources.lookup(category, name)
    return object instanceof PDFRef ? this.ctx.lookup(object) : object
  }

  /** Replaces a Do or sh, noting whether its resource is still drawn. */
  private redraw(category: string, op: Operation, text: string, drawn: boolean) {
    const name = resourceName(op)
    if (name !== undefined) this.resources.mark(category, name, drawn)
    this.replace(op.start, op.end, text)
  }

  private hits(box: Box): boolean {
    return this.regions.some((region) => overlaps(box, region))
  }

  /** A BDC whose properties carry replacement text becomes a piece of its own, to rewrite at its EMC. */
  private beginMarkedContent(op: Operation) {
    const props = op.operands[1]
    if (props?.kind !== "dict") return void this.marked.push({ affected: false })
    if (!props.entries.some(([key]) => REPLACEMENT_TEXT_KEYS.has(key))) {
      return void this.marked.push({ dict: props, affected: false })
    }
    this.pieces.push(this.data.subarray(this.cursor, op.start), this.data.subarray(op.start, op.end))
    this.cursor = op.end
    this.marked.push({ dict: props, piece: this.pieces.length - 1, affected: false })
  }

  private endMarkedContent() {
    const m = this.marked.pop()
    if (m?.affected !== true || m.dict === undefined) return
    const mcid = m.dict.entries.find(([key]) => key === "MCID")?.[1]
    if (mcid?.kind === "number") this.affectedMcids.add(mcid.value)
    if (m.piece === undefined) return
    const bdc = this.pieces[m.piece] as Uint8Array
    const kept = m.dict.entries
      .filter(([key]) => !REPLACEMENT_TEXT_KEYS.has(key))
      .map(([key, value]) => `/${key} ${latin1Text(this.data.subarray(value.start, value.end))}`)
    const dictStart = m.dict.start - (bdc.byteOffset - this.data.byteOffset)
    this.pieces[m.piece] = `${latin1Text(bdc.subarray(0, dictStart))}<<${kept.join(" ")}>>${
      latin1Text(bdc.subarray(dictStart + m.dict.end - m.dict.start))
    }`
    this.changed = true
  }

  /** `sh` paints its clip: a smooth function says nothing about the region, so it is clipped out; a mesh carries geometry and goes. */
  private shade(op: Operation, state: GraphicsState) {
    if (state.clip !== undefined && !this.hits(state.clip)) {
      return this.resources.mark("Shading", resourceName(op) ?? "", true)
    }
    this.touch()
    const shading = this.resource("Shading", op)
    const dict = shading instanceof PDFStream ? shading.dict : shading
    const type = dict instanceof PDFDict
      ? dict.lookupMaybe(PDFName.of("ShadingType"), PDFNumber)?.asNumber()
      : undefined
    const inverse = invert(state.ctm)
    if (type === undefined || type > 3 || inverse === undefined) return this.redraw("Shading", op, "", false)
    const outer = grow(state.clip ?? [-1e6, -1e6, 1e6, 1e6], 1)
    const quad = ([x0, y0, x1, y1]: Box) =>
      `${
        ([[x0, y0], [x1, y0], [x1, y1], [x0, y1]] as const).map((p, i) =>
          `${point(apply(inverse, p))} ${i === 0 ? "m" : "l"}`
        ).join(" ")
      } h`
    const clips = this.regions.filter((r) => overlaps(outer, r)).map((r) => `${quad(outer)} ${quad(r)} W* n`)
    this.redraw("Shading", op, `q ${clips.join(" ")} ${this.textOf(op)} Q`, true)
  }

  /** Forms over a region are scrubbed into a copy drawn under a new name; images were MuPDF's work. */
  private drawXObject(op: Operation, state: GraphicsState) {
    if (!this.scrubForm(op, state)) this.resources.mark("XObject", resourceName(op) ?? "", true)
  }

  /** Whether the Do was replaced by one of a scrubbed copy of its form. */
  private scrubForm(op: Operation, state: GraphicsState): boolean {
    const xobject = this.resource("XObject", op)
    if (!(xobject instanceof PDFStream)) return false
    const subtype = xobject.dict.lookupMaybe(PDFName.of("Subtype"), PDFName)?.asString()
    if (subtype === "/Image") {
      if (this.hits(transformBox([0, 0, 1, 1], state.ctm))) this.touch()
      return false
    }
    if (subtype !== "/Form") return false
    const matrix = numbersOf(xobject.dict.lookupMaybe(PDFName.of("Matrix"), PDFArray), this.ctx) ?? IDENTITY
    const ctm = concatMatrices(matrix, state.ctm)
    const bbox = numbersOf(xobject.dict.lookupMaybe(PDFName.of("BBox"), PDFArray), this.ctx)
    const box = bbox?.length === 4 ? transformBox(bbox as unknown as Box, ctm) : undefined
    const clip = box === undefined ? state.clip : state.clip === undefined ? box : intersection(state.clip, box)
    if (clip !== undefined && !this.hits(clip)) return false
    if (this.depth >= MAX_FORM_DEPTH) throw new Error(`form XObjects are nested more than ${MAX_FORM_DEPTH} deep`)
    const own = xobject.dict.lookupMaybe(PDFName.of("Resources"), PDFDict)
    const resources = own === undefined ? this.resources : new Resources(this.ctx, own)
    const result = new Scrubber(this.ctx, this.regions, this.depth + 1, streamBytes(xobject), resources).run({
      ...state,
      ctm,
      clip
    })
    if (result.affected) this.touch()
    if (!result.changed) return false
    const dict = xobject.dict.clone()
    dict.delete(PDFName.of("PieceInfo"))
    const ownResources = own === undefined ? undefined : resources.modified()
    if (ownResources !== undefined) dict.set(PDFName.of("Resources"), ownResources)
    const copy = this.ctx.register(flateStream(dict, result.bytes))
    this.redraw("XObject", op, `/${this.resources.addXObject(copy)} Do`, false)
    return true
  }

  /**
   * The path without what it paints over a region: filled subpaths lose the area inside the regions
   * (cut exactly, curves flattened), stroked ones the stretches within the stroke's reach of a region.
   * A clip is kept whole: it paints nothing. Undefined when nothing is painted over a region.
   */
  private paint(
    path: ReadonlyArray<Subpath>,
    op: string,
    clipOp: string | undefined,
    state: GraphicsState
  ): string | undefined {
    if (op === "n") return undefined
    if (op === "s" || op === "b" || op === "b*") {
      const last = path[path.length - 1]
      if (last !== undefined && !last.closed) closeSubpath(last, state.ctm)
    }
    const fills = op !== "S" && op !== "s"
    const strokes = op === "S" || op === "s" || op.startsWith("B") || op.startsWith("b")
    const margin = strokes ? strokeMargin(state) : 0
    if (!path.some((sub) => this.hits(grow(sub.box, margin)))) return undefined
    const parts: Array<string> = []
    if (fills) {
      const kept = path.flatMap((sub) => this.hits(sub.box) ? this.fillOutside(sub, state.ctm) : [this.verbatim(sub)])
      if (kept.length > 0) parts.push(`${kept.join("\n")} ${op.endsWith("*") ? "f*" : "f"}`)
    }
    if (strokes) {
      const kept = path.flatMap((sub) => this.strokeOutside(sub, state.ctm, margin))
      if (kept.length > 0) parts.push(`${kept.join("\n")} S`)
    }
    if (clipOp !== undefined) parts.push(`${path.map((sub) => this.verbatim(sub)).join("\n")} ${clipOp} n`)
    return parts.join("\n")
  }

  private verbatim(sub: Subpath): string {
    const first = sub.ops[0]?.operator
    const text = sub.ops.map((o) => this.textOf(o)).join(" ")
    return first === "m" || first === "re" ? text : `${point(sub.start)} m ${text}`
  }

  /**
   * A filled subpath minus the regions, as polygons: clipped against each of the four convex parts
   * around a region, which keeps every point's winding number there, so either fill rule fills
   * outside the region exactly as before.
   */
  private fillOutside(sub: Subpath, ctm: Matrix): Array<string> {
    const inverse = invert(ctm)
    if (inverse === undefined) return []
    let pieces: Array<ReadonlyArray<Point>> = [flatten(sub, ctm)]
    for (const region of this.regions) {
      pieces = pieces.flatMap((piece) => overlaps(boxOf(piece), region) ? aroundRegion(piece, region) : [piece])
    }
    return pieces.map((piece) =>
      `${piece.map((p, i) => `${point(apply(inverse, p))} ${i === 0 ? "m" : "l"}`).join(" ")} h`
    )
  }

  /** The stretches of a stroked subpath out of the stroke's reach of every region, as runs of their own. */
  private strokeOutside(sub: Subpath, ctm: Matrix, margin: number): Array<string> {
    if (!sub.segments.some((segment) => this.hits(grow(segment.box, margin)))) {
      return sub.segments.length === 0 && this.hits(grow(sub.box, margin)) ? [] : [this.verbatim(sub)]
    }
    const reach = this.regions.map((region) => grow(region, margin))
    const runs: Array<string> = []
    let run: Array<string> = []
    let end: Point | undefined
    const emit = (from: Point, to: Point, text: string) => {
      if (end === undefined || end[0] !== from[0] || end[1] !== from[1]) {
        if (run.length > 0) runs.push(run.join(" "))
        run = [`${point(from)} m`]
      }
      run.push(text)
      end = to
    }
    for (const segment of sub.segments) {
      if (!reach.some((r) => overlaps(segment.box, r))) {
        emit(segment.from, segment.to, segment.op === undefined ? `${point(segment.to)} l` : this.textOf(segment.op))
      } else if (segment.controls.length === 0) {
        for (const [from, to] of linePieces(segment.from, segment.to, ctm, reach)) emit(from, to, `${point(to)} l`)
      } else {
        const [c1, c2] = segment.controls as [Point, Point]
        for (const c of curvePieces([segment.from, c1, c2, segment.to], ctm, reach, 0)) {
          emit(c[0], c[3], `${point(c[1])} ${point(c[2])} ${point(c[3])} c`)
        }
      }
    }
    if (run.length > 0) runs.push(run.join(" "))
    return runs
  }
}
