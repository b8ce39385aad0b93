/**
 * One requestAnimationFrame loop per view: any number of `request()` calls between
 * frames give one `draw()` on the next frame. Nothing else in the view calls rAF.
 */
export class FrameScheduler {
  #handle = 0;
  #draw: (time: number) => void;
  #raf: (cb: FrameRequestCallback) => number;
  #cancel: (h: number) => void;

  constructor(
    draw: (time: number) => void,
    raf: (cb: FrameRequestCallback) => number = (cb) => requestAnimationFrame(cb),
    cancel: (h: number) => void = (h) => cancelAnimationFrame(h),
  ) {
    this.#draw = draw;
    this.#raf = raf;
    this.#cancel = cancel;
  }

  /** Asks for a frame; a frame already pending absorbs the request. */
  request(): void {
    if (this.#handle) return;
    this.#handle = this.#raf((t) => {
      this.#handle = 0;
      this.#draw(t);
    });
  }

  get pending(): boolean {
    return this.#handle !== 0;
  }

  dispose(): void {
    if (this.#handle) this.#cancel(this.#handle);
    this.#handle = 0;
  }
}
