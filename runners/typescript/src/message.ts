/**
 * One outbox row: an event of one aggregate (an order). The outbox assigns
 * `id`, increasing in insertion order; it is the only thing that tells a
 * redelivery from an honest second event.
 */
export interface Message {
  readonly id: number;
  readonly aggregate: string;
  readonly type: string;
}
