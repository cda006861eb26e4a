import type { IdempotentConsumer } from "./consumer.js";
import type { Message } from "./message.js";

/**
 * How a scripted publish attempt goes wrong: `down`, the broker did not
 * answer and the message was NOT delivered; `lost_ack`, it was delivered but
 * the ack was lost, so the publisher sees an error anyway (this is why
 * delivery is at-least-once).
 */
export type Failure = "down" | "lost_ack";

const describe: Record<Failure, string> = { down: "broker down", lost_ack: "ack lost" };

/** No acknowledgement: whether the message arrived is unknown to the publisher. */
export class PublishFailed extends Error {
  constructor(readonly failure: Failure) {
    super(`publish failed: ${describe[failure]}`);
    this.name = "PublishFailed";
  }
}

/** What the relay publishes to. */
export interface Broker {
  /** @throws PublishFailed when no ack came back */
  publish(message: Message): void;
}

/**
 * A fake broker that delivers to the consumer inside `publish` and fails on
 * scripted attempt numbers, counted from 1 over its whole life.
 */
export class FlakyBroker implements Broker {
  #attempts = 0;

  constructor(
    private readonly consumer: IdempotentConsumer,
    private readonly failures: ReadonlyMap<number, Failure>,
  ) {}

  publish(message: Message): void {
    this.#attempts += 1;
    const failure = this.failures.get(this.#attempts);
    if (failure === "down") {
      throw new PublishFailed(failure);
    }
    this.consumer.handle(message);
    if (failure === "lost_ack") {
      throw new PublishFailed(failure);
    }
  }
}
