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
    /**
     * Each processed id and the pass it was applied in, oldest first: an
     * array keeps insertion order, so tick() forgets from its front.
     *
     * @var array<int, int>
     */
    private array $processed = [];
    /** The pass number: how many times tick() was called. */
    private int $clock = 0;
    /** @var list<string> */
    private array $journal = [];
    private int $duplicates = 0;

    /**
     * A consumer that forgets each id $retention passes after the pass it
     * applied it in (null: never), as a real inbox's cleanup does.
     */
    public function __construct(private readonly ?int $retention = null)
    {
    }

    /**
     * Advances the clock by one pass and forgets every id whose window
     * ended: one applied at pass t is forgotten at pass t + retention.
     *
     * A repeat that comes later is applied again: the retention must
     * outlast the longest redelivery.
     */
    public function tick(): void
    {
        $this->clock++;
        if ($this->retention === null) {
            return;
        }
        while (($oldest = array_key_first($this->processed)) !== null
            && $this->clock - $this->processed[$oldest] >= $this->retention) {
            unset($this->processed[$oldest]);
        }
    }

    /**
     * Does the work once per message id; a redelivery is only counted.
     *
     * With a retention, once per id within its window: the id is
     * remembered from the pass it is applied in, and a dropped repeat does
     * not extend the window.
     */
    public function handle(Message $message): void
    {
        if (isset($this->processed[$message->id])) {
            $this->duplicates++;
            return;
        }
        $this->processed[$message->id] = $this->clock;
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
