/**
 * The viewer's icons as inline SVG paths (24×24, stroked with currentColor), so nothing is fetched
 * at run time and they follow the theme's text colour.
 */
import { css, svg } from "lit"

const paths = {
  sidebar: svg`<rect x="3" y="4" width="18" height="16" rx="2"/><path d="M9 4v16"/>`,
  first: svg`<path d="M18 17l-5-5 5-5M11 17l-5-5 5-5"/>`,
  previous: svg`<path d="M15 18l-6-6 6-6"/>`,
  next: svg`<path d="M9 18l6-6-6-6"/>`,
  last: svg`<path d="M6 17l5-5-5-5M13 17l5-5-5-5"/>`,
  up: svg`<path d="M18 15l-6-6-6 6"/>`,
  down: svg`<path d="M6 9l6 6 6-6"/>`,
  zoomIn: svg`<circle cx="11" cy="11" r="7"/><path d="M21 21l-4.3-4.3M11 8v6M8 11h6"/>`,
  zoomOut: svg`<circle cx="11" cy="11" r="7"/><path d="M21 21l-4.3-4.3M8 11h6"/>`,
  rotate: svg`<path d="M21 12a9 9 0 1 1-3-6.7L21 8"/><path d="M21 3v5h-5"/>`,
  rotateAll: svg`<path d="M21 12a9 9 0 1 1-3-6.7L21 8"/><path d="M21 3v5h-5"/><rect x="9" y="9" width="6" height="6"/>`,
  search: svg`<circle cx="11" cy="11" r="7"/><path d="M21 21l-4.3-4.3"/>`,
  download: svg`<path d="M12 3v12M7 10l5 5 5-5M5 21h14"/>`,
  print: svg`<path d="M6 9V3h12v6"/><rect x="3" y="9" width="18" height="8" rx="2"/><path d="M6 14h12v7H6z"/>`,
  fullScreen: svg`<path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5"/>`,
  moon: svg`<path d="M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z"/>`,
  more: svg`<circle cx="5" cy="12" r="1"/><circle cx="12" cy="12" r="1"/><circle cx="19" cy="12" r="1"/>`,
  close: svg`<path d="M6 6l12 12M18 6L6 18"/>`,
  file: svg`<path d="M14 3H6v18h12V7z"/><path d="M14 3v4h4"/>`,
  // Annotating, redacting, comparing, arranging pages
  annotate: svg`<path d="M4 20h4L19 9l-4-4L4 16z"/><path d="M13.5 6.5l4 4"/>`,
  pointer: svg`<path d="M6 3l12 9-5.5 1.2L15 19l-2.5 1.2-2.6-5.8L6 18z"/>`,
  highlight:
    svg`<path d="M9 15l-3 3h5l1-1"/><path d="M8.5 13.5l6-9 5 3.5-6 9z"/><path d="M4 21h16" stroke-width="3" opacity="0.5"/>`,
  underline: svg`<path d="M7 4v7a5 5 0 0 0 10 0V4"/><path d="M5 20h14"/>`,
  strikeout:
    svg`<path d="M16 6.5C15 5 13.6 4 11.8 4 9.5 4 8 5.3 8 7.2c0 4 8.5 2.8 8.5 7.6 0 2.2-1.9 3.2-4.5 3.2-2 0-3.7-.8-4.6-2.4"/><path d="M4 12h16"/>`,
  squiggly: svg`<path d="M7 4v6a5 5 0 0 0 10 0V4"/><path d="M3 19l2-2 2 2 2-2 2 2 2-2 2 2 2-2 2 2 2-2"/>`,
  note: svg`<path d="M4 4h16v12H10l-5 4v-4H4z"/><path d="M8 9h8M8 12h5"/>`,
  freeText: svg`<path d="M5 6V4h14v2M12 4v16M9 20h6"/>`,
  square: svg`<rect x="4" y="5" width="16" height="14" rx="1"/>`,
  circle: svg`<ellipse cx="12" cy="12" rx="8.5" ry="7"/>`,
  line: svg`<path d="M5 19L19 5"/>`,
  arrow: svg`<path d="M5 19L19 5M10 5h9v9"/>`,
  polygon: svg`<path d="M12 3l8 6-3 10H7L4 9z"/>`,
  ink: svg`<path d="M3 17c3-6 5-9 7-8s-2 7 1 8 5-8 7-7 1 5 3 5"/>`,
  stamp: svg`<path d="M9 13V9a3 3 0 1 1 6 0v4"/><path d="M4 13h16v4H4zM6 20h12"/>`,
  undo: svg`<path d="M9 7H4v5"/><path d="M4 12a8 8 0 1 0 2.3-5.6L4 7"/>`,
  redo: svg`<path d="M15 7h5v5"/><path d="M20 12a8 8 0 1 1-2.3-5.6L20 7"/>`,
  trash: svg`<path d="M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3"/>`,
  redact: svg`<rect x="3" y="8" width="18" height="8" rx="1" fill="currentColor"/>`,
  redactText: svg`<path d="M4 6h16M4 18h16"/><rect x="6" y="9.5" width="12" height="5" fill="currentColor"/>`,
  redactArea:
    svg`<rect x="4" y="4" width="16" height="16" rx="1" stroke-dasharray="3 2"/><rect x="8" y="8" width="8" height="8" fill="currentColor"/>`,
  importFile: svg`<path d="M12 15V3M7 8l5-5 5 5M5 21h14"/>`,
  list: svg`<path d="M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01"/>`,
  compare: svg`<rect x="3" y="4" width="8" height="16" rx="1"/><rect x="13" y="4" width="8" height="16" rx="1"/>`,
  pages:
    svg`<rect x="4" y="4" width="7" height="7" rx="1"/><rect x="13" y="4" width="7" height="7" rx="1"/><rect x="4" y="13" width="7" height="7" rx="1"/><rect x="13" y="13" width="7" height="7" rx="1"/>`,
  check: svg`<path d="M5 12l5 5 9-10"/>`,
  bookmark: svg`<path d="M6 3h12v18l-6-5-6 5z"/>`,
  tree: svg`<path d="M4 5h6M8 12h6M8 19h6M5 5v14M5 12h3M5 19h3"/>`,
  link:
    svg`<path d="M10 14a4.5 4.5 0 0 0 6.4 0l3-3a4.5 4.5 0 0 0-6.4-6.4l-1 1"/><path d="M14 10a4.5 4.5 0 0 0-6.4 0l-3 3a4.5 4.5 0 0 0 6.4 6.4l1-1"/>`,
  swap: svg`<path d="M4 8h15M15 4l4 4-4 4M20 16H5M9 12l-4 4 4 4"/>`,
  imageCompare:
    svg`<rect x="3" y="5" width="18" height="14" rx="1"/><path d="M12 3v18"/><path d="M3 16l4-4 3 3M14 15l2-2 5 5"/>`,
  // Organizing pages
  moveEarlier: svg`<path d="M20 12H6M11 7l-5 5 5 5"/><path d="M3 5v14"/>`,
  moveLater: svg`<path d="M4 12h14M13 7l5 5-5 5"/><path d="M21 5v14"/>`,
  reset: svg`<path d="M3 12a9 9 0 1 0 3-6.7L3 8"/><path d="M3 3v5h5"/>`,
  extract: svg`<path d="M13 3H5v18h6"/><path d="M13 3l5 5v3"/><path d="M15 17h7M19 14l3 3-3 3"/>`,
  merge: svg`<rect x="3" y="3" width="10" height="13" rx="1"/><path d="M16 8h4v13H9v-2"/>`,
  save: svg`<path d="M14 3H6v18h12V7z"/><path d="M14 3v4h4M12 11v6M9 14h6"/>`
}

export type IconName = keyof typeof paths

export const icon = (name: IconName) =>
  svg`<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">${paths[name]}</svg>`

/** How an icon is drawn inside a button, in every shadow root that shows one. */
export const iconStyles = css`
  svg {
    width: 18px;
    height: 18px;
    fill: none;
    stroke: currentColor;
    stroke-width: 2;
    stroke-linecap: round;
    stroke-linejoin: round;
  }
`

/** A row of controls under the toolbar (the find bar, the annotation tools). */
export const barStyles = css`
  :host {
    display: flex;
    align-items: center;
    flex-wrap: wrap;
    gap: 4px;
    padding: 4px 6px;
    background: var(--docstack-toolbar-background, #fafafa);
    border-bottom: 1px solid var(--docstack-border, #d4d4d8);
  }
`
