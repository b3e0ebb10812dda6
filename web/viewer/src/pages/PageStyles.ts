/**
 * How a page list looks: the pages placed in it, each with its image or tiles, its text layer, the
 * find highlights and the annotations drawn over it. Shared by every element that shows pages (the
 * viewer, and the two sides of a comparison), each in its own shadow root.
 */
import { css } from "lit"

export const pageStyles = css`
  /* The scrolled box the page list is in; a focus given by the element itself shows no ring. */
  .viewport {
    flex: 1 1 auto;
    position: relative;
    overflow: auto;
    min-width: 0;
    outline: none;
    overscroll-behavior: contain;
    touch-action: pan-x pan-y;
  }
  .viewport:focus-visible:not([data-quiet-focus]) {
    box-shadow: inset 0 0 0 2px var(--docstack-focus);
    outline: none;
  }
  .list {
    position: relative;
  }
  .page {
    position: absolute;
    display: block;
    contain: strict;
  }
  .page-inner {
    position: absolute;
    background: white;
    box-shadow: var(--docstack-page-shadow);
    transform-origin: center center;
    /* clip, not hidden: a box that hides its overflow can still be scrolled (a span scrolled into
       view by a screen reader or a selection drag would move the page under its tiles). */
    overflow: clip;
  }
  .page-image,
  .tile {
    position: absolute;
    left: 0;
    top: 0;
    width: 100%;
    height: 100%;
    user-select: none;
  }
  .tile {
    width: auto;
    height: auto;
  }
  .sheet {
    position: absolute;
    inset: 0;
    filter: var(--docstack-page-filter);
  }
  .page-placeholder {
    position: absolute;
    inset: 0;
    background: white;
  }
  .page-loading {
    position: absolute;
    left: 50%;
    top: 40px;
    width: 24px;
    height: 24px;
    margin-left: -12px;
    border: 3px solid var(--docstack-border);
    border-top-color: var(--docstack-accent);
    border-radius: 50%;
    animation: spin 0.9s linear infinite;
  }
  @keyframes spin {
    to {
      transform: rotate(360deg);
    }
  }
  @media (prefers-reduced-motion: reduce) {
    .page-loading {
      animation: none;
    }
  }
  .text-layer,
  .highlights {
    position: absolute;
    left: 0;
    top: 0;
    width: 0;
    height: 0;
    transform-origin: 0 0;
  }
  .text-layer {
    line-height: 1;
    white-space: pre;
    color: transparent;
    font-family: sans-serif;
  }
  .text-layer span {
    position: absolute;
    transform-origin: 0 0;
    white-space: pre;
    cursor: text;
  }
  /* Only the runs show a selection: the layer's own line breaks would paint wide blue blocks. */
  .text-layer ::selection {
    background: transparent;
  }
  .text-layer span::selection {
    background: rgba(11, 98, 214, 0.3);
    color: transparent;
  }
  .hit {
    position: absolute;
    background: var(--docstack-hit);
    border-radius: 1px;
  }
  .hit.current {
    background: var(--docstack-hit-current);
    outline: 1px solid rgba(200, 80, 0, 0.8);
  }

  /* Annotations over a page (annotations/AnnotationLayer.ts): the SVG takes the pointer only where
     something is drawn, or everywhere while a drawing tool is chosen. */
  .annotation-layer {
    position: absolute;
    left: 0;
    top: 0;
    width: 100%;
    height: 100%;
    /* Not the icons' stroke (iconStyles styles every svg of the shadow root): each shape says its own. */
    fill: none;
    stroke: none;
    stroke-width: 1;
    stroke-linecap: butt;
    stroke-linejoin: miter;
    overflow: visible;
    pointer-events: none;
  }
  .annotation-layer.drawing {
    pointer-events: all;
    cursor: crosshair;
  }
  .annotation-layer .annotation > *,
  .annotation-layer .annotation .redaction > * {
    pointer-events: visiblePainted;
    cursor: pointer;
  }
  .annotation-layer.drawing .annotation > *,
  .annotation-layer .annotation.over-text *,
  .annotation-layer .annotation.over-text .hit {
    pointer-events: none;
  }
  .annotation-layer .annotation .hit {
    fill: none;
    stroke: transparent;
    stroke-width: 10px;
    vector-effect: non-scaling-stroke;
    pointer-events: stroke;
  }
  .annotation-layer .multiply {
    mix-blend-mode: multiply;
  }
  .annotation-layer .selected > * {
    cursor: move;
  }
  .annotation-layer .draft {
    opacity: 0.75;
  }
  .annotation-layer .selection .frame {
    fill: none;
    stroke: var(--docstack-accent);
    stroke-width: 1px;
    stroke-dasharray: 4 3;
    vector-effect: non-scaling-stroke;
  }
  .annotation-layer .selection .handle {
    fill: #fff;
    stroke: var(--docstack-accent);
    stroke-width: 1.5px;
    vector-effect: non-scaling-stroke;
    pointer-events: all;
  }
  .annotation-layer .handle[data-handle="nw"],
  .annotation-layer .handle[data-handle="se"] {
    cursor: nwse-resize;
  }
  .annotation-layer .handle[data-handle="ne"],
  .annotation-layer .handle[data-handle="sw"] {
    cursor: nesw-resize;
  }
  .annotation-layer .handle[data-handle="n"],
  .annotation-layer .handle[data-handle="s"] {
    cursor: ns-resize;
  }
  .annotation-layer .handle[data-handle="e"],
  .annotation-layer .handle[data-handle="w"],
  .annotation-layer .handle[data-handle="start"],
  .annotation-layer .handle[data-handle="end"] {
    cursor: ew-resize;
  }
  .free-text {
    width: 100%;
    height: 100%;
    box-sizing: border-box;
    white-space: pre-wrap;
    overflow-wrap: break-word;
    overflow: hidden;
  }
  .free-text-field {
    position: absolute;
    box-sizing: border-box;
    margin: 0;
    border: 1px dashed var(--docstack-accent);
    background: rgba(255, 255, 255, 0.85);
    resize: none;
    overflow: hidden;
    outline: none;
  }
`
