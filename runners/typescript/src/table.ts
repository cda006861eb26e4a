import type { Message } from "./message.js";

/** The rows waiting for the relay: the unsent messages in insertion order. */
export class OutboxTable {
  /** A `Map` keyed by id, which keeps insertion order. */
  readonly #unsent = new Map<number, Message>();
  // Kept apart from the rows: the last row may be sent already.
  #lastId: number | undefined;

  /**
   * Appends a row; refuses an id that does not increase (a writer's bug)
   * with `OutOfOrder`.
   */
  add(message: Message): void {
    if (this.#lastId !== undefined && message.id <= this.#lastId) {
      throw new OutOfOrder(message.id, this.#lastId);
    }
    this.#lastId = message.id;
    this.#unsent.set(message.id, message);
  }

  /**
   * The oldest unsent rows in insertion order, at most `limit`: a copy,
   * because the relay marks rows sent while it walks the batch.
   */
  unsent(limit: number): Message[] {
    return [...this.#unsent.values()].slice(0, limit);
  }

  /** Takes the row out of later `unsent` selections. */
  markSent(id: number): void {
    this.#unsent.delete(id);
  }

  /** Whether the relay still has work: the demo's loop condition. */
  hasUnsent(): boolean {
    return this.#unsent.size > 0;
  }
}

/**
 * `add` was given an id not greater than the last one: the table's order
 * would no longer be insertion order.
 */
export class OutOfOrder extends Error {
  constructor(
    readonly id: number,
    readonly lastId: number,
  ) {
    super(`message id ${id} is not greater than the last id ${lastId}`);
    this.name = "OutOfOrder";
  }
}
