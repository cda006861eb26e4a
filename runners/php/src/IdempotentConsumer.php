<?php

declare(strict_types=1);

namespace Outbox;

/**
 * The delivery service: turns at-least-once delivery into exactly-once
 * effect by remembering which message ids it has processed. It cannot tell a
 * repeat by content (two identical "paid" events can both be honest); only
 * the outbox-assigned id tells.
 */
final class IdempotentConsumer
{
    /** @var array<int, true> */
    private array $processed = [];
    /** @var list<string> */
    private array $journal = [];
    private int $duplicates = 0;

    /** Does the work once per message id; a redelivery is only counted. */
    public function handle(Message $message): void
    {
        if (isset($this->processed[$message->id])) {
            $this->duplicates++;
            return;
        }
        $this->processed[$message->id] = true;
        $this->journal[] = "{$message->aggregate} {$message->type}";
    }

    /**
     * The work done, in order: "<aggregate> <type>" per message.
     *
     * @return list<string>
     */
    public function journal(): array
    {
        return $this->journal;
    }

    /** How many redeliveries were dropped. */
    public function duplicates(): int
    {
        return $this->duplicates;
    }
}
