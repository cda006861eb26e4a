<?php

declare(strict_types=1);

namespace Outbox;

/**
 * The attempt limit: without it, a message that always fails blocks its
 * order forever.
 */
final readonly class AttemptCap
{
    /**
     * @param int $maxAttempts Failed publish calls after which a row becomes a
     *     dead letter, at least 1.
     * @param OnExhausted $onExhausted What becomes of the row's order then.
     */
    public function __construct(
        public int $maxAttempts,
        public OnExhausted $onExhausted = OnExhausted::Release,
    ) {
    }
}
