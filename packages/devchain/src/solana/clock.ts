/**
 * The slot producer: calls `onSlot` every `slotMs` milliseconds (400 ms like a cluster by default)
 * until stopped. Ticks are scheduled from a fixed origin so a slow tick does not make the ledger
 * drift; missed ticks are produced at once (one slot each) when the event loop catches up.
 */
export class SlotClock {
  readonly #slotMs: number;
  readonly #onSlot: () => void;
  #timer: NodeJS.Timeout | undefined;
  #next = 0;

  constructor(slotMs: number, onSlot: () => void) {
    if (!Number.isFinite(slotMs) || slotMs < 1) throw new Error(`slotMs must be at least 1, got ${slotMs}`);
    this.#slotMs = slotMs;
    this.#onSlot = onSlot;
  }

  get running(): boolean {
    return this.#timer !== undefined;
  }

  start(): void {
    if (this.#timer) return;
    this.#next = Date.now() + this.#slotMs;
    this.#schedule();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    this.#timer = setTimeout(() => this.#tick(), Math.max(0, this.#next - Date.now()));
  }

  #tick(): void {
    if (!this.#timer) return;
    this.#onSlot();
    this.#next += this.#slotMs;
    // After a long stall, do not produce a burst of hundreds of slots: resynchronise instead.
    if (Date.now() - this.#next > 10 * this.#slotMs) this.#next = Date.now() + this.#slotMs;
    this.#schedule();
  }
}
