/**
 * A page's annotations over its image: one SVG in the page's points (so zoom only scales it), the
 * selection's handles, what is being drawn, and the field free text is typed into. The SVG takes
 * the pointer only where an annotation is drawn, or everywhere while a drawing tool is chosen; the
 * text layer under it keeps the rest, so text can still be selected between annotations.
 */
import { html, nothing, svg } from "lit"
import { repeat } from "lit/directives/repeat.js"
import { APPEARANCE_FONT, drawAnnotation, drawSelection } from "./AnnotationDrawing.ts"
import { AnnotationEditor } from "./AnnotationEditor.ts"
import type { Annotation } from "./AnnotationModel.ts"
import { cssColor } from "./AnnotationModel.ts"

export interface LayerState {
  readonly annotations: ReadonlyArray<Annotation>
  readonly selected: string | null
  /** The free text annotation whose text is being typed. */
  readonly editing: Annotation | null
  /** What is being drawn on this page, if anything. */
  readonly draft: Annotation | null
  /** The page's size in points as displayed. */
  readonly width: number
  readonly height: number
  /** CSS pixels per point at the current zoom. */
  readonly scale: number
  /** A drawing tool is chosen: the whole page takes the pointer. */
  readonly drawing: boolean
  readonly readOnly: boolean
  readonly label: (a: Annotation) => string
  readonly onText: (a: Annotation, text: string) => void
}

/** The field over a free text annotation, in CSS pixels, its text in the annotation's font and size. */
const freeTextField = (a: Annotation, state: LayerState) => {
  const { x, y, w, h } = a.position
  const s = state.scale
  const size = (a.fontSize ?? 12) * s
  const padding = ((a.lineWidth ?? 0) + 2) * s
  const style = `left:${x * s}px;top:${y * s}px;width:${w * s}px;height:${h * s}px;` +
    `font:${size}px/1.2 ${APPEARANCE_FONT};padding:${padding}px;color:${cssColor(a.fontColor ?? { r: 0, g: 0, b: 0 })}`
  const done = (event: Event) => state.onText(a, (event.target as HTMLTextAreaElement).value)
  return html`<textarea class="free-text-field" style=${style} aria-label=${state.label(a)} .value=${a.contents ?? ""}
    @blur=${done} @keydown=${(event: KeyboardEvent) => {
    // Escape ends the typing (not the viewer's Escape); Enter makes a new line as in any text box.
    if (event.key === "Escape") (event.target as HTMLTextAreaElement).blur()
    event.stopPropagation()
  }}></textarea>`
}

export const annotationLayer = (state: LayerState) => {
  const selected = state.selected === null ? undefined : state.annotations.find((a) => a.id === state.selected)
  const unit = 1 / state.scale
  return html`<svg class=${`annotation-layer${
    state.drawing ? " drawing" : ""
  }`} viewBox=${`0 0 ${state.width} ${state.height}`}
    preserveAspectRatio="none" aria-hidden="true">
    ${
    repeat(
      state.annotations,
      (a) => a.id,
      (a) => drawAnnotation(a, { selected: a.id === state.selected, editing: a.id === state.editing?.id })
    )
  }
    ${
    state.draft
      ? svg`<g class="draft">${drawAnnotation(state.draft, { selected: false, editing: false })}</g>`
      : nothing
  }
    ${selected ? drawSelection(selected, unit, !state.readOnly && AnnotationEditor.resizable(selected)) : nothing}
  </svg>${state.editing ? freeTextField(state.editing, state) : nothing}`
}
