<?php

declare(strict_types=1);

namespace Outbox;

/**
 * One outbox row. The outbox assigns the id, increasing in insertion order;
 * it is the only thing that tells a redelivery from an honest second event.
 */
final class Message
{
    public function __construct(
        public readonly int $id,
        public readonly string $aggregate,
        public readonly string $type,
    ) {
    }
}
