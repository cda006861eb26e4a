<?php

declare(strict_types=1);

namespace Outbox;

/**
 * One outbox row: an event of one aggregate (an order). The outbox assigns
 * the id, increasing in insertion order; it is the only thing that tells a
 * redelivery from an honest second event.
 */
final readonly class Message
{
    public function __construct(
        public int $id,
        public string $aggregate,
        public string $type,
    ) {
    }
}
