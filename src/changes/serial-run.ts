/**
 * One run of a background task at a time: asked while a run is under way, it remembers that
 * one more run is wanted and calls `again` once the current run has finished (however many
 * times it was asked meanwhile). Errors go to `onError`; the loop keeps going.
 */
export class SerialRun {
  #current: Promise<void> | undefined;
  #again = false;

  constructor(
    readonly task: () => Promise<void>,
    readonly onError: (error: unknown) => void,
    /** Called after a run during which another was asked for. */
    readonly again: () => void,
  ) {}

  /** Starts a run now, or asks for one more after the current run. */
  start(): void {
    if (this.#current !== undefined) {
      this.#again = true;
      return;
    }
    this.#current = this.task()
      .catch(this.onError)
      .finally(() => {
        this.#current = undefined;
        if (this.#again) {
          this.#again = false;
          this.again();
        }
      });
  }

  /** Resolves when no run is under way (runs asked for meanwhile included). */
  async idle(): Promise<void> {
    while (this.#current !== undefined) await this.#current;
  }
}
