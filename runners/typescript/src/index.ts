// The TypeScript port of the transactional Outbox relay practice.
export { type Broker, Failure, FlakyBroker, PublishFailed } from "./broker.js";
export { IdempotentConsumer } from "./consumer.js";
export type { Message } from "./message.js";
export { OutboxRelay } from "./relay.js";
export { OutboxTable, OutOfOrder } from "./table.js";
