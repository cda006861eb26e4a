// The TypeScript idioms the parity table cannot see: the error classes told
// by instanceof, the rethrow, the copied batch, the table's typed refusal.
// Compiled with the port (tsc -p runners/typescript), then run from the
// repository root:
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
  Failure,
  FlakyBroker,
  IdempotentConsumer,
  type Message,
  OutboxRelay,
  OutboxTable,
  OutOfOrder,
  PublishFailed,
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
  ]) {
    writeFileSync(path, content ?? "");
    assert.throws(() => loadConfig(path), new BadConfig(`${path}: ${expected}`), content);
  }
  rmSync(dir, { recursive: true });
  assert.throws(() => loadConfig(path), new BadConfig(`${path}: cannot read the file`));
  assert.deepEqual(loadConfig(fileURLToPath(new URL("../../../demo.json", import.meta.url))), { batch_size: 3, max_passes: 10 });
});
