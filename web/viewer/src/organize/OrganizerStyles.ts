/**
 * The organizer's look: the grid of pages and the bar above it. Colours come from the viewer's
 * custom properties (they cross the shadow boundary), with the light theme's values as fallbacks.
 */
import { css } from "lit"
import { thumbnailBoxStyles } from "../panels/PanelStyles.ts"
import { iconStyles } from "../toolbar/Icons.ts"

const focusRing = css`
  :focus-visible {
    outline: 2px solid var(--docstack-focus, #0b62d6);
    outline-offset: 1px;
  }
`

/** The marks of the documents a copy's pages come from (A, B, C…), told apart by colour as well as letter. */
const sourcePalette = css`
  :host {
    --source-0: #1d4ed8;
    --source-1: #0f766e;
    --source-2: #b45309;
    --source-3: #7c3aed;
    --source-4: #be185d;
    --source-5: #4d7c0f;
  }
`

export const gridStyles = [
  thumbnailBoxStyles,
  focusRing,
  sourcePalette,
  css`
    :host {
      display: block;
      position: relative;
      overflow: auto;
      overscroll-behavior: contain;
      background: var(--docstack-background, #e5e7eb);
      color: var(--docstack-text, #1f2328);
    }
    .grid {
      position: relative;
      outline: none;
      user-select: none;
      -webkit-user-select: none;
    }
    .cell {
      position: absolute;
      box-sizing: border-box;
      display: flex;
      flex-direction: column;
      align-items: center;
      padding: 6px 6px 0;
      border-radius: 8px;
      cursor: grab;
      touch-action: pan-y;
    }
    .cell:hover {
      background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 8%, transparent);
    }
    .cell.selected {
      background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 16%, transparent);
      box-shadow: inset 0 0 0 2px var(--docstack-accent, #0b62d6);
    }
    .cell:focus-visible {
      outline: 3px solid var(--docstack-focus, #0b62d6);
      outline-offset: 2px;
    }
    .cell.dragged {
      opacity: 0.35;
    }
    .frame {
      position: relative;
      align-self: stretch;
      display: flex;
      align-items: center;
      justify-content: center;
    }
    .box img {
      display: block;
      width: 100%;
      height: 100%;
    }
    .no-image {
      position: absolute;
      inset: 0;
      display: flex;
      align-items: center;
      justify-content: center;
      padding: 4px;
      text-align: center;
      font-size: 11px;
      color: #6b7280;
    }
    .source {
      position: absolute;
      top: 4px;
      left: 4px;
      min-width: 18px;
      height: 18px;
      border-radius: 4px;
      background: var(--source);
      color: #fff;
      font-size: 11px;
      font-weight: 700;
      line-height: 18px;
      text-align: center;
    }
    .check {
      position: absolute;
      top: -4px;
      right: -4px;
      width: 20px;
      height: 20px;
      border-radius: 50%;
      background: var(--docstack-accent, #0b62d6)
        url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24' fill='none' stroke='white' stroke-width='3' stroke-linecap='round' stroke-linejoin='round'%3E%3Cpath d='M5 12l5 5 9-10'/%3E%3C/svg%3E")
        center / 14px no-repeat;
      border: 2px solid var(--docstack-background, #e5e7eb);
    }
    .label {
      display: flex;
      align-items: baseline;
      gap: 6px;
      height: 22px;
      padding-top: 4px;
      box-sizing: border-box;
      font-size: 12px;
      font-variant-numeric: tabular-nums;
      white-space: nowrap;
    }
    .number {
      font-weight: 600;
    }
    .cell.selected .number {
      color: var(--docstack-accent, #0b62d6);
    }
    .origin {
      color: var(--docstack-muted, #6b7280);
    }
    .marker {
      position: absolute;
      width: 4px;
      border-radius: 2px;
      background: var(--docstack-accent, #0b62d6);
      box-shadow: 0 0 0 2px var(--docstack-background, #e5e7eb);
      pointer-events: none;
    }
    .ghost {
      position: absolute;
      min-width: 22px;
      padding: 2px 7px;
      border-radius: 12px;
      background: var(--docstack-accent, #0b62d6);
      color: var(--docstack-toolbar-background, #fff);
      font-size: 12px;
      font-weight: 700;
      text-align: center;
      box-shadow: 0 2px 6px rgba(0, 0, 0, 0.3);
      pointer-events: none;
    }
  `
]

/** Buttons and fields of the organizer's bar and its merge dialog. */
export const controlStyles = [
  iconStyles,
  focusRing,
  css`
    [hidden] {
      display: none !important;
    }
    button {
      display: inline-flex;
      align-items: center;
      justify-content: center;
      gap: 6px;
      min-width: 32px;
      height: 32px;
      padding: 0 8px;
      border: 1px solid transparent;
      border-radius: 6px;
      background: transparent;
      color: inherit;
      font: inherit;
      white-space: nowrap;
      cursor: pointer;
    }
    button:hover:not([aria-disabled="true"]) {
      background: color-mix(in srgb, currentColor 8%, transparent);
    }
    button[aria-disabled="true"] {
      opacity: 0.45;
      cursor: default;
    }
    button.primary {
      background: var(--docstack-accent, #0b62d6);
      /* The bar's colour on the accent: white on the light theme's blue, near black on the dark's. */
      color: var(--docstack-toolbar-background, #fff);
    }
    button[aria-expanded="true"] {
      background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 18%, transparent);
      border-color: color-mix(in srgb, var(--docstack-accent, #0b62d6) 45%, transparent);
    }
    button.primary:hover:not([aria-disabled="true"]) {
      background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 85%, black);
    }
    button.outlined {
      border-color: var(--docstack-border, #d4d4d8);
      background: var(--docstack-toolbar-background, #fff);
    }
    input[type="text"] {
      flex: 1 1 14em;
      min-width: 8em;
      max-width: 28em;
      height: 30px;
      padding: 0 8px;
      box-sizing: border-box;
      border: 1px solid var(--docstack-border, #d4d4d8);
      border-radius: 4px;
      background: var(--docstack-toolbar-background, #fff);
      color: inherit;
      font: inherit;
    }
  `
]

export const organizerStyles = [
  controlStyles,
  sourcePalette,
  css`
    :host {
      display: flex;
      flex-direction: column;
      min-width: 0;
      min-height: 0;
      container-type: inline-size;
      background: var(--docstack-background, #e5e7eb);
      color: var(--docstack-text, #1f2328);
    }
    .bar,
    .status {
      flex: none;
    }
    .bar {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 4px 6px;
      padding: 6px 8px;
      background: var(--docstack-toolbar-background, #fafafa);
      border-bottom: 1px solid var(--docstack-border, #d4d4d8);
    }
    .group {
      display: flex;
      align-items: center;
      gap: 2px;
    }
    .group + .group {
      padding-left: 6px;
      border-left: 1px solid var(--docstack-border, #d4d4d8);
    }
    /* Where the bar breaks when narrow: the title field then starts a row with the buttons that use it. */
    .break {
      display: none;
    }
    .spacer {
      flex: 1 1 0;
    }
    h2 {
      margin: 0 6px 0 2px;
      font-size: 15px;
      font-weight: 600;
      white-space: nowrap;
    }
    .title-field {
      display: flex;
      align-items: center;
      gap: 6px;
      flex: 1 1 18em;
      min-width: 0;
    }
    .title-field label {
      white-space: nowrap;
      color: var(--docstack-muted, #6b7280);
    }
    .size {
      display: flex;
      align-items: center;
      gap: 4px;
      color: var(--docstack-muted, #6b7280);
    }
    .size input {
      width: 90px;
    }
    .status {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 4px 12px;
      padding: 4px 10px;
      min-height: 26px;
      box-sizing: border-box;
      font-size: 13px;
      background: var(--docstack-panel-background, #f4f4f5);
      border-bottom: 1px solid var(--docstack-border, #d4d4d8);
      color: var(--docstack-muted, #6b7280);
    }
    .status .count {
      color: var(--docstack-text, #1f2328);
      font-variant-numeric: tabular-nums;
    }
    .legend-list {
      display: inline-flex;
      flex-wrap: wrap;
      gap: 4px 10px;
    }
    .legend {
      display: inline-flex;
      align-items: center;
      gap: 4px;
      max-width: 18em;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .legend .source {
      flex: none;
      min-width: 16px;
      height: 16px;
      border-radius: 4px;
      color: #fff;
      font-size: 10px;
      font-weight: 700;
      line-height: 16px;
      text-align: center;
    }
    .main {
      position: relative;
      flex: 1 1 auto;
      min-height: 0;
      display: flex;
      flex-direction: column;
    }
    docstack-organizer-grid {
      flex: 1 1 auto;
      min-height: 0;
    }
    .message {
      margin: auto;
      max-width: 30em;
      padding: 24px;
      text-align: center;
      color: var(--docstack-muted, #6b7280);
    }
    /* Narrow: the bar's buttons keep their icons and say their names by label and tooltip only. */
    @container (max-width: 760px) {
      .wide-label {
        display: none;
      }
      .title-field {
        flex-basis: 8em;
      }
      .break {
        display: block;
        flex-basis: 100%;
      }
      .title-field label {
        display: none;
      }
      .size {
        display: none;
      }
    }
  `
]
