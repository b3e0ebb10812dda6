/**
 * How each annotation type is drawn over its page: SVG in the page's points, as close as a browser
 * gets to the appearance the broker writes into downloaded files (src/services/broker/annotations/
 * AppearanceStreams.ts), so that what a reader sees is what a download shows. Thin shapes get a wide
 * transparent outline that takes the pointer, so a one-point line can still be clicked.
 */
import { nothing, svg, type SVGTemplateResult } from "lit"
import {
  type Annotation,
  boundsOf,
  cssColor,
  defaultColor,
  liesOverText,
  type LineEnding,
  type Point,
  type Rgb,
  stampLabel
} from "./AnnotationModel.ts"

const BLACK: Rgb = { r: 0, g: 0, b: 0 }
const DEFAULT_FONT_SIZE = 12
/** The family appearance streams use (Helvetica); browsers substitute a metric-compatible one. */
export const APPEARANCE_FONT = "Helvetica, Arial, 'Liberation Sans', sans-serif"

const path = (points: ReadonlyArray<Point>, close = false) =>
  points.length === 0
    ? ""
    : `M${points.map((p) => `${round(p.x)} ${round(p.y)}`).join("L")}${close ? "Z" : ""}`

const round = (n: number) => Math.round(n * 100) / 100

/** The wide invisible outline that makes a thin shape easy to hit. */
const hitArea = (d: string) => svg`<path class="hit" d=${d}></path>`

const quadsOf = (a: Annotation) => (a.quadPoints && a.quadPoints.length > 0 ? a.quadPoints : [a.position])

const highlight = (a: Annotation) =>
  svg`<g class="multiply" fill=${cssColor(defaultColor(a))}>${
    quadsOf(a).map((q) => svg`<rect x=${q.x} y=${q.y} width=${q.w} height=${q.h}></rect>`)
  }</g>`

const textLine = (a: Annotation, where: "under" | "through") => {
  const color = cssColor(defaultColor(a))
  return quadsOf(a).map((q) => {
    const width = a.lineWidth ?? Math.max(0.5, q.h / 14)
    const y = where === "under" ? q.y + q.h - Math.min(width, q.h / 2) : q.y + q.h / 2
    const d = `M${round(q.x)} ${round(y)}H${round(q.x + q.w)}`
    return svg`<path d=${d} stroke=${color} stroke-width=${width} fill="none"></path>${hitArea(d)}`
  })
}

const squiggly = (a: Annotation) => {
  const color = cssColor(defaultColor(a))
  return quadsOf(a).map((q) => {
    const width = a.lineWidth ?? Math.max(0.5, q.h / 18)
    const low = q.y + q.h - width / 2
    const high = low - Math.max(width, q.h / 7)
    const step = Math.max(1, (low - high) * 1.2)
    const count = Math.max(1, Math.round(q.w / step))
    const points = Array.from({ length: count + 1 }, (_, i) => ({ x: q.x + (q.w * i) / count, y: i % 2 ? high : low }))
    const d = path(points)
    return svg`<path d=${d} stroke=${color} stroke-width=${width} fill="none" stroke-linejoin="round"></path>${
      hitArea(d)
    }`
  })
}

/** A note's icon: a speech bubble as tall as the note's box is (Acrobat's "Comment"). */
const note = (a: Annotation) => {
  const { x, y, w, h } = a.position
  const size = Math.max(8, Math.min(w, h) || 20)
  const s = size / 20
  const d = `M${x + 2 * s} ${y + 2 * s}h${16 * s}v${11 * s}h${-9 * s}l${-4 * s} ${4 * s}v${-4 * s}h${-3 * s}z`
  return svg`<path d=${d} fill=${
    cssColor(defaultColor(a))
  } stroke="#333" stroke-width=${s} stroke-linejoin="round"></path>
    <path d=${`M${x + 5 * s} ${y + 6 * s}h${10 * s}M${x + 5 * s} ${y + 9 * s}h${
    7 * s
  }`} stroke="#333" stroke-width=${s}></path>
    ${
    (a.replies?.length ?? 0) > 0
      ? svg`<circle cx=${x + 17 * s} cy=${y + 3 * s} r=${3 * s} fill="#0b62d6"></circle>`
      : nothing
  }`
}

const freeText = (a: Annotation, editing: boolean) => {
  const { x, y, w, h } = a.position
  const size = a.fontSize !== undefined && a.fontSize > 0 ? a.fontSize : DEFAULT_FONT_SIZE
  const border = a.lineWidth ?? 0
  const padding = border + 2
  const style = `font:${size}px/1.2 ${APPEARANCE_FONT};color:${cssColor(a.fontColor ?? BLACK)};padding:${padding}px;`
  return svg`${
    a.color
      ? svg`<rect x=${x} y=${y} width=${w} height=${h} fill=${cssColor(a.color)}></rect>`
      : svg`<rect x=${x} y=${y} width=${w} height=${h} fill="transparent"></rect>`
  }${
    border > 0
      ? svg`<rect x=${x + border / 2} y=${y + border / 2} width=${Math.max(0, w - border)} height=${
        Math.max(0, h - border)
      } fill="none" stroke=${cssColor(a.fontColor ?? BLACK)} stroke-width=${border}></rect>`
      : nothing
  }${
    editing
      ? nothing
      : svg`<foreignObject x=${x} y=${y} width=${w} height=${h}><div xmlns="http://www.w3.org/1999/xhtml" class="free-text" style=${style}>${
        a.contents ?? ""
      }</div></foreignObject>`
  }`
}

let measuring: CanvasRenderingContext2D | null = null
/** Width of `text` in bold at one point (the stamp's label is fitted to its box, as the broker does). */
const boldWidthPerPoint = (text: string) => {
  measuring ??= document.createElement("canvas").getContext("2d")
  if (measuring === null) return text.length * 0.65
  measuring.font = `bold 100px ${APPEARANCE_FONT}`
  return measuring.measureText(text).width / 100
}

const stamp = (a: Annotation) => {
  const { x, y, w, h } = a.position
  if (w <= 0 || h <= 0) return nothing
  const color = cssColor(defaultColor(a))
  const border = a.lineWidth ?? Math.max(1, Math.min(w, h) * 0.06)
  const inset = border / 2 + Math.min(1, h * 0.02)
  const label = stampLabel(a).replace(/\s+/g, " ").trim()
  const room = w - 2 * inset - 2 * border - h * 0.2
  const perPoint = boldWidthPerPoint(label)
  const size = Math.max(0, Math.min(h * 0.55, perPoint > 0 ? room / perPoint : Infinity))
  return svg`<rect x=${x + inset} y=${y + inset} width=${Math.max(0, w - 2 * inset)} height=${
    Math.max(0, h - 2 * inset)
  } rx=${h * 0.2} fill="transparent" stroke=${color} stroke-width=${border}></rect>
    <text x=${x + w / 2} y=${y + h / 2} text-anchor="middle" dominant-baseline="central" fill=${color}
      font-family=${APPEARANCE_FONT} font-weight="bold" font-size=${size}>${label}</text>`
}

const shape = (a: Annotation) => {
  const { x, y, w, h } = a.position
  const width = a.lineWidth ?? 1
  const inset = width / 2
  const fill = a.interiorColor ? cssColor(a.interiorColor) : "transparent"
  const stroke = width > 0 ? cssColor(defaultColor(a)) : "none"
  const iw = Math.max(0, w - 2 * inset)
  const ih = Math.max(0, h - 2 * inset)
  return a.type === "Square"
    ? svg`<rect x=${x + inset} y=${
      y + inset
    } width=${iw} height=${ih} fill=${fill} stroke=${stroke} stroke-width=${width}></rect>`
    : svg`<ellipse cx=${x + w / 2} cy=${y + h / 2} rx=${iw / 2} ry=${
      ih / 2
    } fill=${fill} stroke=${stroke} stroke-width=${width}></ellipse>`
}

/** A line ending at `tip`, the line coming from `from` (PDF 32000-1 table 176). */
const ending = (kind: LineEnding, tip: Point, from: Point, width: number, color: string, fill: string) => {
  if (kind === "None") return nothing
  const angle = Math.atan2(tip.y - from.y, tip.x - from.x)
  const size = Math.max(6, width * 4)
  const at = (along: number, across: number) => ({
    x: tip.x + along * Math.cos(angle) - across * Math.sin(angle),
    y: tip.y + along * Math.sin(angle) + across * Math.cos(angle)
  })
  const stroked = (d: string, filled: string) =>
    svg`<path d=${d} stroke=${color} stroke-width=${width} fill=${filled} stroke-linejoin="miter"></path>`
  const half = size / 2
  switch (kind) {
    case "OpenArrow":
      return stroked(path([at(-size, -half), at(0, 0), at(-size, half)]), "none")
    case "ClosedArrow":
      return stroked(path([at(-size, -half), at(0, 0), at(-size, half)], true), fill)
    case "ROpenArrow":
      return stroked(path([at(size, -half), at(0, 0), at(size, half)]), "none")
    case "RClosedArrow":
      return stroked(path([at(size, -half), at(0, 0), at(size, half)], true), fill)
    case "Butt":
      return stroked(path([at(0, -half), at(0, half)]), "none")
    case "Slash":
      return stroked(path([at(-half / 2, -half), at(half / 2, half)]), "none")
    case "Square":
      return stroked(path([at(-half, -half), at(half, -half), at(half, half), at(-half, half)], true), fill)
    case "Diamond":
      return stroked(path([at(-half, 0), at(0, -half), at(half, 0), at(0, half)], true), fill)
    case "Circle":
      return svg`<circle cx=${tip.x} cy=${tip.y} r=${half} stroke=${color} stroke-width=${width} fill=${fill}></circle>`
  }
}

const line = (a: Annotation) => {
  const points = a.points ?? []
  if (points.length < 2) return nothing
  const width = a.lineWidth ?? 1
  const color = cssColor(defaultColor(a))
  const fill = a.interiorColor ? cssColor(a.interiorColor) : color
  const closed = a.type === "Polygon"
  const d = path(points, closed)
  const [start, end] = a.lineEndings ?? ["None", "None"]
  return svg`<path d=${d} stroke=${color} stroke-width=${width} fill=${
    closed && a.interiorColor ? cssColor(a.interiorColor) : "none"
  } stroke-linejoin="round" stroke-linecap="round"></path>${hitArea(d)}${
    closed ? nothing : ending(start, points[0]!, points[1]!, width, color, fill)
  }${closed ? nothing : ending(end, points[points.length - 1]!, points[points.length - 2]!, width, color, fill)}`
}

const ink = (a: Annotation) => {
  const d = (a.inkList ?? []).filter((s) => s.length > 0).map((s) => path(s.length === 1 ? [s[0]!, s[0]!] : s)).join(
    ""
  )
  return svg`<path d=${d} stroke=${cssColor(defaultColor(a))} stroke-width=${
    a.lineWidth ?? 1
  } fill="none" stroke-linejoin="round" stroke-linecap="round"></path>${hitArea(d)}`
}

/** A redaction mark: an outline with a light fill, so the reader still sees (and can check) what it covers. */
const redaction = (a: Annotation) => {
  const color = cssColor(defaultColor(a))
  const areas = a.type === "RedactText" ? quadsOf(a) : [a.position]
  return svg`<g class="redaction">${
    areas.map((q) =>
      svg`<rect x=${q.x} y=${q.y} width=${q.w} height=${q.h} fill=${color} fill-opacity="0.18" stroke=${color} stroke-width="1"></rect>`
    )
  }</g>`
}

const body = (
  a: Annotation,
  editing: boolean
): SVGTemplateResult | ReadonlyArray<SVGTemplateResult> | typeof nothing => {
  switch (a.type) {
    case "Highlight":
      return highlight(a)
    case "Underline":
      return textLine(a, "under")
    case "StrikeOut":
      return textLine(a, "through")
    case "Squiggly":
      return squiggly(a)
    case "Text":
      return note(a)
    case "FreeText":
      return freeText(a, editing)
    case "Square":
    case "Circle":
      return shape(a)
    case "Line":
    case "PolyLine":
    case "Polygon":
      return line(a)
    case "Ink":
      return ink(a)
    case "Stamp":
      return stamp(a)
    case "RedactText":
    case "Redact":
      return redaction(a)
  }
}

/**
 * One annotation, in a group that names it (`data-id`) for the pointer and for tests, with its
 * opacity; `editing`: its text is being typed in a field over it (FreeText), so not drawn twice.
 */
export const drawAnnotation = (a: Annotation, options: { readonly selected: boolean; readonly editing: boolean }) =>
  svg`<g class=${`annotation ${a.type}${liesOverText(a.type) ? " over-text" : ""}${
    options.selected ? " selected" : ""
  }`} data-id=${a.id} data-type=${a.type}
    opacity=${a.opacity ?? 1}>${body(a, options.editing)}</g>`

/** Handle positions of a box, by name: corners and edge middles. */
export const BOX_HANDLES = ["nw", "n", "ne", "e", "se", "s", "sw", "w"] as const
export type BoxHandle = typeof BOX_HANDLES[number]

export const handlePoint = (box: { x: number; y: number; w: number; h: number }, handle: BoxHandle): Point => ({
  x: box.x + (handle.includes("w") ? 0 : handle.includes("e") ? box.w : box.w / 2),
  y: box.y + (handle.includes("n") ? 0 : handle.includes("s") ? box.h : box.h / 2)
})

/**
 * The selection's frame and handles, sized in screen pixels whatever the zoom (`unit`: points per
 * CSS pixel). A line has a handle at each end instead of a box's eight.
 */
export const drawSelection = (a: Annotation, unit: number, resizable: boolean) => {
  const box = boundsOf(a)
  const size = 8 * unit
  const handle = (name: string, p: Point) =>
    svg`<rect class="handle" data-handle=${name} x=${p.x - size / 2} y=${
      p.y - size / 2
    } width=${size} height=${size}></rect>`
  const ends = a.type === "Line" && a.points?.length === 2
  return svg`<g class="selection" data-for=${a.id}>
    <rect class="frame" x=${box.x - 2 * unit} y=${box.y - 2 * unit} width=${box.w + 4 * unit} height=${
    box.h + 4 * unit
  }></rect>
    ${
    !resizable
      ? nothing
      : ends
      ? [handle("start", a.points![0]!), handle("end", a.points![1]!)]
      : BOX_HANDLES.map((name) => handle(name, handlePoint(box, name)))
  }
  </g>`
}
