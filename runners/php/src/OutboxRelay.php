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
    /**
     * A relay taking at most $batchSize rows per pass. What it is told
     * beyond its table, broker and batch size comes as named arguments; the
     * defaults are the whole table, row by row, no cap.
     *
     * @param Partition $partition The orders this relay publishes, when several
     *     share the table.
     * @param Fetch $fetch Rows, or only the oldest row of each order.
     * @param ?AttemptCap $cap null: a failing row is retried on every run,
     *     forever.
     * @param ?\Closure(DeadLetter): void $alert Told each dead letter as the
     *     relay makes it, so that a person hears of it: the relay raises the
     *     alert, the caller decides where it goes.
     */
    public function __construct(
        private readonly OutboxTable $table,
        private readonly Broker $broker,
        private readonly int $batchSize,
        private readonly Partition $partition = new Partition(),
        private readonly Fetch $fetch = Fetch::Rows,
        private readonly ?AttemptCap $cap = null,
        private readonly ?\Closure $alert = null,
    ) {
    }

    /**
     * One pass over the oldest unsent rows, returning the ids sent, in order.
     * A failed publish leaves its row unsent (the next pass retries it) and
     * blocks its aggregate for the rest of the pass, so a later event of the
     * same order cannot overtake it. The table counts the failure; when the
     * count reaches the cap, the row becomes a dead letter, its order is
     * parked if the cap says so, and the alert is raised. Any other error
     * propagates.
     *
     * @return list<int>
     */
    public function runOnce(): array
    {
        $blocked = [];
        $sent = [];
        $batch = $this->table->unsent($this->batchSize, $this->partition, $this->fetch);
        foreach ($batch as $message) {
            if (isset($blocked[$message->aggregate])) {
                continue;
            }
            try {
                $this->broker->publish($message);
            } catch (PublishFailed) {
                $blocked[$message->aggregate] = true;
                $attempts = $this->table->markFailed($message->id);
                if ($this->cap !== null && $attempts >= $this->cap->maxAttempts) {
                    $letter = $this->table->deadLetter($message->id);
                    if ($this->cap->onExhausted === OnExhausted::Park) {
                        $this->table->park($message->aggregate);
                    }
                    if ($this->alert !== null) {
                        ($this->alert)($letter);
                    }
                }
                continue;
            }
            $this->table->markSent($message->id);
            $sent[] = $message->id;
        }
        return $sent;
    }
}
