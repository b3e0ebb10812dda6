/**
 * Zooming by hand: Ctrl + mouse wheel (also what a trackpad's pinch sends) and a two-finger pinch
 * on a touch screen. Each reports a factor and the point to keep still; the viewer does the rest.
 */

/** Wheel delta (pixels) that doubles or halves the scale. */
const WHEEL_DOUBLING = 400

export class ZoomGestures {
  private pointers = new Map<number, { x: number; y: number }>()
  private pinchDistance = 0
  private wheelFrame = 0
  private wheelDelta = 0
  private wheelAt = { x: 0, y: 0 }

  constructor(private readonly zoomBy: (factor: number, clientX: number, clientY: number) => void) {}

  attach(target: HTMLElement) {
    target.addEventListener("wheel", (event) => this.onWheel(event), { passive: false })
    target.addEventListener("pointerdown", (event) => this.onPointer(event))
    target.addEventListener("pointermove", (event) => this.onPointer(event))
    for (const end of ["pointerup", "pointercancel", "pointerleave"] as const) {
      target.addEventListener(end, (event) => {
        this.pointers.delete(event.pointerId)
        this.pinchDistance = 0
      })
    }
  }

  private onWheel(event: WheelEvent) {
    if (!event.ctrlKey && !event.metaKey) return
    event.preventDefault()
    // Many wheel events arrive per frame; one zoom per frame keeps the page list from thrashing.
    this.wheelDelta += event.deltaMode === 1 ? event.deltaY * 16 : event.deltaY
    this.wheelAt = { x: event.clientX, y: event.clientY }
    if (this.wheelFrame !== 0) return
    this.wheelFrame = requestAnimationFrame(() => {
      this.wheelFrame = 0
      const factor = 2 ** (-this.wheelDelta / WHEEL_DOUBLING)
      this.wheelDelta = 0
      this.zoomBy(factor, this.wheelAt.x, this.wheelAt.y)
    })
  }

  private onPointer(event: PointerEvent) {
    if (event.pointerType !== "touch") return
    this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY })
    if (this.pointers.size !== 2) return
    const [a, b] = [...this.pointers.values()] as [{ x: number; y: number }, { x: number; y: number }]
    const distance = Math.hypot(a.x - b.x, a.y - b.y)
    if (this.pinchDistance > 0 && distance > 0 && event.type === "pointermove") {
      const factor = distance / this.pinchDistance
      // Small changes are finger jitter, not a pinch.
      if (Math.abs(factor - 1) < 0.02) return
      this.zoomBy(factor, (a.x + b.x) / 2, (a.y + b.y) / 2)
    }
    this.pinchDistance = distance
  }
}
