// The TypeScript port of the transactional Outbox relay practice.
export { type Broker, Failure, FlakyBroker, PublishFailed } from "./broker.js";
export { IdempotentConsumer } from "./consumer.js";
export type { Message } from "./message.js";
export { type AttemptCap, OnExhausted, OutboxRelay, type RelayOptions } from "./relay.js";
export { type DeadLetter, Fetch, OutboxTable, OutOfOrder, Partition } from "./table.js";
