<?php

declare(strict_types=1);

namespace Outbox;

/**
 * Moves unsent rows from the outbox table to the broker, one pass at a time.
 * It keeps nothing between passes (all state is in the table), so a new
 * relay can be built at any pass boundary and carries on where the last one
 * stopped.
 */
final class OutboxRelay
{
    /** A relay taking at most $batchSize rows per pass. */
    public function __construct(
        private readonly OutboxTable $table,
        private readonly Broker $broker,
        private readonly int $batchSize,
    ) {
    }

    /**
     * One pass over the oldest unsent rows, returning the ids sent, in order.
     * A failed publish leaves its row unsent (the next pass retries it) and
     * blocks its aggregate for the rest of the pass, so a later event of the
     * same order cannot overtake it. Any other error propagates.
     *
     * @return list<int>
     */
    public function runOnce(): array
    {
        $blocked = [];
        $sent = [];
        foreach ($this->table->unsent($this->batchSize) as $message) {
            if (isset($blocked[$message->aggregate])) {
                continue;
            }
            try {
                $this->broker->publish($message);
            } catch (PublishFailed) {
                $blocked[$message->aggregate] = true;
                continue;
            }
            $this->table->markSent($message->id);
            $sent[] = $message->id;
        }
        return $sent;
    }
}
