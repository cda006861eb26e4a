<?php

declare(strict_types=1);

namespace Outbox;

/**
 * One outbox row: an event of one aggregate (an order). The teaching scope
 * drops payload and headers; id, aggregate and event type are all the relay
 * and the consumer need to show ordering and dedupe. The outbox assigns
 * $id, increasing in insertion order; it is the only thing that tells a
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
