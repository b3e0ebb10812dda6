/**
 * The browser section's probe, run in the browser before any page script (an init script, bundled
 * by esbuild): records when each page is painted and every long task, on performance.now()'s clock
 * (navigation start is 0), and runs the measured user actions (jump, full scroll, reading every
 * page) against either viewer through one small interface.
 *
 * Ours tells it through DOM events: `pagerendered` {pageNumber, width} and `documentloaded`
 * {pageCount} bubble out of `<docstack-viewer>` (composed); pdf.js's page (pdfjs-page.ts) calls
 * `painted` and `attach` itself from its eventBus.
 */

/** What the probe needs of a viewer. */
export interface BenchViewer {
  /** The element that scrolls the pages. */
  readonly container: HTMLElement
  readonly pageCount: number
  /** True when the viewer shows one page at a time (pdf.js above 10,000 pages): scrolling then goes by page number. */
  onePageAtATime(): boolean
  goToPage(pageNumber: number): unknown
}

export interface Paint {
  readonly pageNumber: number
  /** performance.now() when the event arrived. */
  readonly at: number
  /** The page's width as painted: ours, the event's (its image's pixels); pdf.js, the page's CSS width. */
  readonly width: number
}

export interface ScrollResult {
  readonly steps: number
  readonly onePageAtATime: boolean
  /** From the first step to the last page painted (or to the last step, if that came later); null when it was not painted. */
  readonly totalMs: number | null
  /** Where the viewer stood when the last page was not painted in time (null when it was). */
  readonly notPainted: string | null
  /** From the first step to the last. */
  readonly stepsMs: number
  readonly longestTaskMs: number
  readonly longTasks: number
  /** Every node (text and comments included), and elements alone (what Lighthouse counts). */
  readonly maxNodes: number
  readonly maxElements: number
}

export interface Probe {
  painted(pageNumber: number, width: number): void
  attach(viewer: BenchViewer): void
  /** Waits for the viewer to be attached (ours: `documentloaded`); answers its page count. */
  ready(timeoutMs: number): Promise<number>
  /** The first paint of `pageNumber` at or after `since`. */
  waitPainted(pageNumber: number, since: number, timeoutMs: number): Promise<Paint>
  /** Waits until no page has been painted for `quietMs` (at most `timeoutMs`). */
  settle(quietMs: number, timeoutMs: number): Promise<void>
  /** Goes to `pageNumber`; answers the milliseconds until it is painted. */
  jump(pageNumber: number, timeoutMs: number): Promise<number>
  /** Scrolls from the top to the bottom in at most `maxSteps` animation frames (see below). */
  fullScroll(maxSteps: number, timeoutMs: number): Promise<ScrollResult>
  /** Goes to each page in turn and waits until it has been painted; answers the milliseconds it took. */
  readAll(timeoutMs: number): Promise<number>
}

/** The DOM is counted every this many frames of a scroll: counting a large DOM is itself a task. */
const COUNT_EVERY = 10

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()))
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The nodes and the elements of `root`, those inside open shadow roots included (the root counts as a node). */
const countDom = (root: Node): { nodes: number; elements: number } => {
  const count = { nodes: 0, elements: 0 }
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ALL)
  for (let node: Node | null = walker.currentNode; node !== null; node = walker.nextNode()) {
    count.nodes++
    if (!(node instanceof Element)) continue
    count.elements++
    if (node.shadowRoot !== null) {
      const inside = countDom(node.shadowRoot)
      count.nodes += inside.nodes
      count.elements += inside.elements
    }
  }
  return count
}

const deadline = <A>(what: string, timeoutMs: number, promise: Promise<A>) =>
  Promise.race([
    promise,
    sleep(timeoutMs).then(() => Promise.reject(new Error(`${what}: nothing within ${timeoutMs} ms`)))
  ])

const createProbe = (): Probe => {
  const paints: Array<Paint> = []
  const longTasks: Array<{ readonly start: number; readonly duration: number }> = []
  const waiters = new Set<(paint: Paint) => void>()
  let viewer: BenchViewer | undefined
  const attached: Array<(viewer: BenchViewer) => void> = []

  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longTasks.push({ start: entry.startTime, duration: entry.duration })
  }).observe({ type: "longtask", buffered: true })

  const attach = (v: BenchViewer) => {
    viewer = v
    for (const resolve of attached.splice(0)) resolve(v)
  }
  const current = () => {
    if (viewer === undefined) throw new Error("no viewer attached yet")
    return viewer
  }
  const painted = (pageNumber: number, width: number) => {
    const paint = { pageNumber, at: performance.now(), width }
    paints.push(paint)
    for (const waiter of [...waiters]) waiter(paint)
  }
  const waitPainted = (pageNumber: number, since: number, timeoutMs: number) => {
    const done = paints.find((p) => p.pageNumber === pageNumber && p.at >= since)
    if (done !== undefined) return Promise.resolve(done)
    let waiter: (paint: Paint) => void = () => undefined
    return deadline(
      `page ${pageNumber} painted`,
      timeoutMs,
      new Promise<Paint>((resolve) => {
        waiter = (paint) => {
          if (paint.pageNumber === pageNumber && paint.at >= since) resolve(paint)
        }
        waiters.add(waiter)
      })
    ).finally(() => waiters.delete(waiter))
  }

  // Ours: the element's events, composed, reach the window with the element as their target.
  addEventListener("pagerendered", (event) => {
    const detail = (event as CustomEvent<{ pageNumber: number; width?: number }>).detail
    painted(detail.pageNumber, detail.width ?? Number.NaN)
  }, { capture: true })
  addEventListener("documentloaded", (event) => {
    const element = event.composedPath().find((node) =>
      node instanceof HTMLElement && node.localName === "docstack-viewer"
    ) as (HTMLElement & { goToPage(pageNumber: number): Promise<unknown> }) | undefined
    if (element === undefined) throw new Error("documentloaded came from no docstack-viewer")
    attach({
      // Looked up when used: the element may render its shadow root after the event.
      get container() {
        const container = element.shadowRoot?.querySelector<HTMLElement>(".viewport")
        if (container === null || container === undefined) throw new Error("docstack-viewer has no .viewport")
        return container
      },
      pageCount: (event as CustomEvent<{ pageCount: number }>).detail.pageCount,
      onePageAtATime: () => false,
      goToPage: (pageNumber) => element.goToPage(pageNumber)
    })
  }, { capture: true })

  return {
    painted,
    attach,
    ready: (timeoutMs) =>
      deadline(
        "viewer ready",
        timeoutMs,
        new Promise<number>((resolve) => {
          if (viewer !== undefined) resolve(viewer.pageCount)
          else attached.push((v) => resolve(v.pageCount))
        })
      ),
    waitPainted,
    settle: async (quietMs, timeoutMs) => {
      const started = performance.now()
      while (performance.now() - started < timeoutMs) {
        const last = paints.at(-1)?.at ?? 0
        if (performance.now() - last >= quietMs) return
        await sleep(Math.max(10, quietMs - (performance.now() - last)))
      }
    },
    jump: async (pageNumber, timeoutMs) => {
      const started = performance.now()
      await current().goToPage(pageNumber)
      return (await waitPainted(pageNumber, started, timeoutMs)).at - started
    },
    /**
     * One step per animation frame, as a user flinging the scroll bar: each step a viewport height
     * or 1/maxSteps of the document, whichever is longer (a page, or 1/maxSteps of the pages, when
     * the viewer shows one page at a time). The user does not wait for pages on the way; at the
     * bottom the last page must be painted.
     */
    fullScroll: async (maxSteps, timeoutMs) => {
      const v = current()
      const onePageAtATime = v.onePageAtATime()
      const started = performance.now()
      const most = { nodes: 0, elements: 0 }
      const sample = () => {
        const now = countDom(document)
        most.nodes = Math.max(most.nodes, now.nodes)
        most.elements = Math.max(most.elements, now.elements)
      }
      sample()
      let steps = 0
      if (onePageAtATime) {
        const pagesPerStep = Math.max(1, (v.pageCount - 1) / maxSteps)
        for (let page = 1; page < v.pageCount;) {
          await nextFrame()
          page = Math.min(v.pageCount, Math.round(1 + ++steps * pagesPerStep))
          v.goToPage(page)
          if (steps % COUNT_EVERY === 0) sample()
        }
      } else {
        const c = v.container
        const range = () => c.scrollHeight - c.clientHeight
        const step = Math.max(c.clientHeight, range() / maxSteps)
        // Bounded: a viewer that moves the scroll back would otherwise keep the loop going.
        while (c.scrollTop < range() - 1 && steps < 4 * maxSteps) {
          await nextFrame()
          c.scrollTop = Math.min(range(), c.scrollTop + step)
          steps++
          if (steps % COUNT_EVERY === 0) sample()
        }
      }
      const stepped = performance.now()
      const last = await waitPainted(v.pageCount, started, timeoutMs).catch(() => undefined)
      const notPainted = last !== undefined ? null : [
        `page ${v.pageCount} not painted within ${timeoutMs} ms of the last step`,
        onePageAtATime ? "" : `scrollTop ${v.container.scrollTop} of scrollHeight ${v.container.scrollHeight} ` +
          `(clientHeight ${v.container.clientHeight})`,
        `last pages painted ${paints.slice(-5).map((p) => p.pageNumber).join(", ")}`
      ].filter(Boolean).join("; ")
      const ended = Math.max(stepped, last?.at ?? stepped)
      sample()
      // Long-task entries are delivered after the task: give the observer a moment.
      await sleep(200)
      const during = longTasks.filter((t) => t.start >= started && t.start <= ended)
      return {
        steps,
        onePageAtATime,
        totalMs: last === undefined ? null : ended - started,
        notPainted,
        stepsMs: stepped - started,
        longestTaskMs: Math.max(0, ...during.map((t) => t.duration)),
        longTasks: during.length,
        maxNodes: most.nodes,
        maxElements: most.elements
      }
    },
    readAll: async (timeoutMs) => {
      const v = current()
      const started = performance.now()
      for (let page = 1; page <= v.pageCount; page++) {
        await v.goToPage(page)
        await waitPainted(page, 0, timeoutMs)
      }
      return performance.now() - started
    }
  }
}

// Frames (an iframe of either viewer) have no part in what is measured.
if (window.top === window) (window as unknown as { __bench: Probe }).__bench = createProbe()
