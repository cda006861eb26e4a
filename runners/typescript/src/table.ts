import type { Message } from "./message.js";

/**
 * An id that is not greater than the last one added: the outbox assigns ids
 * in increasing order, so such a row is a bug of the writer.
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

interface Row {
  readonly message: Message;
  prev: Row | undefined;
  next: Row | undefined;
}

/**
 * The rows waiting for the relay, in insertion order.
 *
 * A `Map` alone keeps insertion order, but iteration crosses every entry
 * deleted since V8 last compacted it, so `unsent` would cost more per row the
 * larger the drained backlog. The rows are therefore also linked in insertion
 * order: `unsent` walks only the rows it returns, and `markSent` unlinks a
 * row in O(1). The `Map` finds a row by id.
 */
export class OutboxTable {
  readonly #rows = new Map<number, Row>();
  #oldest: Row | undefined;
  #newest: Row | undefined;
  // Kept apart from the rows: the last row may be sent already.
  #lastId: number | undefined;

  /** Appends a row; throws `OutOfOrder` if its id does not increase. */
  add(message: Message): void {
    if (this.#lastId !== undefined && message.id <= this.#lastId) {
      throw new OutOfOrder(message.id, this.#lastId);
    }
    this.#lastId = message.id;
    const row: Row = { message, prev: this.#newest, next: undefined };
    if (this.#newest === undefined) {
      this.#oldest = row;
    } else {
      this.#newest.next = row;
    }
    this.#newest = row;
    this.#rows.set(message.id, row);
  }

  /** The oldest unsent rows, at most `limit`: a copy, as the relay marks rows while walking it. */
  unsent(limit: number): Message[] {
    const batch: Message[] = [];
    for (let row = this.#oldest; row !== undefined && batch.length < limit; row = row.next) {
      batch.push(row.message);
    }
    return batch;
  }

  markSent(id: number): void {
    const row = this.#rows.get(id);
    if (row === undefined) {
      return;
    }
    this.#rows.delete(id);
    if (row.prev === undefined) {
      this.#oldest = row.next;
    } else {
      row.prev.next = row.next;
    }
    if (row.next === undefined) {
      this.#newest = row.prev;
    } else {
      row.next.prev = row.prev;
    }
  }

  hasUnsent(): boolean {
    return this.#oldest !== undefined;
  }
}
