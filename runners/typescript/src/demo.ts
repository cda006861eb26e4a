// The relay as a background process. Its composition root reads the batch
// size and the pass limit from a config file, builds the table, the broker,
// the delivery service's consumer and the relay, and calls runOnce while the
// table has unsent rows, at most max_passes times. The call path:
// process loop -> relay -> outbox -> broker -> consumer.
import { readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

import {
  type Broker,
  Failure,
  FlakyBroker,
  IdempotentConsumer,
  type Message,
  OutboxRelay,
  OutboxTable,
  PublishFailed,
} from "./index.js";

export interface Config {
  readonly batch_size: number;
  readonly max_passes: number;
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
    .filter((key) => key !== "batch_size" && key !== "max_passes")
    .sort();
  if (unknown !== undefined) {
    throw new BadConfig(`${path}: unknown key ${JSON.stringify(unknown)}`);
  }
  for (const key of ["batch_size", "max_passes"]) {
    if (!Object.hasOwn(fields, key)) {
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
  const { batch_size: batchSize, max_passes: maxPasses } = config;

  const table = new OutboxTable();
  table.add({ id: 1, aggregate: "order-1", type: "OrderPlaced" });
  table.add({ id: 2, aggregate: "order-2", type: "OrderPlaced" });
  table.add({ id: 3, aggregate: "order-1", type: "OrderPaid" });
  table.add({ id: 4, aggregate: "order-2", type: "OrderPaid" });
  const consumer = new IdempotentConsumer(); // the delivery service, across the broker
  const broker = new NarratingBroker(new FlakyBroker(consumer, { 1: Failure.LostAck }), consumer);
  const relay = new OutboxRelay(table, broker, batchSize);

  const out: string[] = [];
  out.push(`Outbox relay demo: batch size ${batchSize}, at most ${maxPasses} passes.`);
  out.push(`Outbox: ${table.unsent(Infinity).map(describe).join(", ")}.`);
  out.push("The broker will lose the ack of attempt 1.");

  let passes = 0;
  while (table.hasUnsent() && passes < maxPasses) {
    passes += 1;
    const batch = table.unsent(batchSize);
    out.push("", `Pass ${passes}: batch ${idList(batch.map((m) => m.id))}`);
    const sent = relay.runOnce();
    for (const message of batch) {
      const line =
        broker.story.get(message.id) ?? `skipped ${describe(message)}: ${message.aggregate} is blocked`;
      broker.story.delete(message.id);
      out.push(`  ${line}`);
    }
    out.push(`  sent ${idList(sent)}`);
  }

  out.push(
    table.hasUnsent()
      ? "\nStopped at the pass limit with messages still unsent."
      : `\nOutbox drained after ${passes} passes.`,
  );
  out.push("Consumer journal:", ...consumer.journal.map((entry) => `  ${entry}`));
  out.push(`Duplicates dropped: ${consumer.duplicates}`);
  process.stdout.write(`${out.join("\n")}\n`);
}

// Run as a program; the unit tests import this module for loadConfig.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main();
}
