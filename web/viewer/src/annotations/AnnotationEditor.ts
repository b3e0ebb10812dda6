/**
 * What the pointer and the keys do to annotations: select one, move it, resize it by its handles,
 * draw a new one with the tool chosen (a box, a line, a polygon click by click, an ink stroke), and
 * delete, nudge, undo and redo from the keyboard. Pointer positions become page points through the
 * page layer's own screen matrix, so zoom and the reader's rotation of a page need no arithmetic
 * here. While a drag lasts the store only previews; the change is made (and saved) once, on release.
 */
import {
  type Annotation,
  boundsOf,
  isLocked,
  isResizable,
  keepOnPage,
  liesOverText,
  type Point,
  rectToRect,
  transformed,
  translation,
  withPosition
} from "./AnnotationModel.ts"
import type { AnnotationStore } from "./AnnotationStore.ts"
import {
  boxBetween,
  CLICK_DISTANCE,
  drawsOnPage,
  fromBox,
  fromPoints,
  type Making,
  marksText,
  PLACED_SIZE,
  type Tool
} from "./AnnotationTools.ts"

export interface EditorHost {
  readonly root: ShadowRoot
  store(): AnnotationStore | null
  tool(): Tool
  making(tool: Exclude<Tool, "select">, page: number): Making
  /** The page's size in points as displayed (its own rotation applied). */
  pageSize(index: number): { readonly width: number; readonly height: number } | undefined
  /** The page and the point of it in the middle of the view, for what the keyboard places. */
  viewCentre(): { readonly page: number; readonly point: Point } | null
  /** Something to draw changed (a draft). */
  changed(): void
  /** A new annotation was made: free text is typed into, a note's thread opened. */
  created(a: Annotation): void
}

type Drag =
  | {
    readonly kind: "move" | "resize"
    readonly original: Annotation
    readonly handle: string
    readonly start: Point
    readonly page: number
    readonly svg: SVGSVGElement
    moved: boolean
  }
  | {
    readonly kind: "create"
    readonly making: Making
    readonly start: Point
    readonly svg: SVGSVGElement
    readonly points: Array<Point>
  }

/** The page point under a pointer event, through the layer's screen matrix (zoom and rotation included). */
export const pagePoint = (svg: SVGSVGElement, clientX: number, clientY: number): Point => {
  const matrix = svg.getScreenCTM()
  if (matrix === null) return { x: 0, y: 0 }
  const p = new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse())
  return { x: p.x, y: p.y }
}

const distance = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y)

/** A box dragged by one of its handles to `p` (the opposite side stays), at least 4 points each way. */
const resizedBox = (box: { x: number; y: number; w: number; h: number }, handle: string, p: Point) => {
  let x0 = box.x
  let y0 = box.y
  let x1 = box.x + box.w
  let y1 = box.y + box.h
  if (handle.includes("w")) x0 = Math.min(p.x, x1 - 4)
  if (handle.includes("e")) x1 = Math.max(p.x, x0 + 4)
  if (handle.includes("n")) y0 = Math.min(p.y, y1 - 4)
  if (handle.includes("s")) y1 = Math.max(p.y, y0 + 4)
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 }
}

/** The annotation over text under point `p`, the topmost: what a click there chooses. */
const markupAt = (annotations: ReadonlyArray<Annotation>, p: Point) =>
  [...annotations].reverse().find((a) =>
    liesOverText(a.type) &&
    (a.quadPoints ?? [a.position]).some((q) => p.x >= q.x && p.x <= q.x + q.w && p.y >= q.y && p.y <= q.y + q.h)
  )

export class AnnotationEditor {
  private drag: Drag | null = null
  /** Where the pointer went down on a page with nothing else to do: a click there may choose a mark over text. */
  private press: { readonly page: number; readonly svg: SVGSVGElement; readonly at: Point } | null = null
  /** The polygon being clicked out: its page and vertices so far. */
  polygon: { readonly making: Making; readonly points: Array<Point> } | null = null
  /** What is being drawn, shown on its page until released. */
  draft: Annotation | null = null

  constructor(private readonly host: EditorHost) {}

  attach(viewport: HTMLElement) {
    viewport.addEventListener("pointerdown", (event) => this.onPointerDown(event, viewport))
    viewport.addEventListener("pointermove", (event) => this.onPointerMove(event))
    viewport.addEventListener("pointerup", (event) => this.onPointerUp(event))
    viewport.addEventListener("pointercancel", () => this.cancel())
    viewport.addEventListener("dblclick", (event) => {
      if (this.polygon !== null) {
        event.preventDefault()
        this.finishPolygon()
      }
    })
  }

  /** Drops what is being drawn or dragged. */
  cancel() {
    const store = this.host.store()
    if (this.drag !== null && this.drag.kind !== "create") store?.preview(null, this.drag.original.id)
    this.drag = null
    this.draft = null
    this.polygon = null
    this.host.changed()
  }

  private pageOf(event: PointerEvent) {
    const page = event.composedPath().find((node): node is HTMLElement =>
      node instanceof HTMLElement && node.tagName === "DOCSTACK-PAGE"
    )
    const svg = page?.querySelector<SVGSVGElement>("svg.annotation-layer")
    if (page === undefined || svg === null || svg === undefined) return null
    return { index: Number(page.dataset.pageNumber) - 1, svg }
  }

  private onPointerDown(event: PointerEvent, viewport: HTMLElement) {
    const store = this.host.store()
    if (event.button !== 0 || store === null) return
    const page = this.pageOf(event)
    const target = event.composedPath()[0] as Element
    const tool = this.host.tool()
    if (page === null) return
    const p = pagePoint(page.svg, event.clientX, event.clientY)
    const handle = target.closest?.(".handle")?.getAttribute("data-handle")
    const hit = target.closest?.("g.annotation")?.getAttribute("data-id")
    const selected = store.selected === null ? undefined : store.get(store.selected)
    // The pointer's default (taking the focus) is prevented below: the keys (Delete, arrows) must
    // still reach the pages.
    const focused = (viewport.getRootNode() as ShadowRoot).activeElement
    if (focused !== viewport && !viewport.contains(focused)) viewport.focus({ preventScroll: true })
    if (handle && selected && !store.readOnly && !isLocked(selected)) {
      this.startDrag("resize", selected, handle, p, page, event, viewport)
    } else if (hit && (tool === "select" || marksText(tool))) {
      store.select(hit)
      const a = store.get(hit)
      if (a && !store.readOnly && !isLocked(a)) this.startDrag("move", a, "", p, page, event, viewport)
      else event.preventDefault()
    } else if (drawsOnPage(tool) && !store.readOnly) {
      event.preventDefault()
      this.startCreation(tool as Exclude<Tool, "select">, p, page, event, viewport)
    } else {
      if (tool === "select") store.select(null)
      this.press = { page: page.index, svg: page.svg, at: p }
    }
  }

  private startDrag(
    kind: "move" | "resize",
    original: Annotation,
    handle: string,
    start: Point,
    page: { index: number; svg: SVGSVGElement },
    event: PointerEvent,
    viewport: HTMLElement
  ) {
    event.preventDefault()
    viewport.setPointerCapture(event.pointerId)
    this.drag = { kind, original, handle, start, page: page.index, svg: page.svg, moved: false }
  }

  private startCreation(
    tool: Exclude<Tool, "select">,
    p: Point,
    page: { index: number; svg: SVGSVGElement },
    event: PointerEvent,
    viewport: HTMLElement
  ) {
    const making = this.host.making(tool, page.index)
    if (tool === "Polygon") {
      if (this.polygon !== null && this.polygon.making.page !== page.index) this.polygon = null
      if (this.polygon === null) this.polygon = { making, points: [p] }
      else if (this.polygon.points.length >= 3 && distance(p, this.polygon.points[0]!) < 6) return this.finishPolygon()
      else this.polygon.points.push(p)
      this.draft = fromPoints({ ...making, tool: "Line" }, [...this.polygon.points])
      return this.host.changed()
    }
    viewport.setPointerCapture(event.pointerId)
    this.drag = { kind: "create", making, start: p, svg: page.svg, points: [p] }
  }

  private onPointerMove(event: PointerEvent) {
    const drag = this.drag
    if (drag === null) return
    const store = this.host.store()
    if (store === null) return
    const p = pagePoint(drag.svg, event.clientX, event.clientY)
    if (drag.kind === "create") {
      const { making } = drag
      if (making.tool === "Ink") drag.points.push(p)
      this.draft = this.made(making, drag.start, p, drag.points, true)
      return this.host.changed()
    }
    if (!drag.moved && distance(p, drag.start) < 1) return
    drag.moved = true
    const size = this.host.pageSize(drag.page)
    let next: Annotation
    if (drag.kind === "move") {
      const moved = transformed(drag.original, translation(p.x - drag.start.x, p.y - drag.start.y))
      next = size ? transformed(moved, keepOnPage(boundsOf(moved), size)) : moved
    } else if (drag.handle === "start" || drag.handle === "end") {
      const points = [...(drag.original.points ?? [])]
      points[drag.handle === "start" ? 0 : points.length - 1] = p
      next = withPosition({ ...drag.original, points })
    } else {
      const box = boundsOf(drag.original)
      next = withPosition(transformed(drag.original, rectToRect(box, resizedBox(box, drag.handle, p))))
      if (drag.original.quadPoints === undefined && drag.original.points === undefined && !drag.original.inkList) {
        next = { ...next, position: resizedBox(box, drag.handle, p) }
      }
    }
    store.preview(next)
  }

  private onPointerUp(event: PointerEvent) {
    const drag = this.drag
    const press = this.press
    this.drag = null
    this.press = null
    const store = this.host.store()
    if (store === null) return
    if (press !== null && distance(pagePoint(press.svg, event.clientX, event.clientY), press.at) < CLICK_DISTANCE) {
      const mark = markupAt(store.onPage(press.page), press.at)
      if (mark !== undefined) store.select(mark.id)
    }
    if (drag === null) return
    if (drag.kind === "create") {
      const p = pagePoint(drag.svg, event.clientX, event.clientY)
      const made = this.made(drag.making, drag.start, p, drag.points, false)
      this.draft = null
      this.host.changed()
      if (made !== null) this.commit(made)
      return
    }
    const shown = store.get(drag.original.id)
    store.preview(null, drag.original.id)
    if (drag.moved && shown !== undefined) store.update([shown])
  }

  /** What a creation drag from `start` to `end` makes (null: nothing, a line of no length, say). */
  private made(making: Making, start: Point, end: Point, points: ReadonlyArray<Point>, drafting: boolean) {
    const click = distance(start, end) < CLICK_DISTANCE
    switch (making.tool) {
      case "Line":
      case "Arrow":
        return click && !drafting ? null : fromPoints(making, [start, end])
      case "Ink":
        return points.length < 2 && !drafting ? null : fromPoints(making, points)
      default: {
        if (!click) return fromBox(making, boxBetween(start, end))
        if (drafting) return null
        const size = making.tool === "Text" || making.tool === "FreeText" || making.tool === "Stamp"
          ? PLACED_SIZE[making.tool]
          : PLACED_SIZE.box
        // A note is placed centred on the click; other boxes start at it.
        const corner = making.tool === "Text" ? { x: start.x - size.w / 2, y: start.y - size.h / 2 } : start
        return fromBox(making, { ...corner, ...size })
      }
    }
  }

  /** Makes `a`, moved onto its page if it lies partly off it. */
  private commit(a: Annotation) {
    const store = this.host.store()
    if (store === null) return
    const size = this.host.pageSize(a.page)
    const placed = size ? transformed(a, keepOnPage(boundsOf(a), size)) : a
    const [made] = store.create([placed])
    store.select(made!.id)
    this.host.created(made!)
  }

  private finishPolygon() {
    const polygon = this.polygon
    this.polygon = null
    this.draft = null
    this.host.changed()
    if (polygon !== null && polygon.points.length >= 3) this.commit(fromPoints(polygon.making, polygon.points))
  }

  /**
   * The keys of annotation editing; answers whether the key was used. `focus` says what has the
   * keyboard (DocstackViewer's focusOf). Undo and redo work wherever the focus is but in a field
   * typed into, which has its own; Delete and Escape on the pages and on the bar's buttons (a colour
   * just chosen, then Delete); the others only on the pages, so Enter on a tool's button chooses the
   * tool rather than placing what the previous tool makes.
   */
  onKey(event: KeyboardEvent, focus: "typing" | "field" | "control" | "none", onPages: boolean): boolean {
    const store = this.host.store()
    if (store === null) return false
    const control = event.ctrlKey || event.metaKey
    if (control && !event.altKey && (event.key === "z" || event.key === "Z" || event.key === "y")) {
      if (focus === "typing") return false
      if (event.key === "y" || event.shiftKey) store.redo()
      else store.undo()
      return true
    }
    if (focus === "typing" || focus === "field" || control || event.altKey || !onPages) return false
    if (event.key === "Escape" && (this.polygon !== null || this.draft !== null)) {
      this.cancel()
      return true
    }
    if (event.key === "Enter" && focus === "none" && this.polygon !== null) {
      this.finishPolygon()
      return true
    }
    const tool = this.host.tool()
    if (event.key === "Enter" && focus === "none" && drawsOnPage(tool) && !store.readOnly) {
      return this.placeByKeyboard(tool)
    }
    const selected = store.selected === null ? undefined : store.get(store.selected)
    if (selected === undefined) return false
    if (event.key === "Escape") {
      store.select(null)
      return true
    }
    if (store.readOnly || isLocked(selected)) return false
    if (event.key === "Delete" || event.key === "Backspace") {
      store.remove([selected.id])
      return true
    }
    const step = event.shiftKey ? 10 : 1
    const moves: Readonly<Record<string, [number, number]>> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step]
    }
    const move = focus === "none" ? moves[event.key] : undefined
    if (move === undefined) return false
    store.update([transformed(selected, translation(move[0], move[1]))])
    return true
  }

  /** Enter with a drawing tool: its default annotation in the middle of the view (then arrows move it). */
  private placeByKeyboard(tool: Tool): boolean {
    const centre = this.host.viewCentre()
    if (centre === null || tool === "select") return false
    const making = this.host.making(tool as Exclude<Tool, "select">, centre.page)
    const { x, y } = centre.point
    const a = tool === "Line" || tool === "Arrow"
      ? fromPoints(making, [{ x: x - 50, y }, { x: x + 50, y }])
      : tool === "Ink"
      ? fromPoints(making, [{ x: x - 40, y }, { x: x - 10, y: y - 15 }, { x: x + 20, y: y + 15 }, { x: x + 40, y }])
      : tool === "Polygon"
      ? fromPoints(making, [{ x, y: y - 30 }, { x: x + 40, y: y + 30 }, { x: x - 40, y: y + 30 }])
      : (() => {
        const size = tool === "Text" || tool === "FreeText" || tool === "Stamp" ? PLACED_SIZE[tool] : PLACED_SIZE.box
        return fromBox(making, { x: x - size.w / 2, y: y - size.h / 2, ...size })
      })()
    this.commit(a)
    return true
  }

  /** Resizable by handles: only the selected annotation's, when it is a box or a line. */
  static resizable(a: Annotation) {
    return isResizable(a) && !isLocked(a)
  }
}
