"""The relay as a background process.

Its composition root reads the batch size and the pass limit from a config
file, builds the table, the broker, the delivery service's consumer and the
relay, and calls ``run_once`` while the table has unsent rows, at most
``max_passes`` times. The call path: process loop -> relay -> outbox ->
broker -> consumer.
"""

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from outbox import Broker, Failure, FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable, PublishFailed

KEYS = ("batch_size", "max_passes")


@dataclass(frozen=True)
class Config:
    batch_size: int
    max_passes: int


class BadConfig(Exception):
    """What is wrong with the config file, in one line."""


def load_config(path: str) -> Config:
    """Reads the process's settings, or raises ``BadConfig`` naming the key at fault."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        raise BadConfig(f"{path}: cannot read the file") from None
    try:
        fields = json.loads(data)
    except (ValueError, RecursionError):
        raise BadConfig(f"{path}: not valid JSON") from None
    if not isinstance(fields, dict):
        raise BadConfig(f"{path}: not a JSON object")
    for key in sorted(fields):
        if key not in KEYS:
            raise BadConfig(f"{path}: unknown key {json.dumps(key)}")
    for key in KEYS:
        if key not in fields:
            raise BadConfig(f'{path}: "{key}" is missing')
        # type(...) is int: True is an int in Python, and 3.0 a float.
        if type(fields[key]) is not int or fields[key] < 1:
            raise BadConfig(f'{path}: "{key}" must be an integer >= 1')
    return Config(fields["batch_size"], fields["max_passes"])


@dataclass
class NarratingBroker:
    """Wraps the real broker and tells how each attempt went, so the
    transcript shows the pass's story in batch order. It watches the delivery
    service too: when its count of dropped repeats rises during a publish,
    that publish was a redelivery the service recognised."""

    inner: Broker
    consumer: IdempotentConsumer
    attempts: int = 0
    story: dict[int, str] = field(default_factory=dict)

    def publish(self, message: Message) -> None:
        self.attempts += 1
        line = f"attempt {self.attempts}: {describe(message)} -> "
        dropped = self.consumer.duplicates
        try:
            self.inner.publish(message)
            line += "published"
        except PublishFailed as failed:
            line += f"{failed}; {message.aggregate} blocked for this pass"
            raise
        finally:
            if self.consumer.duplicates > dropped:
                line += f"\n    delivery service: #{message.id} already processed, repeat dropped"
            self.story[message.id] = line


def describe(message: Message) -> str:
    return f"#{message.id} {message.aggregate} {message.type}"


def id_list(ids: list[int]) -> str:
    return "[" + ", ".join(str(i) for i in ids) + "]"


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).parent.parent / "demo.json")
    try:
        config = load_config(path)
    except BadConfig as error:
        print(f"demo: {error}", file=sys.stderr)
        sys.exit(2)
    batch_size, max_passes = config.batch_size, config.max_passes

    table = OutboxTable()
    table.add(Message(1, "order-1", "OrderPlaced"))
    table.add(Message(2, "order-2", "OrderPlaced"))
    table.add(Message(3, "order-1", "OrderPaid"))
    table.add(Message(4, "order-2", "OrderPaid"))
    consumer = IdempotentConsumer()  # the delivery service, across the broker
    broker = NarratingBroker(FlakyBroker(consumer, {1: Failure.LOST_ACK}), consumer)
    relay = OutboxRelay(table, broker, batch_size)

    print(f"Outbox relay demo: batch size {batch_size}, at most {max_passes} passes.")
    print(f"Outbox: {', '.join(describe(m) for m in table.unsent(sys.maxsize))}.")
    print("The broker will lose the ack of attempt 1.")

    passes = 0
    while table.has_unsent() and passes < max_passes:
        passes += 1
        batch = table.unsent(batch_size)
        print(f"\nPass {passes}: batch {id_list([m.id for m in batch])}")
        sent = relay.run_once()
        for message in batch:
            skipped = f"skipped {describe(message)}: {message.aggregate} is blocked"
            print(f"  {broker.story.pop(message.id, skipped)}")
        print(f"  sent {id_list(sent)}")

    if table.has_unsent():
        print("\nStopped at the pass limit with messages still unsent.")
    else:
        print(f"\nOutbox drained after {passes} passes.")
    print("Consumer journal:")
    for entry in consumer.journal:
        print(f"  {entry}")
    print(f"Duplicates dropped: {consumer.duplicates}")


if __name__ == "__main__":
    main()
