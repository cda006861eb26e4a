// Drives the TypeScript port over the parity harness's protocol: one case
// per stdin line in, one result per stdout line out (stdout to a pipe is
// synchronous on Linux, so each line is out before the next is read).
import { createInterface } from "node:readline";

import { type Failure, FlakyBroker, IdempotentConsumer, OutboxRelay, OutboxTable } from "./index.js";

interface Case {
  name: string;
  batch_size: number;
  messages: { id: number; aggregate: string; type: string }[];
  failures: Record<string, Failure>;
  passes: number;
  restart_each_pass?: boolean;
}

function runCase(c: Case): object {
  const table = new OutboxTable();
  for (const m of c.messages) {
    table.add({ id: m.id, aggregate: m.aggregate, type: m.type });
  }
  const failures = new Map<number, Failure>();
  for (const [attempt, failure] of Object.entries(c.failures)) {
    failures.set(Number(attempt), failure);
  }
  const consumer = new IdempotentConsumer();
  const broker = new FlakyBroker(consumer, failures);
  let relay = new OutboxRelay(table, broker, c.batch_size);
  const sent: number[][] = [];
  for (let pass = 0; pass < c.passes; pass++) {
    if (c.restart_each_pass === true) {
      relay = new OutboxRelay(table, broker, c.batch_size);
    }
    sent.push(relay.runOnce());
  }
  return { name: c.name, sent, journal: consumer.journal, duplicates: consumer.duplicates };
}

interface Bench {
  messages: number;
  aggregates: number;
  batch_size: number;
  lost_ack_every: number;
}

/**
 * Builds a table (`messages` rows over `aggregates` orders, every
 * `lost_ack_every`-th attempt losing its ack) and drains it, timing only the
 * relay's passes.
 */
function runBench(name: string, bench: Bench): object {
  const table = new OutboxTable();
  for (let id = 1; id <= bench.messages; id++) {
    table.add({ id, aggregate: `order-${((id - 1) % bench.aggregates) + 1}`, type: "Event" });
  }
  const every = Math.max(bench.lost_ack_every, 2);
  const failures = new Map<number, Failure>();
  for (let k = 1; k <= Math.floor((2 * bench.messages + 2) / every); k++) {
    failures.set(k * every, "lost_ack");
  }
  const consumer = new IdempotentConsumer();
  const relay = new OutboxRelay(table, new FlakyBroker(consumer, failures), bench.batch_size);
  let sent = 0;
  let passes = 0;
  const started = process.hrtime.bigint();
  for (let ids = relay.runOnce(); ids.length > 0; ids = relay.runOnce()) {
    sent += ids.length;
    passes += 1;
  }
  const elapsed = Number(process.hrtime.bigint() - started);
  return { name, elapsed_ns: elapsed, sent, duplicates: consumer.duplicates, passes };
}

function answer(line: string): object {
  let name: unknown = null;
  try {
    const c = JSON.parse(line) as Case | { name: string; bench: Bench };
    name = c.name;
    return "bench" in c ? runBench(c.name, c.bench) : runCase(c);
  } catch (error: unknown) {
    return { name, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  process.stdout.write(`${JSON.stringify(answer(line))}\n`);
}
