/**
 * How the comparison looks: its toolbar, the side panel (changes, thumbnails), the two sides with
 * their pages (pageStyles) and the changed words: taken out red on the left, put in green on the
 * right, the current change stronger. Colours are the viewer's custom properties, and
 * `--docstack-deleted`, `--docstack-inserted` and `--docstack-modified` for the changes.
 */
import { css } from "lit"
import { pageStyles } from "../pages/PageStyles.ts"
import { iconStyles } from "../toolbar/Icons.ts"

export const compareStyles = [
  iconStyles,
  pageStyles,
  css`
    :host {
      --deleted: var(--docstack-deleted, #c0262d);
      --inserted: var(--docstack-inserted, #15803d);
      display: flex;
      flex-direction: column;
      position: relative;
      background: var(--docstack-background);
    }
    [hidden] {
      display: none !important;
    }
    button {
      font: inherit;
      color: inherit;
    }
    :focus-visible {
      outline: 2px solid var(--docstack-focus);
      outline-offset: 1px;
    }

    .bar {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 2px;
      padding: 4px 6px;
      background: var(--docstack-toolbar-background);
      border-bottom: 1px solid var(--docstack-border);
    }
    .tool {
      display: inline-flex;
      align-items: center;
      gap: 6px;
      min-width: 32px;
      height: 32px;
      padding: 0 6px;
      border-radius: 6px;
      border: 1px solid transparent;
      background: none;
      cursor: pointer;
      white-space: nowrap;
    }
    .tool:hover:not(:disabled) {
      background: color-mix(in srgb, var(--docstack-text) 8%, transparent);
    }
    .tool[aria-pressed="true"] {
      border-color: color-mix(in srgb, var(--docstack-accent) 45%, transparent);
      background: color-mix(in srgb, var(--docstack-accent) 18%, transparent);
    }
    .tool:disabled {
      cursor: default;
      opacity: 0.4;
    }
    .tool.zoom {
      min-width: 4.2em;
      justify-content: center;
      font-variant-numeric: tabular-nums;
    }
    .separator {
      width: 1px;
      height: 22px;
      margin: 0 4px;
      background: var(--docstack-border);
    }
    .spring {
      flex: 1 1 auto;
    }
    .count {
      min-width: 8.5em;
      padding: 0 6px;
      text-align: center;
      white-space: nowrap;
      font-variant-numeric: tabular-nums;
    }
    .spinner {
      display: inline-block;
      width: 14px;
      height: 14px;
      margin-right: 6px;
      vertical-align: -2px;
      border-radius: 50%;
      border: 2px solid var(--docstack-border);
      border-top-color: var(--docstack-accent);
      animation: spin 0.9s linear infinite;
    }

    .body {
      flex: 1 1 auto;
      display: flex;
      position: relative;
      min-height: 0;
    }
    .panel {
      flex: none;
      width: 300px;
      display: flex;
      flex-direction: column;
      min-height: 0;
      border-right: 1px solid var(--docstack-border);
      background: var(--docstack-panel-background);
    }
    :host([narrow]) .panel {
      position: absolute;
      z-index: 10;
      inset: 0 auto 0 0;
      width: min(320px, 88%);
      box-shadow: 4px 0 16px rgba(0, 0, 0, 0.25);
    }
    .tabs {
      display: flex;
      border-bottom: 1px solid var(--docstack-border);
    }
    .tabs button {
      flex: 1 1 0;
      padding: 8px 4px;
      border: 0;
      border-bottom: 2px solid transparent;
      background: none;
      color: var(--docstack-muted);
      cursor: pointer;
    }
    .tabs button[aria-selected="true"] {
      color: var(--docstack-text);
      border-bottom-color: var(--docstack-accent);
    }
    /* Whose thumbnails: two halves of one control, not a second row of tabs. */
    .choice {
      display: flex;
      margin: 8px 10px 4px;
      border: 1px solid var(--docstack-border);
      border-radius: 6px;
      font-size: 13px;
    }
    .choice button {
      flex: 1 1 0;
      padding: 3px 4px;
      border: 0;
      border-radius: 5px;
      background: none;
      color: var(--docstack-muted);
      cursor: pointer;
    }
    .choice button[aria-pressed="true"] {
      background: color-mix(in srgb, var(--docstack-accent) 16%, transparent);
      color: var(--docstack-text);
      font-weight: 600;
    }
    .panel-body {
      flex: 1 1 auto;
      display: flex;
      flex-direction: column;
      min-height: 0;
    }
    .panel-body > docstack-change-list,
    .panel-body > docstack-thumbnails {
      flex: 1 1 auto;
      min-height: 0;
    }
    .counts {
      margin: 0;
      padding: 8px 12px 2px;
      font-size: 12px;
      color: var(--docstack-muted);
    }
    .note {
      margin: 0;
      padding: 12px;
      color: var(--docstack-muted);
    }
    .note.error {
      color: var(--deleted);
    }
    .retry {
      display: block;
      margin-top: 8px;
      padding: 4px 12px;
      border-radius: 6px;
      border: 1px solid var(--docstack-border);
      background: var(--docstack-background);
      cursor: pointer;
    }

    .sides {
      flex: 1 1 auto;
      display: flex;
      min-width: 0;
      min-height: 0;
    }
    :host([narrow]) .sides {
      flex-direction: column;
    }
    .side {
      flex: 1 1 0;
      display: flex;
      flex-direction: column;
      min-width: 0;
      min-height: 0;
    }
    .side + .side {
      border-left: 1px solid var(--docstack-border);
    }
    :host([narrow]) .side + .side {
      border-left: 0;
      border-top: 2px solid var(--docstack-border);
    }
    .side header {
      display: flex;
      align-items: center;
      gap: 8px;
      min-height: 26px;
      padding: 2px 8px;
      font-size: 12px;
      background: var(--docstack-toolbar-background);
      border-bottom: 1px solid var(--docstack-border);
    }
    .role {
      flex: none;
      padding: 1px 8px;
      border-radius: 9px;
      font-weight: 600;
    }
    .role.left {
      color: var(--deleted);
      background: color-mix(in srgb, var(--deleted) 12%, transparent);
    }
    .role.right {
      color: var(--inserted);
      background: color-mix(in srgb, var(--inserted) 12%, transparent);
    }
    .side header .title {
      flex: 1 1 auto;
      min-width: 0;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .side header .pages {
      flex: none;
      color: var(--docstack-muted);
      font-variant-numeric: tabular-nums;
    }
    docstack-compared-side {
      flex: 1 1 auto;
      display: flex;
      min-height: 0;
    }
    /* What a side says instead of pages (StatusMessage.ts): opening, converting, why it cannot. */
    .viewport .message {
      position: absolute;
      inset: 0;
      display: grid;
      place-items: center;
      padding: 16px;
      text-align: center;
    }
    .viewport .message > div {
      max-width: 28em;
      padding: 14px 18px;
      border-radius: 10px;
      border: 1px solid var(--docstack-border);
      background: var(--docstack-toolbar-background);
    }
    .viewport .message.error > div {
      border-color: var(--deleted);
    }

    .hit.deleted {
      background: color-mix(in srgb, var(--deleted) 28%, transparent);
    }
    .hit.inserted {
      background: color-mix(in srgb, var(--inserted) 28%, transparent);
    }
    .hit.deleted.current,
    .hit.inserted.current {
      outline: 2px solid currentColor;
      outline-offset: 1px;
    }
    .hit.deleted.current {
      color: var(--deleted);
      background: color-mix(in srgb, var(--deleted) 45%, transparent);
    }
    .hit.inserted.current {
      color: var(--inserted);
      background: color-mix(in srgb, var(--inserted) 45%, transparent);
    }
    :host([narrow]) .wide-only {
      display: none;
    }
    @media (prefers-reduced-motion: reduce) {
      .spinner {
        animation: none;
      }
    }
  `
]
