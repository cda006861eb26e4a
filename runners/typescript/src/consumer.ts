import type { Message } from "./message.js";

/**
 * The delivery service: turns at-least-once delivery into exactly-once
 * effect by remembering which message ids it has processed. It cannot tell a
 * repeat by content (two identical "paid" events can both be honest); only
 * the outbox-assigned id tells.
 */
export class IdempotentConsumer {
  // Each processed id and the pass it was applied in. A Map keeps insertion
  // order, and ids are applied in pass order: tick forgets from the oldest.
  readonly #processed = new Map<number, number>();
  readonly #journal: string[] = [];
  #duplicates = 0;
  // The pass number: how many times tick was called.
  #clock = 0;

  /**
   * A consumer that forgets each id `retention` passes after the pass it
   * applied it in (left out: never), as a real inbox's cleanup does.
   */
  constructor(private readonly retention?: number) {}

  /**
   * Advances the clock by one pass and forgets every id whose window ended:
   * one applied at pass t is forgotten at pass t + retention.
   *
   * A repeat that comes later is applied again: the retention must outlast
   * the longest redelivery.
   */
  tick(): void {
    this.#clock += 1;
    if (this.retention === undefined) {
      return;
    }
    for (const [id, appliedAt] of this.#processed) {
      if (this.#clock - appliedAt < this.retention) {
        break;
      }
      this.#processed.delete(id); // deleting while iterating a Map is safe
    }
  }

  /**
   * Does the work once per message id; a redelivery is only counted.
   *
   * With a retention, once per id within its window: the id is remembered
   * from the pass it is applied in, and a dropped repeat does not extend the
   * window.
   */
  handle(message: Message): void {
    if (this.#processed.has(message.id)) {
      this.#duplicates += 1;
      return;
    }
    this.#processed.set(message.id, this.#clock);
    this.#journal.push(`${message.aggregate} ${message.type}`);
  }

  /** The work done, in order: `"<aggregate> <type>"` per message. */
  get journal(): readonly string[] {
    return [...this.#journal];
  }

  /** How many redeliveries were dropped. */
  get duplicates(): number {
    return this.#duplicates;
  }
}
