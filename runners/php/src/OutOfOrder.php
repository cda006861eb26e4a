<?php

declare(strict_types=1);

namespace Outbox;

/**
 * add() was given an id not greater than the last one: the table's order
 * would no longer be insertion order.
 */
final class OutOfOrder extends \InvalidArgumentException
{
    public function __construct(public readonly int $id, public readonly int $lastId)
    {
        parent::__construct("message id {$id} is not greater than the last id {$lastId}");
    }
}
