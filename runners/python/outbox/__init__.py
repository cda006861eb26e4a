"""The Python port of the transactional Outbox relay practice.

A relay moves events from an outbox table to a flaky broker, keeping each
order's events in order; an idempotent consumer turns at-least-once delivery
into exactly-once effect.
"""

from outbox.broker import Broker, Failure, FlakyBroker, PublishFailed
from outbox.consumer import IdempotentConsumer
from outbox.message import Message
from outbox.relay import OutboxRelay
from outbox.table import OutboxTable, OutOfOrder

__all__ = [
    "Broker",
    "Failure",
    "FlakyBroker",
    "IdempotentConsumer",
    "Message",
    "OutboxRelay",
    "OutboxTable",
    "OutOfOrder",
    "PublishFailed",
]
