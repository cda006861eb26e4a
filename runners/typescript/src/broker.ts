import type { IdempotentConsumer } from "./consumer.js";
import type { Message } from "./message.js";

/**
 * How a scripted publish attempt goes wrong. Each member's value is how an
 * error message names it.
 */
export enum Failure {
  /** The broker did not answer: the message was NOT delivered. */
  Down = "broker down",
  /**
   * The message was delivered, but the ack was lost: the publisher sees an
   * error anyway. This is why delivery is at-least-once.
   */
  LostAck = "ack lost",
}

/** No acknowledgement: whether the message arrived is unknown to the publisher. */
export class PublishFailed extends Error {
  constructor(readonly failure: Failure) {
    super(`publish failed: ${failure}`);
    this.name = "PublishFailed";
  }
}

/** What the relay publishes to. */
export interface Broker {
  /**
   * Hands the message over. `PublishFailed` means no ack came back:
   * the relay must retry later, although the message may have arrived.
   *
   * @throws PublishFailed
   */
  publish(message: Message): void;
}

/**
 * A fake broker that delivers to the consumer inside `publish` and fails on
 * scripted attempt numbers, counted from 1 over its whole life.
 */
export class FlakyBroker implements Broker {
  #attempts = 0;

  /** A broker delivering to `consumer`, failing attempt n as `failures[n]` says. */
  constructor(
    private readonly consumer: IdempotentConsumer,
    private readonly failures: Readonly<Record<number, Failure>>,
  ) {}

  publish(message: Message): void {
    this.#attempts += 1;
    // Failure | undefined (noUncheckedIndexedAccess): "no failure" is just undefined.
    const failure = this.failures[this.#attempts];
    if (failure === Failure.Down) {
      throw new PublishFailed(failure);
    }
    this.consumer.handle(message);
    if (failure === Failure.LostAck) {
      throw new PublishFailed(failure);
    }
  }
}
