/**
 * The viewer's look. Every colour is a CSS custom property an integrator can set on the element
 * (docs/viewer.md, "Theming"); `theme="dark"` swaps the defaults and inverts the pages for night reading.
 */
import { css } from "lit"
import { pageStyles } from "./pages/PageStyles.ts"
import { iconStyles } from "./toolbar/Icons.ts"

export const viewerStyles = [
  iconStyles,
  pageStyles,
  css`
  :host {
    --docstack-background: #e5e7eb;
    --docstack-toolbar-background: #fafafa;
    --docstack-panel-background: #f4f4f5;
    --docstack-border: #d4d4d8;
    --docstack-text: #1f2328;
    --docstack-muted: #6b7280;
    --docstack-accent: #0b62d6;
    --docstack-focus: #0b62d6;
    --docstack-hit: rgba(255, 200, 0, 0.4);
    --docstack-hit-current: rgba(255, 120, 0, 0.55);
    --docstack-page-shadow: 0 1px 3px rgba(0, 0, 0, 0.25);
    --docstack-page-filter: none;
    --docstack-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
    display: flex;
    flex-direction: column;
    position: relative;
    overflow: hidden;
    min-height: 200px;
    font: 14px/1.3 var(--docstack-font);
    color: var(--docstack-text);
    background: var(--docstack-background);
    contain: strict;
  }
  :host([theme="dark"]) {
    --docstack-background: #18181b;
    --docstack-toolbar-background: #27272a;
    --docstack-panel-background: #202023;
    --docstack-border: #3f3f46;
    --docstack-text: #e4e4e7;
    --docstack-muted: #a1a1aa;
    --docstack-accent: #60a5fa;
    --docstack-focus: #93c5fd;
    --docstack-page-shadow: 0 0 0 1px #52525b, 0 1px 4px rgba(0, 0, 0, 0.6);
    --docstack-page-filter: invert(0.92) hue-rotate(180deg);
    color-scheme: dark;
  }
  :host(:fullscreen) {
    width: 100vw;
    height: 100vh;
  }
  [hidden] {
    display: none !important;
  }
  button,
  input,
  select {
    font: inherit;
    color: inherit;
  }
  :focus-visible {
    outline: 2px solid var(--docstack-focus);
    outline-offset: 1px;
  }

  .toolbar {
    display: flex;
    align-items: center;
    gap: 2px;
    padding: 4px 6px;
    min-height: 40px;
    box-sizing: border-box;
    background: var(--docstack-toolbar-background);
    border-bottom: 1px solid var(--docstack-border);
    flex-wrap: nowrap;
    overflow: hidden;
  }
  .toolbar .title {
    flex: 1 1 auto;
    min-width: 0;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
    padding: 0 8px;
    color: var(--docstack-muted);
  }
  .toolbar .group {
    display: flex;
    align-items: center;
    gap: 2px;
    flex: none;
  }
  .separator {
    width: 1px;
    align-self: stretch;
    margin: 4px 4px;
    background: var(--docstack-border);
  }
  .icon-button {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    min-width: 32px;
    height: 32px;
    padding: 0 6px;
    border: 1px solid transparent;
    border-radius: 6px;
    background: transparent;
    cursor: pointer;
  }
  .icon-button:hover:not(:disabled) {
    background: color-mix(in srgb, var(--docstack-text) 8%, transparent);
  }
  .icon-button[aria-pressed="true"] {
    background: color-mix(in srgb, var(--docstack-accent) 18%, transparent);
    border-color: color-mix(in srgb, var(--docstack-accent) 45%, transparent);
  }
  .icon-button:disabled {
    opacity: 0.4;
    cursor: default;
  }
  .page-number {
    width: 3.5em;
    height: 28px;
    padding: 0 4px;
    text-align: right;
    border: 1px solid var(--docstack-border);
    border-radius: 4px;
    background: var(--docstack-background);
  }
  .page-count {
    padding: 0 6px 0 4px;
    white-space: nowrap;
    color: var(--docstack-muted);
  }
  .zoom-select {
    height: 30px;
    border: 1px solid var(--docstack-border);
    border-radius: 4px;
    background: var(--docstack-background);
    max-width: 8.5em;
  }
  .menu {
    position: absolute;
    z-index: 20;
    right: 6px;
    top: 42px;
    display: flex;
    flex-direction: column;
    min-width: 220px;
    padding: 4px;
    background: var(--docstack-toolbar-background);
    border: 1px solid var(--docstack-border);
    border-radius: 8px;
    box-shadow: 0 6px 20px rgba(0, 0, 0, 0.2);
  }
  .menu button {
    display: flex;
    gap: 10px;
    align-items: center;
    padding: 8px 10px;
    border: 0;
    border-radius: 6px;
    background: transparent;
    text-align: left;
    cursor: pointer;
  }
  .menu button:hover {
    background: color-mix(in srgb, var(--docstack-text) 8%, transparent);
  }

  .body {
    flex: 1 1 auto;
    display: flex;
    min-height: 0;
    position: relative;
  }
  .sidebar {
    flex: none;
    width: 220px;
    display: flex;
    flex-direction: column;
    background: var(--docstack-panel-background);
    border-right: 1px solid var(--docstack-border);
    min-height: 0;
  }
  :host([narrow]) .sidebar {
    position: absolute;
    z-index: 10;
    top: 0;
    bottom: 0;
    left: 0;
    width: min(260px, 80%);
    box-shadow: 4px 0 16px rgba(0, 0, 0, 0.25);
  }
  .tabs {
    display: flex;
    border-bottom: 1px solid var(--docstack-border);
  }
  .tabs button {
    flex: 1 1 auto;
    min-width: 0;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
    padding: 8px 2px;
    font-size: 13px;
    border: 0;
    border-bottom: 2px solid transparent;
    background: transparent;
    cursor: pointer;
    color: var(--docstack-muted);
  }
  .tabs button svg {
    display: none;
  }
  .tabs.compact button svg {
    display: inline-block;
  }
  .tabs.compact button span {
    display: none;
  }
  .tabs button[aria-selected="true"] {
    color: var(--docstack-text);
    border-bottom-color: var(--docstack-accent);
  }
  .panel {
    flex: 1 1 auto;
    min-height: 0;
    display: flex;
    flex-direction: column;
  }
  .panel > * {
    flex: 1 1 auto;
    min-height: 0;
  }

  .selection-menu {
    position: absolute;
    z-index: 15;
    display: flex;
    gap: 2px;
    padding: 3px;
    background: var(--docstack-toolbar-background);
    border: 1px solid var(--docstack-border);
    border-radius: 8px;
    box-shadow: 0 4px 14px rgba(0, 0, 0, 0.2);
  }
  .sidebar.wide {
    width: 300px;
  }
  .view {
    flex: 1 1 auto;
    min-width: 0;
    min-height: 0;
    display: flex;
    flex-direction: column;
  }
  .order-dialog {
    position: absolute;
    inset: 0;
    z-index: 30;
    display: flex;
    align-items: center;
    justify-content: center;
    background: rgba(0, 0, 0, 0.25);
  }
  /* A card over the pages: the order dialog's and the messages'. */
  .order-dialog > div,
  .message > div {
    max-width: 32em;
    padding: 18px 22px;
    border-radius: 10px;
    background: var(--docstack-toolbar-background);
    border: 1px solid var(--docstack-border);
    box-shadow: 0 2px 10px rgba(0, 0, 0, 0.12);
    pointer-events: auto;
  }
  .order-dialog > div {
    min-width: 280px;
    box-shadow: 0 8px 28px rgba(0, 0, 0, 0.3);
  }
  .order-dialog h2 {
    margin: 0 0 8px;
    font-size: 16px;
  }
  .order-dialog .spinner,
  .message .spinner {
    display: inline-block;
    width: 16px;
    height: 16px;
    margin-right: 8px;
    vertical-align: -3px;
    border: 2px solid var(--docstack-border);
    border-top-color: var(--docstack-accent);
    border-radius: 50%;
    animation: spin 0.9s linear infinite;
  }
  .dialog-button {
    padding: 5px 14px;
    border: 1px solid var(--docstack-border);
    border-radius: 6px;
    background: var(--docstack-background);
    cursor: pointer;
  }

  .message {
    position: absolute;
    inset: 0;
    display: flex;
    align-items: center;
    justify-content: center;
    padding: 24px;
    text-align: center;
    pointer-events: none;
  }

  .message.error > div {
    border-color: #d14343;
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
  :host([narrow]) .wide-only {
    display: none;
  }
  :host([narrow]) .zoom-select {
    max-width: 5.2em;
  }
  :host([narrow]) .page-number {
    width: 2.8em;
  }
  :host([narrow]) .toolbar {
    padding: 4px 2px;
  }
  :host([narrow]) .toolbar .title {
    visibility: hidden;
    padding: 0;
  }
`
]
