<?php

declare(strict_types=1);

namespace Outbox;

/** What the relay publishes to. */
interface Broker
{
    /**
     * Hands the message over. PublishFailed means no ack came back:
     * the relay must retry later, although the message may have arrived.
     *
     * @throws PublishFailed
     */
    public function publish(Message $message): void;
}
