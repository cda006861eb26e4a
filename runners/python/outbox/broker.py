from enum import Enum
from typing import Protocol

from outbox.consumer import IdempotentConsumer
from outbox.message import Message


class Failure(Enum):
    """How a scripted publish attempt goes wrong."""

    DOWN = "broker down"
    """The broker did not answer: the message was NOT delivered."""
    LOST_ACK = "ack lost"
    """The message was delivered, but the ack was lost: the publisher sees an
    error anyway. This is why delivery is at-least-once."""


class PublishFailed(Exception):
    """No acknowledgement: whether the message arrived is unknown to the
    publisher."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(f"publish failed: {failure.value}")
        self.failure = failure


class Broker(Protocol):
    """What the relay publishes to."""

    def publish(self, message: Message) -> None:
        """Hands the message over. ``PublishFailed`` means no ack came back:
        the relay must retry later, although the message may have arrived."""
        ...


class FlakyBroker:
    """A fake broker that delivers to the consumer inside ``publish`` and
    fails on scripted attempt numbers, counted from 1 over its whole life."""

    def __init__(self, consumer: IdempotentConsumer, failures: dict[int, Failure]) -> None:
        """A broker delivering to ``consumer``, failing attempt n as ``failures[n]`` says."""
        self._consumer = consumer
        self._failures = failures
        self._attempts = 0

    def publish(self, message: Message) -> None:
        self._attempts += 1
        failure = self._failures.get(self._attempts)
        if failure is Failure.DOWN:
            raise PublishFailed(failure)
        self._consumer.handle(message)
        if failure is Failure.LOST_ACK:
            raise PublishFailed(failure)
