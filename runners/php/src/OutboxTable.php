<?php

declare(strict_types=1);

namespace Outbox;

/** The rows waiting for the relay: the unsent messages in insertion order. */
final class OutboxTable
{
    /**
     * An array keyed by id, which keeps insertion order.
     *
     * @var array<int, Message>
     */
    private array $unsent = [];
    /** Kept apart from the rows: the last row may be sent already. */
    private ?int $lastId = null;
    /**
     * Failed publish calls per row that ever failed; kept after the row is
     * sent, as a count never resets.
     *
     * @var array<int, int>
     */
    private array $attempts = [];
    /** @var list<DeadLetter> */
    private array $deadLetters = [];
    /**
     * Orders whose rows no fetch takes until they are unparked, as keys.
     *
     * @var array<string, true>
     */
    private array $parked = [];

    /**
     * Appends a row; refuses an id that does not increase (a writer's bug)
     * with OutOfOrder.
     *
     * @throws OutOfOrder
     */
    public function add(Message $message): void
    {
        if ($this->lastId !== null && $message->id <= $this->lastId) {
            throw new OutOfOrder($message->id, $this->lastId);
        }
        $this->lastId = $message->id;
        $this->unsent[$message->id] = $message;
    }

    /**
     * The oldest unsent rows in insertion order, at most $limit: a copy,
     * because the relay marks rows sent while it walks the batch.
     *
     * Only rows of the orders the $partition owns that are not parked, and
     * with Fetch::Heads only the oldest such row of each order: these
     * filters come before the limit, so a row they leave out takes no slot.
     *
     * @return list<Message>
     */
    public function unsent(
        int $limit,
        Partition $partition = new Partition(),
        Fetch $fetch = Fetch::Rows,
    ): array {
        $rows = array_filter(
            $this->unsent,
            fn (Message $m): bool => $partition->owns($m->aggregate)
                && !isset($this->parked[$m->aggregate]),
        );
        if ($fetch === Fetch::Heads) {
            // Keyed by order: the first row of each stays, in its place.
            $heads = [];
            foreach ($rows as $message) {
                $heads[$message->aggregate] ??= $message;
            }
            $rows = array_values($heads);
        }
        return array_slice($rows, 0, $limit);
    }

    /** Takes the row out of later unsent() selections. */
    public function markSent(int $id): void
    {
        unset($this->unsent[$id]);
    }

    /**
     * Counts one failed publish call of the row and returns its count so
     * far: the table keeps it, since a relay keeps nothing between runs.
     *
     * A lost ack counts, as the relay cannot tell it from a broker that is
     * down; a count never resets.
     */
    public function markFailed(int $id): int
    {
        return $this->attempts[$id] = ($this->attempts[$id] ?? 0) + 1;
    }

    /**
     * Moves the row from the unsent rows to the dead letters, with its
     * attempts, and returns it: no fetch takes it again.
     *
     * The relay dead-letters only a row it has just fetched, so $id is
     * unsent.
     */
    public function deadLetter(int $id): DeadLetter
    {
        $letter = new DeadLetter($this->unsent[$id], $this->attempts[$id] ?? 0);
        unset($this->unsent[$id], $this->attempts[$id]);
        $this->deadLetters[] = $letter;
        return $letter;
    }

    /**
     * Holds every row of the order back from unsent() (they take no slot)
     * until unpark(): a dead letter then cannot be overtaken by its order's
     * later events.
     */
    public function park(string $aggregate): void
    {
        $this->parked[$aggregate] = true;
    }

    /**
     * Lets unsent() take the order's rows again, from its oldest; an order
     * that is not parked is left as it is.
     */
    public function unpark(string $aggregate): void
    {
        unset($this->parked[$aggregate]);
    }

    /**
     * The rows given up on, in the order they were: what a person reads.
     *
     * @return list<DeadLetter>
     */
    public function deadLetters(): array
    {
        return $this->deadLetters;
    }

    /**
     * Whether the relay still has work: the demo's loop condition.
     *
     * A parked order's rows count (they are still unsent); dead letters do
     * not.
     */
    public function hasUnsent(): bool
    {
        return $this->unsent !== [];
    }
}
