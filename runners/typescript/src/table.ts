import type { Message } from "./message.js";

/**
 * The orders one relay of several publishes: those whose hash, modulo the
 * number of relays, is its index, so two relays never take rows of one
 * order and each order keeps its order. The default, 0 of 1, is the whole
 * table: one relay owns every order.
 */
export class Partition {
  constructor(
    readonly index = 0,
    readonly count = 1,
  ) {}

  /**
   * FNV-1a, 32 bits, over the UTF-8 bytes of `text`: the same number in
   * every language, which a language's built-in string hash is not.
   */
  static fnv1a32(text: string): number {
    let hash = 2166136261;
    // The UTF-8 bytes, not the string's UTF-16 code units (charCodeAt).
    for (const byte of Buffer.from(text, "utf8")) {
      // Math.imul multiplies modulo 2^32: a plain * loses the low bits past 2^53.
      hash = Math.imul(hash ^ byte, 16777619);
    }
    return hash >>> 0; // imul's result is signed: read it as unsigned
  }

  /**
   * Whether this relay publishes the order `aggregate`: its hash, read as
   * an unsigned number, modulo `count` is `index`.
   */
  owns(aggregate: string): boolean {
    return Partition.fnv1a32(aggregate) % this.count === this.index;
  }
}

/** Which unsent rows a fetch takes, before it takes at most `limit` of them. */
export enum Fetch {
  /**
   * Every row: a batch full of one blocked order sends nothing for the
   * others.
   */
  Rows = "rows",
  /**
   * The oldest row of each order only: a blocked order costs one slot, and
   * an order with k rows needs k runs.
   */
  Heads = "heads",
}

/**
 * A row the relay gave up on: it left the unsent rows after `attempts`
 * failed publish calls, for a person to look at.
 */
export interface DeadLetter {
  /** The row as it was written. */
  readonly message: Message;
  /** Its failed publish calls, the last included. */
  readonly attempts: number;
}

/** The rows waiting for the relay: the unsent messages in insertion order. */
export class OutboxTable {
  /** A `Map` keyed by id, which keeps insertion order. */
  readonly #unsent = new Map<number, Message>();
  // Kept apart from the rows: the last row may be sent already.
  #lastId: number | undefined;
  // Failed publish calls per row that ever failed; kept after the row is
  // sent, as a count never resets.
  readonly #attempts = new Map<number, number>();
  readonly #deadLetters: DeadLetter[] = [];
  // Orders whose rows no fetch takes until they are unparked.
  readonly #parked = new Set<string>();

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
   *
   * Only rows of the orders the `partition` owns that are not parked, and
   * with `Fetch.Heads` only the oldest such row of each order: these
   * filters come before the limit, so a row they leave out takes no slot.
   */
  unsent(limit: number, partition = new Partition(), fetch = Fetch.Rows): Message[] {
    const batch: Message[] = [];
    const orders = new Set<string>(); // the orders in the batch so far
    for (const message of this.#unsent.values()) {
      if (batch.length >= limit) {
        break;
      }
      const { aggregate } = message;
      const head = fetch === Fetch.Rows || !orders.has(aggregate);
      if (partition.owns(aggregate) && !this.#parked.has(aggregate) && head) {
        orders.add(aggregate);
        batch.push(message);
      }
    }
    return batch;
  }

  /** Takes the row out of later `unsent` selections. */
  markSent(id: number): void {
    this.#unsent.delete(id);
  }

  /**
   * Counts one failed publish call of the row and returns its count so far:
   * the table keeps it, since a relay keeps nothing between runs.
   *
   * A lost ack counts, as the relay cannot tell it from a broker that is
   * down; a count never resets.
   */
  markFailed(id: number): number {
    const attempts = (this.#attempts.get(id) ?? 0) + 1;
    this.#attempts.set(id, attempts);
    return attempts;
  }

  /**
   * Moves the row from the unsent rows to the dead letters, with its
   * attempts, and returns it: no fetch takes it again.
   *
   * @throws Error when `id` is not an unsent row: the relay dead-letters
   * only a row it has just fetched.
   */
  deadLetter(id: number): DeadLetter {
    const message = this.#unsent.get(id);
    if (message === undefined) {
      throw new Error(`message ${id} is no unsent row to dead-letter`);
    }
    const letter: DeadLetter = { message, attempts: this.#attempts.get(id) ?? 0 };
    this.#unsent.delete(id);
    this.#deadLetters.push(letter);
    return letter;
  }

  /**
   * Holds every row of the order back from `unsent` (they take no slot)
   * until `unpark`: a dead letter then cannot be overtaken by its order's
   * later events.
   */
  park(aggregate: string): void {
    this.#parked.add(aggregate);
  }

  /**
   * Lets `unsent` take the order's rows again, from its oldest; an order
   * that is not parked is left as it is.
   */
  unpark(aggregate: string): void {
    this.#parked.delete(aggregate);
  }

  /** The rows given up on, in the order they were: what a person reads. */
  get deadLetters(): readonly DeadLetter[] {
    return [...this.#deadLetters];
  }

  /**
   * Whether the relay still has work: the demo's loop condition.
   *
   * A parked order's rows count (they are still unsent); dead letters do
   * not.
   */
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
