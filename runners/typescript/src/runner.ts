// Drives the TypeScript port over the parity harness's protocol, version 1:
// one request per stdin line in, one answer per stdout line out (stdout to a
// pipe is synchronous on Linux, so each line is out before the next is read).
import { createInterface } from "node:readline";

import { Failure, FlakyBroker, IdempotentConsumer, type Message, OutboxRelay, OutboxTable } from "./index.js";

interface CaseRequest {
  kind: "case";
  name: string;
  batch_size: number;
  messages: (Message & { written_after_pass?: number })[];
  failures: Record<string, unknown>;
  passes: number;
  restart_each_pass?: boolean;
}

/** A request this runner does not take; its text is the whole error answer. */
class Refused extends Error {}

const describe = (value: unknown): string => (value === undefined || value === null ? "missing" : JSON.stringify(value));

/** The wire's names of the failures: the runner's business, not the port's. */
const FAILURES: ReadonlyMap<unknown, Failure> = new Map([
  ["down", Failure.Down],
  ["lost_ack", Failure.LostAck],
]);

/**
 * Adds the rows written before the first pass, then after each pass k the
 * rows written after it, through the table's ordinary `add`.
 */
function runCase(c: CaseRequest): object {
  const failures: Record<number, Failure> = {};
  for (const [attempt, kind] of Object.entries(c.failures)) {
    const failure = FAILURES.get(kind);
    if (failure === undefined) {
      throw new Refused(`unknown failure kind: ${describe(kind)} (attempt ${attempt})`);
    }
    failures[Number(attempt)] = failure;
  }
  const writtenAfter = new Map<number, Message[]>();
  for (const { id, aggregate, type, written_after_pass: pass = 0 } of c.messages) {
    const rows = writtenAfter.get(pass) ?? [];
    rows.push({ id, aggregate, type });
    writtenAfter.set(pass, rows);
  }
  const table = new OutboxTable();
  const write = (pass: number): void => {
    for (const message of writtenAfter.get(pass) ?? []) {
      table.add(message);
    }
  };
  write(0);
  const consumer = new IdempotentConsumer();
  const broker = new FlakyBroker(consumer, failures);
  let relay = new OutboxRelay(table, broker, c.batch_size);
  const sent: number[][] = [];
  for (let pass = 1; pass <= c.passes; pass++) {
    if (c.restart_each_pass === true) {
      relay = new OutboxRelay(table, broker, c.batch_size);
    }
    sent.push(relay.runOnce());
    write(pass);
  }
  return { name: c.name, sent, journal: consumer.journal, duplicates: consumer.duplicates };
}

/** Refuses what protocol version 1 does not know; the rest is the harness's well-formed input. */
function run(fields: Partial<Record<string, unknown>>): object {
  if (fields.kind !== "case") {
    throw new Refused(`unknown request kind: ${describe(fields.kind)} (want "case")`);
  }
  // JSON.parse reads 1.0 as 1 too: JavaScript has one number type.
  if (fields.version !== 1) {
    throw new Refused(`unsupported protocol version: ${describe(fields.version)} (want 1)`);
  }
  return runCase(fields as unknown as CaseRequest);
}

function answer(line: string): object {
  let fields: Partial<Record<string, unknown>> = {};
  try {
    const request: unknown = JSON.parse(line);
    if (typeof request === "object" && request !== null) {
      fields = request;
    }
    return run(fields);
  } catch (error: unknown) {
    const name = typeof fields.name === "string" ? fields.name : null;
    if (error instanceof Refused) {
      return { name, error: error.message };
    }
    return { name, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  process.stdout.write(`${JSON.stringify(answer(line))}\n`);
}
