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
  file: svg`<path d="M14 3H6v18h12V7z"/><path d="M14 3v4h4"/>`
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
