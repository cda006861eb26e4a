<?php

declare(strict_types=1);

namespace Outbox;

/**
 * An id that is not greater than the last one added: the outbox assigns ids
 * in increasing order, so such a row is a bug of the writer.
 */
final class OutOfOrder extends \InvalidArgumentException
{
    public function __construct(public readonly int $id, public readonly int $lastId)
    {
        parent::__construct("message id {$id} is not greater than the last id {$lastId}");
    }
}
