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

/**
 * The largest batch size and pass limit. Every port reads JSON numbers as
 * doubles or 64-bit integers and holds 0..LIMIT exactly, so they all reject
 * the same configs.
 */
const LIMIT = 1_000_000;

interface Config {
  readonly batchSize: number;
  readonly maxPasses: number;
}

/** A bad config. The first line is the same in every port's demo; a second line, if any, is Node's own reason. */
class BadConfig extends Error {}

function loadConfig(path: string): Config {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error: unknown) {
    throw new BadConfig(`${path}: cannot read the file\n  ${reason(error)}`);
  }
  let value: unknown;
  try {
    // fatal: invalid UTF-8 is an error, and ignoreBOM keeps a BOM for JSON.parse to refuse, as the other ports do.
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    value = JSON.parse(text, refuseInfinity);
  } catch (error: unknown) {
    throw new BadConfig(`${path}: not valid JSON\n  ${reason(error)}`);
  }
  try {
    return fromJson(value);
  } catch (error: unknown) {
    throw error instanceof BadConfig ? new BadConfig(`${path}: ${error.message}`) : error;
  }
}

/** JSON.parse reads a number too large for a double as Infinity; the other ports' parsers refuse it. */
function refuseInfinity(_key: string, value: unknown): unknown {
  if (value === Infinity || value === -Infinity) {
    throw new SyntaxError("number out of range");
  }
  return value;
}

/** Checks a parsed config: unknown keys first, then each key. */
function fromJson(value: unknown): Config {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new BadConfig(`want a JSON object with \`batch_size\` and \`max_passes\`, not ${kind(value)}`);
  }
  const fields = value as Record<string, unknown>;
  // Sorted, because JavaScript puts keys like "1" first, whatever the file's order; by
  // UTF-8 bytes as the other ports sort, not by UTF-16 units as sort() would.
  const unknown = Object.keys(fields)
    .filter((key) => key !== "batch_size" && key !== "max_passes")
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  if (unknown.length > 0) {
    const names = unknown.map((key) => JSON.stringify(key)).join(", ");
    const plural = unknown.length === 1 ? "" : "s";
    throw new BadConfig(`unknown key${plural} ${names}; the keys are \`batch_size\` and \`max_passes\``);
  }
  return { batchSize: integer(fields, "batch_size", 1), maxPasses: integer(fields, "max_passes", 0) };
}

/** The value of `key`, an integer from `lowest` to LIMIT. JSON.parse cannot tell 3.0 from 3, so no port does. */
function integer(fields: Record<string, unknown>, key: string, lowest: number): number {
  if (!Object.hasOwn(fields, key)) {
    throw new BadConfig(`\`${key}\` is missing`);
  }
  const value = fields[key];
  const rule = `\`${key}\` must be an integer from ${lowest} to ${LIMIT}`;
  if (typeof value !== "number") {
    throw new BadConfig(`${rule}, not ${kind(value)}`);
  }
  if (!Number.isInteger(value)) {
    throw new BadConfig(`${rule}, not a fraction`);
  }
  if (value < lowest || value > LIMIT) {
    throw new BadConfig(rule);
  }
  return value;
}

/** A JSON value's type, as the error messages name it. */
function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "boolean":
      return "a boolean";
    case "number":
      return "a number";
    case "string":
      return "a string";
    default:
      return "an object";
  }
}

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Wraps the real broker and remembers how each attempt went, so the transcript tells the pass's story in batch
 * order. It watches the delivery service too: when its count of dropped repeats rises during a publish, that
 * publish was a redelivery the service recognised.
 */
class NarratingBroker implements Broker {
  #attempts = 0;
  readonly log = new Map<number, string>();

  constructor(
    private readonly inner: Broker,
    private readonly consumer: IdempotentConsumer,
  ) {}

  publish(message: Message): void {
    this.#attempts += 1;
    let story = `attempt ${this.#attempts}: ${describe(message)} -> `;
    const dropped = this.consumer.duplicates;
    try {
      this.inner.publish(message);
      story += "published";
    } catch (error: unknown) {
      if (error instanceof PublishFailed) {
        story += `${error.message}; ${message.aggregate} blocked for this pass`;
      }
      throw error;
    } finally {
      if (this.consumer.duplicates > dropped) {
        story += `\n    delivery service: #${message.id} already processed, repeat dropped`;
      }
      this.log.set(message.id, story);
    }
  }
}

const describe = (m: Message): string => `#${m.id} ${m.aggregate} ${m.type}`;
const idList = (ids: readonly number[]): string => `[${ids.join(", ")}]`;

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

const table = new OutboxTable();
table.add({ id: 1, aggregate: "order-1", type: "OrderPlaced" });
table.add({ id: 2, aggregate: "order-2", type: "OrderPlaced" });
table.add({ id: 3, aggregate: "order-1", type: "OrderPaid" });
table.add({ id: 4, aggregate: "order-2", type: "OrderPaid" });
const consumer = new IdempotentConsumer();
const broker = new NarratingBroker(new FlakyBroker(consumer, new Map([[1, "lost_ack"]])), consumer);
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
