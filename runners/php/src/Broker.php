<?php

declare(strict_types=1);

namespace Outbox;

/** What the relay publishes to. */
interface Broker
{
    /** @throws PublishFailed when no ack came back (the message may or may not have arrived) */
    public function publish(Message $message): void;
}
