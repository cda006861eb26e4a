// The relay as a background process. Its composition root reads the batch
// size, the pass limit and the attempt limit from a config file, builds the
// table, the broker, the delivery service's consumer and the relay, and calls
// runOnce while the table has unsent rows, at most max_passes times; a
// message over the attempt limit becomes a dead letter, and the relay's alert
// prints it. The call path: process loop -> relay -> outbox -> broker ->
// consumer.
import { readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

import {
  type Broker,
  type DeadLetter,
  Failure,
  FlakyBroker,
  IdempotentConsumer,
  type Message,
  OnExhausted,
  OutboxRelay,
  OutboxTable,
  PublishFailed,
  type RelayOptions,
} from "./index.js";

export interface Config {
  readonly batch_size: number;
  readonly max_passes: number;
  /** Left out: no attempt limit, so a message that always fails blocks its order forever. */
  readonly max_attempts?: number;
}

/** What is wrong with the config file, in one line. */
export class BadConfig extends Error {}

/** Reads the process's settings, or throws `BadConfig` naming the key at fault. */
export function loadConfig(path: string): Config {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new BadConfig(`${path}: cannot read the file`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadConfig(`${path}: not valid JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new BadConfig(`${path}: not a JSON object`);
  }
  const fields = value as Record<string, unknown>;
  const [unknown] = Object.keys(fields)
    .filter((key) => !["batch_size", "max_passes", "max_attempts"].includes(key))
    .sort();
  if (unknown !== undefined) {
    throw new BadConfig(`${path}: unknown key ${JSON.stringify(unknown)}`);
  }
  for (const key of ["batch_size", "max_passes", "max_attempts"]) {
    if (!Object.hasOwn(fields, key)) {
      if (key === "max_attempts") {
        continue; // optional: no attempt limit
      }
      throw new BadConfig(`${path}: "${key}" is missing`);
    }
    // JSON.parse reads 3.0 as 3 (one number type), so 3.0 passes; 3.5 and true do not.
    const number = fields[key];
    if (typeof number !== "number" || !Number.isInteger(number) || number < 1) {
      throw new BadConfig(`${path}: "${key}" must be an integer >= 1`);
    }
  }
  return fields as unknown as Config;
}

/**
 * Wraps the real broker and tells how each attempt went, so the transcript
 * shows the pass's story in batch order. It watches the delivery service too:
 * when its count of dropped repeats rises during a publish, that publish was
 * a redelivery the service recognised.
 */
class NarratingBroker implements Broker {
  #attempts = 0;
  readonly story = new Map<number, string>();

  constructor(
    private readonly inner: Broker,
    private readonly consumer: IdempotentConsumer,
  ) {}

  publish(message: Message): void {
    this.#attempts += 1;
    let line = `attempt ${this.#attempts}: ${describe(message)} -> `;
    const dropped = this.consumer.duplicates;
    try {
      this.inner.publish(message);
      line += "published";
    } catch (error: unknown) {
      if (error instanceof PublishFailed) {
        line += `${error.message}; ${message.aggregate} blocked for this pass`;
      }
      throw error;
    } finally {
      if (this.consumer.duplicates > dropped) {
        line += `\n    delivery service: #${message.id} already processed, repeat dropped`;
      }
      this.story.set(message.id, line);
    }
  }
}

const describe = (m: Message): string => `#${m.id} ${m.aggregate} ${m.type}`;
const idList = (ids: readonly number[]): string => `[${ids.join(", ")}]`;
const attemptsText = (n: number): string => `${n} attempt${n === 1 ? "" : "s"}`;

/**
 * The broker's script: it loses the ack of attempt 1 (message 1, which it
 * has delivered) and rejects attempts 6, 7 and 8, which the shared config's
 * run spends on message 5: a message that always fails, until the attempt
 * limit of 3 gives up on it.
 */
const FAILURES = { 1: Failure.LostAck, 6: Failure.Down, 7: Failure.Down, 8: Failure.Down };

function main(): void {
  let config: Config;
  try {
    config = loadConfig(process.argv[2] ?? new URL("../../demo.json", import.meta.url).pathname);
  } catch (error: unknown) {
    if (!(error instanceof BadConfig)) {
      throw error;
    }
    console.error(`demo: ${error.message}`);
    process.exit(2);
  }
  const { batch_size: batchSize, max_passes: maxPasses, max_attempts: maxAttempts } = config;

  const table = new OutboxTable();
  table.add({ id: 1, aggregate: "order-1", type: "OrderPlaced" });
  table.add({ id: 2, aggregate: "order-2", type: "OrderPlaced" });
  table.add({ id: 3, aggregate: "order-1", type: "OrderPaid" });
  table.add({ id: 4, aggregate: "order-2", type: "OrderPaid" });
  table.add({ id: 5, aggregate: "order-3", type: "OrderPlaced" });
  const consumer = new IdempotentConsumer(); // the delivery service, across the broker
  const broker = new NarratingBroker(new FlakyBroker(consumer, FAILURES), consumer);
  // The relay raises the alert; the process says where it goes: here, after
  // the dead letter's attempt in the transcript.
  const alerts = new Map<number, string>();
  const alert = ({ message, attempts }: DeadLetter): void => {
    alerts.set(message.id, `dead letter ${describe(message)} after ${attemptsText(attempts)}`);
  };
  const options: RelayOptions =
    maxAttempts === undefined
      ? {}
      : { cap: { maxAttempts, onExhausted: OnExhausted.Release }, alert };
  const relay = new OutboxRelay(table, broker, batchSize, options);

  const out: string[] = [];
  const limit =
    maxAttempts === undefined ? "no attempt limit" : `at most ${maxAttempts} attempts per message`;
  out.push(`Outbox relay demo: batch size ${batchSize}, at most ${maxPasses} passes, ${limit}.`);
  out.push(`Outbox: ${table.unsent(Infinity).map(describe).join(", ")}.`);
  out.push("The broker will lose the ack of attempt 1 and reject attempts 6, 7 and 8.");

  let passes = 0;
  while (table.hasUnsent() && passes < maxPasses) {
    passes += 1;
    const batch = table.unsent(batchSize);
    out.push("", `Pass ${passes}: batch ${idList(batch.map((m) => m.id))}`);
    const sent = relay.runOnce();
    for (const message of batch) {
      const line =
        broker.story.get(message.id) ??
        `skipped ${describe(message)}: ${message.aggregate} is blocked`;
      broker.story.delete(message.id);
      out.push(`  ${line}`);
      const raised = alerts.get(message.id);
      if (raised !== undefined) {
        out.push(`  alert: ${raised}`);
      }
    }
    out.push(`  sent ${idList(sent)}`);
  }

  out.push(
    table.hasUnsent()
      ? "\nStopped at the pass limit with messages still unsent."
      : `\nOutbox drained after ${passes} passes.`,
  );
  const letters = table.deadLetters.map(
    ({ message, attempts }) => `${describe(message)} (${attemptsText(attempts)})`,
  );
  if (letters.length > 0) {
    out.push(`Dead letters, for a person to look at: ${letters.join(", ")}.`);
  }
  out.push("Consumer journal:", ...consumer.journal.map((entry) => `  ${entry}`));
  out.push(`Duplicates dropped: ${consumer.duplicates}`);
  process.stdout.write(`${out.join("\n")}\n`);
}

// Run as a program; the unit tests import this module for loadConfig.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main();
}
