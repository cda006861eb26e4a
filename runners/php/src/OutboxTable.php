<?php

declare(strict_types=1);

namespace Outbox;

/**
 * The rows waiting for the relay, in an array keyed by id: insertion order,
 * and unset() is O(1). But unset() leaves a hole, and foreach starts at the
 * array's first slot, crossing every hole that sent rows left: draining a
 * large backlog that way costs more per row the larger it is.
 *
 * So unsent() starts from the array's internal pointer instead. PHP moves
 * that pointer to the next live row when the row under it is unset, so it
 * always rests on the oldest unsent row and the walk crosses no hole at the
 * front. Holes in the middle (rows sent past a blocked one) are still
 * crossed; the table compacts itself once holes outnumber live rows.
 */
final class OutboxTable
{
    /** @var array<int, Message> */
    private array $unsent = [];
    private int $holes = 0;
    /** Kept apart from the rows: the last row may be sent already. */
    private ?int $lastId = null;

    /** @throws OutOfOrder if the id is not greater than the last one added */
    public function add(Message $message): void
    {
        if ($this->lastId !== null && $message->id <= $this->lastId) {
            throw new OutOfOrder($message->id, $this->lastId);
        }
        $this->lastId = $message->id;
        $this->unsent[$message->id] = $message;
    }

    /** @return list<Message> the oldest unsent rows, at most $limit: a copy, as the relay marks rows while walking it */
    public function unsent(int $limit): array
    {
        $batch = [];
        if ($limit < 1 || $this->unsent === []) {
            return $batch;
        }
        $message = current($this->unsent);
        while ($message !== false && count($batch) < $limit) {
            $batch[] = $message;
            $message = next($this->unsent);
        }
        // Walk the pointer back to the oldest row, over the same stretch.
        $steps = count($batch);
        if ($message === false) {
            end($this->unsent);
            $steps--;
        }
        for (; $steps > 0; $steps--) {
            prev($this->unsent);
        }
        return $batch;
    }

    public function markSent(int $id): void
    {
        if (!isset($this->unsent[$id])) {
            return;
        }
        unset($this->unsent[$id]);
        $this->holes++;
        if ($this->holes > count($this->unsent)) {
            // A fresh array has no holes and its pointer on its first row. An
            // emptied table always lands here, so the pointer never rests
            // past the end when rows are added again.
            $this->unsent = array_slice($this->unsent, 0, null, true);
            $this->holes = 0;
        }
    }

    public function hasUnsent(): bool
    {
        return $this->unsent !== [];
    }
}
