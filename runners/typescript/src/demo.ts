// The relay as a process: the composition root reads the batch size and the
// pass limit from the shared config, builds the table, broker, consumer and
// relay, and loops runOnce while rows are unsent. It prints the same
// transcript as every other language's demo.
import { readFileSync } from "node:fs";

import {
  type Broker,
  FlakyBroker,
  IdempotentConsumer,
  type Message,
  OutboxRelay,
  OutboxTable,
  PublishFailed,
} from "./index.js";

interface Config {
  readonly batchSize: number;
  readonly maxPasses: number;
}

function loadConfig(path: string): Config {
  const data: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (typeof data === "object" && data !== null && Object.keys(data).sort().join() === "batch_size,max_passes") {
    const { batch_size: batchSize, max_passes: maxPasses } = data as Record<string, unknown>;
    if (Number.isInteger(batchSize) && Number(batchSize) >= 1 && Number.isInteger(maxPasses) && Number(maxPasses) >= 0) {
      return { batchSize: Number(batchSize), maxPasses: Number(maxPasses) };
    }
  }
  throw new Error(`${path}: want {"batch_size": >= 1, "max_passes": >= 0}`);
}

/** Wraps the real broker and remembers how each attempt went, so the transcript tells the pass's story in batch order. */
class NarratingBroker implements Broker {
  #attempts = 0;
  readonly log = new Map<number, string>();

  constructor(private readonly inner: Broker) {}

  publish(message: Message): void {
    this.#attempts += 1;
    const line = `attempt ${this.#attempts}: ${describe(message)} -> `;
    try {
      this.inner.publish(message);
    } catch (error: unknown) {
      if (error instanceof PublishFailed) {
        this.log.set(message.id, `${line}${error.message}; ${message.aggregate} blocked for this pass`);
      }
      throw error;
    }
    this.log.set(message.id, `${line}published`);
  }
}

const describe = (m: Message): string => `#${m.id} ${m.aggregate} ${m.type}`;
const idList = (ids: readonly number[]): string => `[${ids.join(", ")}]`;

let config: Config;
try {
  config = loadConfig(process.argv[2] ?? new URL("../../demo.json", import.meta.url).pathname);
} catch (error: unknown) {
  console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}

const table = new OutboxTable();
table.add({ id: 1, aggregate: "order-1", type: "OrderPlaced" });
table.add({ id: 2, aggregate: "order-2", type: "OrderPlaced" });
table.add({ id: 3, aggregate: "order-1", type: "OrderPaid" });
table.add({ id: 4, aggregate: "order-2", type: "OrderPaid" });
const consumer = new IdempotentConsumer();
const broker = new NarratingBroker(new FlakyBroker(consumer, new Map([[1, "lost_ack"]])));
const relay = new OutboxRelay(table, broker, config.batchSize);

const out: string[] = [];
out.push(`Outbox relay demo: batch size ${config.batchSize}, at most ${config.maxPasses} passes.`);
out.push(`Outbox: ${table.unsent(Infinity).map(describe).join(", ")}.`);
out.push("The broker will lose the ack of attempt 1.");

let passes = 0;
while (table.hasUnsent() && passes < config.maxPasses) {
  passes += 1;
  const batch = table.unsent(config.batchSize);
  out.push("", `Pass ${passes}: batch ${idList(batch.map((m) => m.id))}`);
  const sent = relay.runOnce();
  for (const message of batch) {
    const line = broker.log.get(message.id) ?? `skipped ${describe(message)}: ${message.aggregate} is blocked`;
    broker.log.delete(message.id);
    out.push(`  ${line}`);
  }
  out.push(`  sent ${idList(sent)}`);
}

out.push(table.hasUnsent() ? "\nStopped at the pass limit with messages still unsent." : `\nOutbox drained after ${passes} passes.`);
out.push("Consumer journal:", ...consumer.journal.map((entry) => `  ${entry}`));
out.push(`Duplicates dropped: ${consumer.duplicates}`);
process.stdout.write(`${out.join("\n")}\n`);
