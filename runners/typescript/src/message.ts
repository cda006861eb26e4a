/**
 * One outbox row: an event of one aggregate (an order). The teaching scope
 * drops payload and headers; id, aggregate and event type are all the relay
 * and the consumer need to show ordering and dedupe. The outbox assigns
 * `id`, increasing in insertion order; it is the only thing that tells a
 * redelivery from an honest second event.
 */
export interface Message {
  readonly id: number;
  readonly aggregate: string;
  readonly type: string;
}
