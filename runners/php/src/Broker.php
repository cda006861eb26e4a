<?php

declare(strict_types=1);

namespace Outbox;

/** What the relay publishes to. */
interface Broker
{
    /** Hands the message over. @throws PublishFailed when no ack came back, although the message may have arrived */
    public function publish(Message $message): void;
}
