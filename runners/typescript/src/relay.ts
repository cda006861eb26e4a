import { type Broker, PublishFailed } from "./broker.js";
import type { OutboxTable } from "./table.js";

/**
 * Moves unsent rows from the outbox table to the broker, one pass at a time.
 * It keeps nothing between passes (all state is in the table), so a new
 * relay can be built at any pass boundary and carries on where the last one
 * stopped.
 */
export class OutboxRelay {
  /** A relay taking at most `batchSize` rows per pass. */
  constructor(
    private readonly table: OutboxTable,
    private readonly broker: Broker,
    private readonly batchSize: number,
  ) {}

  /**
   * One pass over the oldest unsent rows, returning the ids sent, in order.
   * A failed publish leaves its row unsent (the next pass retries it) and
   * blocks its aggregate for the rest of the pass, so a later event of the
   * same order cannot overtake it. Any other error propagates.
   */
  runOnce(): number[] {
    const blocked = new Set<string>();
    const sent: number[] = [];
    for (const message of this.table.unsent(this.batchSize)) {
      if (blocked.has(message.aggregate)) {
        continue;
      }
      try {
        this.broker.publish(message);
      } catch (error: unknown) {
        if (!(error instanceof PublishFailed)) {
          throw error;
        }
        blocked.add(message.aggregate);
        continue;
      }
      this.table.markSent(message.id);
      sent.push(message.id);
    }
    return sent;
  }
}
