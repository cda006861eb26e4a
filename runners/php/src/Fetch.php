<?php

declare(strict_types=1);

namespace Outbox;

/** Which unsent rows a fetch takes, before it takes at most $limit of them. */
enum Fetch
{
    /** Every row: a batch full of one blocked order sends nothing for the others. */
    case Rows;
    /**
     * The oldest row of each order only: a blocked order costs one slot, and
     * an order with k rows needs k runs.
     */
    case Heads;
}
