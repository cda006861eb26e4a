<?php

declare(strict_types=1);

namespace Outbox;

/** No acknowledgement: whether the message arrived is unknown to the publisher. */
final class PublishFailed extends \RuntimeException
{
    public function __construct(public readonly Failure $failure)
    {
        parent::__construct('publish failed: ' . $failure->describe());
    }
}
