// The TypeScript idioms the parity table cannot see: the error classes told
// by instanceof, the rethrow, the copied batch, the table's typed refusal,
// and each member the practice's limits added (the hash over UTF-8 bytes
// read unsigned, the fetch's filters, dead letters and parking, the
// consumer's clock), with SPEC's four examples. Compiled with the port
// (tsc -p runners/typescript), then run from the repository root:
//   node --test runners/typescript/dist/test/outbox.test.js
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { BadConfig, loadConfig } from "../demo.js";

import {
  type Broker,
  type DeadLetter,
  Failure,
  Fetch,
  FlakyBroker,
  IdempotentConsumer,
  type Message,
  OnExhausted,
  OutboxRelay,
  OutboxTable,
  OutOfOrder,
  Partition,
  PublishFailed,
  type RelayOptions,
} from "../index.js";

function seededTable(): OutboxTable {
  const table = new OutboxTable();
  table.add({ id: 1, aggregate: "order-1", type: "OrderPlaced" });
  table.add({ id: 2, aggregate: "order-2", type: "OrderPlaced" });
  table.add({ id: 3, aggregate: "order-1", type: "OrderPaid" });
  return table;
}

const ids = (table: OutboxTable): number[] => table.unsent(10).map((m) => m.id);

test("a scripted failure is a PublishFailed the relay can tell by instanceof", () => {
  const consumer = new IdempotentConsumer();
  const broker = new FlakyBroker(consumer, { 1: Failure.Down });
  assert.throws(
    () => broker.publish({ id: 1, aggregate: "order-1", type: "OrderPlaced" }),
    (error: unknown) => error instanceof PublishFailed && error.failure === Failure.Down && error.name === "PublishFailed",
  );
  assert.deepEqual(consumer.journal, [], "a message the broker was down for is not delivered");
});

test("the relay rethrows an error that is not a PublishFailed", () => {
  const broken: Broker = {
    publish(_message: Message): void {
      throw new TypeError("disk on fire");
    },
  };
  const table = seededTable();
  assert.throws(() => new OutboxRelay(table, broken, 10).runOnce(), TypeError);
  assert.deepEqual(ids(table), [1, 2, 3], "nothing is marked sent");
});

test("a failure blocks its order for the rest of the pass", () => {
  const consumer = new IdempotentConsumer();
  const relay = new OutboxRelay(seededTable(), new FlakyBroker(consumer, { 1: Failure.Down }), 10);
  assert.deepEqual(relay.runOnce(), [2], "order-1's OrderPaid must not overtake its OrderPlaced");
  assert.deepEqual(relay.runOnce(), [1, 3]);
});

test("unsent is a copy of the oldest rows in insertion order", () => {
  const table = seededTable();
  table.markSent(1);
  const batch = table.unsent(1);
  table.markSent(2);
  assert.deepEqual(batch, [{ id: 2, aggregate: "order-2", type: "OrderPlaced" }]);
  assert.deepEqual(ids(table), [3]);
});

test("a lost ack delivers, then fails; attempts without a script entry succeed", () => {
  const consumer = new IdempotentConsumer();
  const broker = new FlakyBroker(consumer, { 2: Failure.LostAck });
  const placed: Message = { id: 1, aggregate: "order-1", type: "OrderPlaced" };
  broker.publish(placed);
  assert.throws(() => broker.publish(placed), { message: "publish failed: ack lost" });
  broker.publish(placed);
  assert.equal(consumer.duplicates, 2);
});

test("add refuses an id that does not increase, even after the table drained", () => {
  const table = seededTable();
  assert.throws(
    () => table.add({ id: 3, aggregate: "order-2", type: "OrderPaid" }),
    (error: unknown) =>
      error instanceof OutOfOrder &&
      error.id === 3 &&
      error.lastId === 3 &&
      error.message === "message id 3 is not greater than the last id 3",
  );
  assert.deepEqual(ids(table), [1, 2, 3], "a refused row is not added");
  for (const id of [1, 2, 3]) {
    table.markSent(id);
  }
  assert.throws(() => table.add({ id: 2, aggregate: "order-2", type: "OrderShipped" }), OutOfOrder);
  table.add({ id: 4, aggregate: "order-2", type: "OrderShipped" });
  assert.deepEqual(ids(table), [4]);
});

test("the consumer drops a repeat by id and counts it", () => {
  const consumer = new IdempotentConsumer();
  const placed: Message = { id: 7, aggregate: "order-1", type: "OrderPlaced" };
  consumer.handle(placed);
  consumer.handle(placed);
  consumer.handle({ ...placed, id: 8 });
  assert.deepEqual(consumer.journal, ["order-1 OrderPlaced", "order-1 OrderPlaced"]);
  assert.equal(consumer.duplicates, 1);
  (consumer.journal as string[]).push("forged");
  assert.deepEqual(consumer.journal, ["order-1 OrderPlaced", "order-1 OrderPlaced"], "the journal is a copy");
});

// Every refusal of SPEC's demo contract, in-process: the demo_config trial
// starts the demo on three of them only.
test("the demo refuses a bad config in one line naming the file and the key at fault", () => {
  const dir = mkdtempSync(join(tmpdir(), "outbox-demo-"));
  const path = join(dir, "demo.json");
  for (const [content, expected] of [
    ["batch_size = 3", "not valid JSON"],
    ["[3, 10]", "not a JSON object"],
    ['{"batch_size": 3}', '"max_passes" is missing'],
    ['{"batch_size": 3, "max_passes": 10, "z": 1}', 'unknown key "z"'],
    ['{"batch_size": 3, "max_passes": true}', '"max_passes" must be an integer >= 1'],
    ['{"batch_size": 3.5, "max_passes": 10}', '"batch_size" must be an integer >= 1'],
    ['{"batch_size": 0, "max_passes": 10}', '"batch_size" must be an integer >= 1'],
    ['{"batch_size": "3", "max_passes": 10}', '"batch_size" must be an integer >= 1'],
    ['{"batch_size": 3, "max_passes": 10, "max_attempts": true}', '"max_attempts" must be an integer >= 1'],
    ['{"batch_size": 3, "max_passes": 10, "max_attempts": 0}', '"max_attempts" must be an integer >= 1'],
    ['{"batch_size": 3, "max_passes": 10, "max_attempts": "3"}', '"max_attempts" must be an integer >= 1'],
    ['{"batch_size": 3, "max_passes": 10, "max_attempts": 2.5}', '"max_attempts" must be an integer >= 1'],
  ]) {
    writeFileSync(path, content ?? "");
    assert.throws(() => loadConfig(path), new BadConfig(`${path}: ${expected}`), content);
  }
  writeFileSync(path, '{"batch_size": 2, "max_passes": 4}');
  assert.deepEqual(loadConfig(path), { batch_size: 2, max_passes: 4 }, "max_attempts left out: no attempt limit");
  rmSync(dir, { recursive: true });
  assert.throws(() => loadConfig(path), new BadConfig(`${path}: cannot read the file`));
  const shared = fileURLToPath(new URL("../../../demo.json", import.meta.url));
  assert.deepEqual(loadConfig(shared), { batch_size: 3, max_passes: 10, max_attempts: 3 });
});

function tableOf(...rows: [aggregate: string, type: string][]): OutboxTable {
  const table = new OutboxTable();
  rows.forEach(([aggregate, type], at) => table.add({ id: at + 1, aggregate, type }));
  return table;
}

const fetched = (table: OutboxTable, limit: number, partition: Partition, fetch: Fetch): number[] =>
  table.unsent(limit, partition, fetch).map((m) => m.id);

test("fnv1a32 hashes UTF-8 bytes, read as an unsigned number", () => {
  for (const [text, hash] of [
    ["", 0x811c9dc5],
    ["a", 0xe40c292c],
    ["foobar", 0xbf9cf968],
    ["order-1", 0x2b7fcd6d],
    ["order-2", 0x287fc8b4],
    // UTF-8 bytes: hashing UTF-16 code units (charCodeAt) gives 0x537e7965.
    ["order-é", 0x5fd94d7a],
    // Over 2^31, not ASCII: without >>> 0 the hash is negative, and so is its remainder by 3.
    ["заказ-1", 0xcba8ad55],
    ["order-10", 0xd7304967],
  ] as const) {
    assert.equal(Partition.fnv1a32(text), hash, `fnv1a32(${JSON.stringify(text)})`);
  }
});

test("a partition owns the orders whose hash falls on its index", () => {
  const whole = new Partition();
  assert.deepEqual([whole.index, whole.count], [0, 1]);
  assert.ok(["", "order-1", "заказ-1"].every((a) => whole.owns(a)));
  assert.ok(new Partition(1, 2).owns("order-1") && new Partition(0, 2).owns("order-2"));
  assert.ok(!new Partition(0, 2).owns("order-1") && !new Partition(1, 2).owns("order-2"));
  const owners = (aggregate: string): number[] => [0, 1, 2].filter((i) => new Partition(i, 3).owns(aggregate));
  assert.deepEqual(owners("order-é"), [1]);
  assert.deepEqual(owners("заказ-1"), [2]);
  assert.deepEqual(owners("order-10"), [1]);
});

test("the filters come before the limit", () => {
  const table = tableOf(
    ["order-1", "OrderPlaced"],
    ["order-1", "OrderPaid"],
    ["order-2", "OrderPlaced"],
    ["order-1", "OrderShipped"],
    ["order-3", "OrderPlaced"],
    ["order-2", "OrderPaid"],
  );
  const whole = new Partition();
  assert.deepEqual(fetched(table, 2, whole, Fetch.Rows), [1, 2]);
  assert.deepEqual(ids(table), [1, 2, 3, 4, 5, 6], "the defaults are the whole table, row by row");
  assert.deepEqual(fetched(table, 10, whole, Fetch.Heads), [1, 3, 5]);
  assert.deepEqual(fetched(table, 2, whole, Fetch.Heads), [1, 3], "heads' limit counts orders");
  // order-1 and order-3 hash to relay 1 of 2, order-2 to relay 0.
  const second = new Partition(1, 2);
  assert.deepEqual(fetched(table, 2, second, Fetch.Rows), [1, 2], "other partitions' rows take no slot");
  assert.deepEqual(fetched(table, 10, second, Fetch.Heads), [1, 5]);
  assert.deepEqual(fetched(table, 1, new Partition(0, 2), Fetch.Rows), [3]);
});

test("a parked order is not fetched until it is unparked", () => {
  const table = seededTable();
  table.unpark("order-1");
  assert.deepEqual(ids(table), [1, 2, 3], "unparking what is not parked");
  table.park("order-1");
  assert.deepEqual(table.unsent(1).map((m) => m.id), [2], "a parked row takes no slot");
  assert.deepEqual(fetched(table, 10, new Partition(), Fetch.Heads), [2]);
  table.markSent(2);
  assert.ok(table.hasUnsent(), "a parked row is still unsent");
  table.unpark("order-1");
  assert.deepEqual(ids(table), [1, 3]);
});

test("failures are counted per row and never reset", () => {
  const table = seededTable();
  assert.deepEqual([table.markFailed(1), table.markFailed(3), table.markFailed(1)], [1, 1, 2]);
  assert.deepEqual(ids(table), [1, 2, 3], "a failure leaves the row unsent");
  const expected: DeadLetter = { message: { id: 1, aggregate: "order-1", type: "OrderPlaced" }, attempts: 2 };
  assert.deepEqual(table.deadLetter(1), expected);
  assert.deepEqual(table.deadLetters, [expected]);
  (table.deadLetters as DeadLetter[]).pop();
  assert.equal(table.deadLetters.length, 1, "the dead letters are a copy");
  assert.deepEqual(ids(table), [2, 3], "a dead letter is not unsent");
  assert.equal(table.markFailed(3), 2);
  table.markSent(2);
  table.markSent(3);
  assert.ok(!table.hasUnsent(), "dead letters are no work");
  assert.throws(() => table.deadLetter(2), /message 2 is no unsent row/);
});

/** Runs a relay built with `options` and an alert `runs` times, collecting what each run sent and dead-lettered. */
function play(table: OutboxTable, broker: Broker, runs: number, options: RelayOptions = {}): [number[][], number[][]] {
  const sent: number[][] = [];
  const dead: number[][] = [];
  for (let run = 0; run < runs; run++) {
    const letters: number[] = [];
    const alert = (letter: DeadLetter): void => {
      letters.push(letter.message.id);
    };
    sent.push(new OutboxRelay(table, broker, 10, { ...options, alert }).runOnce());
    dead.push(letters);
  }
  return [sent, dead];
}

// SPEC's example: maxAttempts 2, Down on attempts 1 and 3.
test("the cap releases an order after its dead letter", () => {
  const table = seededTable();
  const consumer = new IdempotentConsumer();
  const broker = new FlakyBroker(consumer, { 1: Failure.Down, 3: Failure.Down });
  const [sent, dead] = play(table, broker, 3, { cap: { maxAttempts: 2 } });
  assert.deepEqual(sent, [[2], [], [3]]);
  assert.deepEqual(dead, [[], [1], []]);
  assert.equal(table.deadLetters[0]?.attempts, 2);
  assert.deepEqual(consumer.journal, ["order-2 OrderPlaced", "order-1 OrderPaid"]);
  assert.equal(consumer.duplicates, 0);
});

test("park holds the order, and a lost-ack dead letter was delivered", () => {
  const table = seededTable();
  const consumer = new IdempotentConsumer();
  const broker = new FlakyBroker(consumer, { 1: Failure.LostAck });
  const alerts: DeadLetter[] = [];
  const relay = new OutboxRelay(table, broker, 10, {
    cap: { maxAttempts: 1, onExhausted: OnExhausted.Park },
    alert: (letter) => alerts.push(letter),
  });
  assert.deepEqual(relay.runOnce(), [2]);
  assert.deepEqual(relay.runOnce(), [], "order-1 is parked");
  assert.deepEqual(alerts.map((l) => l.message.id), [1]);
  assert.deepEqual(table.deadLetters, alerts);
  table.unpark("order-1");
  assert.deepEqual(new OutboxRelay(table, broker, 10).runOnce(), [3], "the dead letter is not retried");
  const delivered = ["order-1 OrderPlaced", "order-2 OrderPlaced", "order-1 OrderPaid"];
  assert.deepEqual(consumer.journal, delivered, "a dead letter means unconfirmed");
});

test("without a cap a failing row is retried forever", () => {
  const table = tableOf(["order-1", "OrderPlaced"]);
  const down = { 1: Failure.Down, 2: Failure.Down, 3: Failure.Down, 4: Failure.Down, 5: Failure.Down };
  const [sent] = play(table, new FlakyBroker(new IdempotentConsumer(), down), 6);
  assert.deepEqual(sent, [[], [], [], [], [], [1]]);
  assert.deepEqual(table.deadLetters, []);
});

// SPEC's example: two relays, two passes, nothing fails.
test("two relays split the orders by hash", () => {
  const table = tableOf(["order-1", "OrderPlaced"], ["order-2", "OrderPlaced"], ["order-1", "OrderPaid"], ["order-2", "OrderPaid"]);
  const consumer = new IdempotentConsumer();
  const broker = new FlakyBroker(consumer, {});
  const sent: number[][] = [];
  for (let pass = 0; pass < 2; pass++) {
    for (const index of [0, 1]) {
      sent.push(new OutboxRelay(table, broker, 10, { partition: new Partition(index, 2) }).runOnce());
    }
  }
  assert.deepEqual(sent, [[2, 4], [1, 3], [], []]);
  assert.equal(consumer.journal[0], "order-2 OrderPlaced");
  assert.equal(consumer.journal[3], "order-1 OrderPaid");
});

// SPEC's example: batch 3, a fetch by heads, Down on attempts 1 and 2.
test("heads let other orders past a blocked one", () => {
  const table = tableOf(["order-1", "OrderPlaced"], ["order-1", "OrderPaid"], ["order-1", "OrderShipped"], ["order-2", "OrderPlaced"]);
  const broker = new FlakyBroker(new IdempotentConsumer(), { 1: Failure.Down, 2: Failure.Down });
  const relay = new OutboxRelay(table, broker, 3, { fetch: Fetch.Heads });
  assert.deepEqual([relay.runOnce(), relay.runOnce(), relay.runOnce()], [[], [1, 4], [2]]);
});

test("the consumer forgets an id retention passes after applying it", () => {
  const placed: Message = { id: 1, aggregate: "order-1", type: "OrderPlaced" };
  const consumer = new IdempotentConsumer(3);
  const duplicates: number[] = [];
  for (let pass = 1; pass <= 5; pass++) {
    consumer.tick();
    consumer.handle(placed);
    duplicates.push(consumer.duplicates);
  }
  // Applied at pass 1, dropped at 2 and 3 (not a new window), forgotten at 4
  // and applied again, remembered from pass 4.
  assert.deepEqual(duplicates, [0, 1, 2, 2, 3]);
  assert.deepEqual(consumer.journal, ["order-1 OrderPlaced", "order-1 OrderPlaced"]);

  const forever = new IdempotentConsumer();
  forever.handle(placed);
  for (let pass = 0; pass < 1000; pass++) {
    forever.tick();
  }
  forever.handle(placed);
  assert.equal(forever.duplicates, 1, "without a retention ids are kept forever");
});

// SPEC's example: retention 1, a lost ack on attempt 1, two passes.
test("a retention shorter than the redelivery applies it twice", () => {
  const table = seededTable();
  const consumer = new IdempotentConsumer(1);
  const broker = new FlakyBroker(consumer, { 1: Failure.LostAck });
  const sent: number[][] = [];
  for (let pass = 0; pass < 2; pass++) {
    consumer.tick();
    sent.push(new OutboxRelay(table, broker, 10).runOnce());
  }
  assert.deepEqual(sent, [[2], [1, 3]]);
  const journal = ["order-1 OrderPlaced", "order-2 OrderPlaced", "order-1 OrderPlaced", "order-1 OrderPaid"];
  assert.deepEqual(consumer.journal, journal);
  assert.equal(consumer.duplicates, 0);
});
