<?php

declare(strict_types=1);

namespace Outbox;

/**
 * A row the relay gave up on: it left the unsent rows after $attempts
 * failed publish calls, for a person to look at.
 */
final readonly class DeadLetter
{
    /**
     * @param Message $message The row as it was written.
     * @param int $attempts Its failed publish calls, the last included.
     */
    public function __construct(
        public Message $message,
        public int $attempts,
    ) {
    }
}
