import { type Broker, PublishFailed } from "./broker.js";
import type { DeadLetter, Fetch, OutboxTable, Partition } from "./table.js";

/**
 * What becomes of a dead letter's order: the choice between liveness and
 * order that every capped relay makes.
 */
export enum OnExhausted {
  /**
   * The order goes on with its next row on the next run: the consumer may
   * then see `OrderPaid` without `OrderPlaced`.
   */
  Release = "release",
  /**
   * No row of the order is fetched until a person unparks it, so none
   * overtakes the dead letter.
   */
  Park = "park",
}

/**
 * The attempt limit: without it, a message that always fails blocks its
 * order forever.
 */
export interface AttemptCap {
  /** Failed publish calls after which a row becomes a dead letter, at least 1. */
  readonly maxAttempts: number;
  /** What becomes of the row's order then; left out, `Release`. */
  readonly onExhausted?: OnExhausted;
}

/**
 * What a relay is told beyond its table, broker and batch size. The default
 * is the relay built without options: the whole table, row by row, no cap.
 */
export interface RelayOptions {
  /** The orders this relay publishes, when several share the table. */
  readonly partition?: Partition;
  /** Rows, or only the oldest row of each order. */
  readonly fetch?: Fetch;
  /** Left out: a failing row is retried on every run, forever. */
  readonly cap?: AttemptCap;
  /**
   * Told each dead letter as the relay makes it, so that a person hears of
   * it: the relay raises the alert, the caller decides where it goes.
   */
  readonly alert?: (letter: DeadLetter) => void;
}

/**
 * Moves unsent rows from the outbox table to the broker, one pass at a time.
 * It keeps nothing between passes (all state is in the table), so a new
 * relay can be built at any pass boundary and carries on where the last one
 * stopped.
 */
export class OutboxRelay {
  /**
   * A relay taking at most `batchSize` rows per pass. Told `options` as
   * well: one of several, a fetch by heads, an attempt cap and its alert.
   */
  constructor(
    private readonly table: OutboxTable,
    private readonly broker: Broker,
    private readonly batchSize: number,
    private readonly options: RelayOptions = {},
  ) {}

  /**
   * One pass over the oldest unsent rows, returning the ids sent, in order.
   * A failed publish leaves its row unsent (the next pass retries it) and
   * blocks its aggregate for the rest of the pass, so a later event of the
   * same order cannot overtake it. The table counts the failure; when the
   * count reaches the cap, the row becomes a dead letter, its order is
   * parked if the cap says so, and the alert is raised. Any other error
   * propagates.
   */
  runOnce(): number[] {
    const { partition, fetch, cap, alert } = this.options;
    const blocked = new Set<string>();
    const sent: number[] = [];
    for (const message of this.table.unsent(this.batchSize, partition, fetch)) {
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
        const attempts = this.table.markFailed(message.id);
        if (cap !== undefined && attempts >= cap.maxAttempts) {
          const letter = this.table.deadLetter(message.id);
          if (cap.onExhausted === OnExhausted.Park) {
            this.table.park(message.aggregate);
          }
          alert?.(letter);
        }
        continue;
      }
      this.table.markSent(message.id);
      sent.push(message.id);
    }
    return sent;
  }
}
