"""The Python port of the transactional Outbox relay practice.

A relay moves events from an outbox table to a flaky broker, keeping each
order's events in order; an idempotent consumer turns at-least-once delivery
into exactly-once effect.
"""

from outbox.broker import Broker, Failure, FlakyBroker, PublishFailed
from outbox.consumer import IdempotentConsumer
from outbox.message import Message
from outbox.relay import AttemptCap, OnExhausted, OutboxRelay
from outbox.table import DeadLetter, Fetch, OutboxTable, OutOfOrder, Partition

__all__ = [
    "AttemptCap",
    "Broker",
    "DeadLetter",
    "Failure",
    "Fetch",
    "FlakyBroker",
    "IdempotentConsumer",
    "Message",
    "OnExhausted",
    "OutboxRelay",
    "OutboxTable",
    "OutOfOrder",
    "Partition",
    "PublishFailed",
]
