// Drives the TypeScript port over the parity harness's protocol, version 1:
// one request per stdin line in, one answer per stdout line out (stdout to a
// pipe is synchronous on Linux, so each line is out before the next is read).
import { createInterface } from "node:readline";

import {
  type DeadLetter,
  Failure,
  Fetch,
  FlakyBroker,
  IdempotentConsumer,
  type Message,
  OnExhausted,
  OutboxRelay,
  OutboxTable,
  Partition,
  type RelayOptions,
} from "./index.js";

interface CaseRequest {
  kind: "case";
  name: string;
  batch_size: number;
  messages: (Message & { written_after_pass?: number })[];
  failures: Record<string, unknown>;
  passes: number;
  restart_each_pass?: boolean;
  // The features' fields (SPEC.md, "The practice's limits, played"), each
  // present only when the case has it.
  max_attempts?: number;
  on_exhausted?: string;
  unpark?: { aggregate: string; after_pass: number }[];
  retention?: number;
  relays?: number;
  schedule?: number[][];
  fetch?: string;
}

/** A request this runner does not take; its text is the whole error answer. */
class Refused extends Error {}

const describe = (value: unknown): string => (value === undefined || value === null ? "missing" : JSON.stringify(value));

/** The wire's names of the failures: the runner's business, not the port's. */
const FAILURES: ReadonlyMap<unknown, Failure> = new Map([
  ["down", Failure.Down],
  ["lost_ack", Failure.LostAck],
]);
/** The wire's names of the fetch modes; absent is the default. */
const FETCHES: ReadonlyMap<unknown, Fetch> = new Map([
  [undefined, Fetch.Rows],
  ["rows", Fetch.Rows],
  ["heads", Fetch.Heads],
]);
/** The wire's names of what the attempt cap does with an order; absent is the default. */
const EXHAUSTIONS: ReadonlyMap<unknown, OnExhausted> = new Map([
  [undefined, OnExhausted.Release],
  ["release", OnExhausted.Release],
  ["park", OnExhausted.Park],
]);

/** The value `names` has for the request's `field`, or a refusal naming the field. */
function named<T>(names: ReadonlyMap<unknown, T>, field: string, value: unknown): T {
  const known = names.get(value);
  if (known === undefined) {
    throw new Refused(`unknown ${field}: ${describe(value)}`);
  }
  return known;
}

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
  const unparks = new Map<number, string[]>();
  for (const { aggregate, after_pass: pass } of c.unpark ?? []) {
    const aggregates = unparks.get(pass) ?? [];
    aggregates.push(aggregate);
    unparks.set(pass, aggregates);
  }
  const consumer = new IdempotentConsumer(c.retention);
  const broker = new FlakyBroker(consumer, failures);
  let dead: number[] = []; // the ids the current run dead-letters
  const alert = (letter: DeadLetter): void => {
    dead.push(letter.message.id);
  };
  const fetch = named(FETCHES, "fetch", c.fetch);
  const onExhausted = named(EXHAUSTIONS, "on_exhausted", c.on_exhausted);
  const options: RelayOptions =
    c.max_attempts === undefined
      ? { fetch }
      : { fetch, cap: { maxAttempts: c.max_attempts, onExhausted }, alert };
  const count = c.relays ?? 1;
  const everyRelay = Array.from({ length: count }, (_, index) => index);
  // Built on its first run (after a restart, its first run of the pass), so
  // that a schedule's idle relays cost nothing.
  let relays = new Map<number, OutboxRelay>();
  const relay = (index: number): OutboxRelay => {
    let built = relays.get(index);
    if (built === undefined) {
      const partition = new Partition(index, count);
      built = new OutboxRelay(table, broker, c.batch_size, { ...options, partition });
      relays.set(index, built);
    }
    return built;
  };
  const sent: number[][] = [];
  const deadLetters: number[][] = [];
  for (let pass = 1; pass <= c.passes; pass++) {
    if (c.restart_each_pass === true) {
      relays = new Map();
    }
    consumer.tick();
    for (const index of c.schedule?.[pass - 1] ?? everyRelay) {
      dead = [];
      sent.push(relay(index).runOnce());
      deadLetters.push(dead);
    }
    write(pass);
    for (const aggregate of unparks.get(pass) ?? []) {
      table.unpark(aggregate);
    }
  }
  const outcome = { name: c.name, sent, journal: consumer.journal, duplicates: consumer.duplicates };
  // dead_letters is answered exactly when the case has max_attempts.
  return c.max_attempts === undefined ? outcome : { ...outcome, dead_letters: deadLetters };
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
