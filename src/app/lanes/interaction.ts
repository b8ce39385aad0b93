/**
 * Pointer interaction of the lane view as a tiny state machine (tldraw's StateNode
 * idea): Idle → Pointing on press; Pointing → Panning once the pointer moves past a
 * few pixels; release in Pointing is a click (select), in Panning the end of a drag.
 * The machine knows nothing about drawing; it calls the handlers it is given.
 */
interface InteractionHandlers {
  /** Move the view by screen pixels. */
  pan(dx: number, dy: number): void;
  /** Pointer over (x, y) with no button held (hover). */
  hover(x: number, y: number): void;
  /** A click at (x, y). */
  click(x: number, y: number): void;
  /** Cursor to show for the current state. */
  cursor(kind: 'default' | 'grabbing'): void;
}

type State =
  | { name: 'idle' }
  | { name: 'pointing'; id: number; startX: number; startY: number }
  | { name: 'panning'; id: number; lastX: number; lastY: number };

/** Distance in px a press may move and still count as a click. */
const CLICK_SLOP = 4;

export class LaneInteraction {
  #state: State = { name: 'idle' };
  #h: InteractionHandlers;

  constructor(handlers: InteractionHandlers) {
    this.#h = handlers;
  }

  get state(): State['name'] {
    return this.#state.name;
  }

  down(id: number, x: number, y: number, button = 0): void {
    if (button !== 0 || this.#state.name !== 'idle') return;
    this.#state = { name: 'pointing', id, startX: x, startY: y };
  }

  move(id: number, x: number, y: number): void {
    const s = this.#state;
    if (s.name === 'idle') this.#h.hover(x, y);
    else if (s.name === 'pointing' && s.id === id) {
      if (Math.hypot(x - s.startX, y - s.startY) > CLICK_SLOP) {
        this.#state = { name: 'panning', id, lastX: x, lastY: y };
        this.#h.cursor('grabbing');
        this.#h.pan(x - s.startX, y - s.startY);
      }
    } else if (s.name === 'panning' && s.id === id) {
      this.#h.pan(x - s.lastX, y - s.lastY);
      s.lastX = x;
      s.lastY = y;
    }
  }

  up(id: number, x: number, y: number): void {
    const s = this.#state;
    if (s.name === 'pointing' && s.id === id) {
      this.#state = { name: 'idle' };
      this.#h.click(x, y);
    } else if (s.name === 'panning' && s.id === id) {
      this.#state = { name: 'idle' };
      this.#h.cursor('default');
    }
  }

  /** Pointer lost (pointercancel, blur): back to idle without a click. */
  cancel(): void {
    if (this.#state.name === 'panning') this.#h.cursor('default');
    this.#state = { name: 'idle' };
  }
}
