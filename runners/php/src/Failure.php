<?php

declare(strict_types=1);

namespace Outbox;

/** How a scripted publish attempt goes wrong. */
enum Failure
{
    /** The broker did not answer: the message was NOT delivered. */
    case Down;
    /**
     * The message was delivered, but the ack was lost: the publisher sees an
     * error anyway. This is why delivery is at-least-once.
     */
    case LostAck;

    public function describe(): string
    {
        return match ($this) {
            self::Down => 'broker down',
            self::LostAck => 'ack lost',
        };
    }
}
