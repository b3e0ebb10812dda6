/**
 * What the side panels share: the panel's surface and the look of a tree row. Colours come from the
 * viewer's custom properties (they cross the shadow boundary), with the light theme's values as
 * fallbacks so a panel used alone still looks right.
 */
import { css, html } from "lit"

export const panelStyles = css`
  :host {
    display: block;
    height: 100%;
    overflow: auto;
    box-sizing: border-box;
    background: var(--docstack-panel-background, #f4f4f5);
    color: var(--docstack-text, #1f2328);
  }
  [hidden] {
    display: none !important;
  }
  .message {
    margin: 0;
    padding: 12px;
    color: var(--docstack-muted, #6b7280);
  }
`

export const treeStyles = css`
  .tree {
    padding: 4px;
    outline: none;
  }
  .row {
    display: flex;
    align-items: center;
    gap: 4px;
    min-height: 28px;
    padding: 2px 8px 2px calc(4px + (var(--level) - 1) * 16px);
    border-radius: 4px;
    cursor: pointer;
    user-select: none;
  }
  .row:hover {
    background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 10%, transparent);
  }
  .row:focus-visible {
    outline: 2px solid var(--docstack-focus, #0b62d6);
    outline-offset: -2px;
  }
  .row.inert {
    cursor: default;
    color: var(--docstack-muted, #6b7280);
  }
  .row[aria-current] {
    background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 16%, transparent);
    color: var(--docstack-accent, #0b62d6);
    font-weight: 600;
  }
  .toggle {
    flex: none;
    display: grid;
    place-items: center;
    width: 20px;
    height: 20px;
    color: var(--docstack-muted, #6b7280);
  }
  .toggle svg {
    width: 14px;
    height: 14px;
    transition: transform 0.1s;
  }
  [aria-expanded="true"] > .toggle svg {
    transform: rotate(90deg);
  }
  .label {
    flex: 1 1 auto;
    min-width: 0;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
`

/** The chevron of an expandable row (turned down by CSS when open). */
export const chevron = html`<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2.5"
  stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M9 6l6 6-6 6"/></svg>`

/** A page's thumbnail: a white sheet with the page's shadow, turned for night reading as the pages are. */
export const thumbnailBoxStyles = css`
  .box {
    position: relative;
    overflow: hidden;
    background: #fff;
    box-shadow: var(--docstack-page-shadow, 0 1px 3px rgba(0, 0, 0, 0.25));
    filter: var(--docstack-page-filter, none);
  }
`
