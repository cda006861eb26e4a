<?php

declare(strict_types=1);

namespace Outbox;

/**
 * A fake broker that delivers to the consumer inside publish() and fails on
 * scripted attempt numbers, counted from 1 over its whole life.
 */
final class FlakyBroker implements Broker
{
    private int $attempts = 0;

    /**
     * A broker delivering to $consumer, failing attempt n as $failures[n] says.
     *
     * @param array<int, Failure> $failures
     */
    public function __construct(
        private readonly IdempotentConsumer $consumer,
        private readonly array $failures,
    ) {
    }

    public function publish(Message $message): void
    {
        $this->attempts++;
        $failure = $this->failures[$this->attempts] ?? null;
        if ($failure === Failure::Down) {
            throw new PublishFailed($failure);
        }
        $this->consumer->handle($message);
        if ($failure === Failure::LostAck) {
            throw new PublishFailed($failure);
        }
    }
}
