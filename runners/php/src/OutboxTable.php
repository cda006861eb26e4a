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
     * @return list<Message>
     */
    public function unsent(int $limit): array
    {
        return array_slice($this->unsent, 0, $limit);
    }

    /** Takes the row out of later unsent() selections. */
    public function markSent(int $id): void
    {
        unset($this->unsent[$id]);
    }

    /** Whether the relay still has work: the demo's loop condition. */
    public function hasUnsent(): bool
    {
        return $this->unsent !== [];
    }
}
