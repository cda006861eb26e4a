import type { Message } from "./message.js";

/**
 * The delivery service: turns at-least-once delivery into exactly-once
 * effect by remembering which message ids it has processed. It cannot tell a
 * repeat by content (two identical "paid" events can both be honest); only
 * the outbox-assigned id tells.
 */
export class IdempotentConsumer {
  readonly #processed = new Set<number>();
  readonly #journal: string[] = [];
  #duplicates = 0;

  /** Does the work once per message id; a redelivery is only counted. */
  handle(message: Message): void {
    if (this.#processed.has(message.id)) {
      this.#duplicates += 1;
      return;
    }
    this.#processed.add(message.id);
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
