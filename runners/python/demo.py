"""The relay as a background process.

Its composition root reads the batch size, the pass limit and the attempt
limit from a config file, builds the table, the broker, the delivery
service's consumer and the relay, and calls ``run_once`` while the table has
unsent rows, at most ``max_passes`` times; a message over the attempt limit
becomes a dead letter, and the relay's alert prints it. The call path:
process loop -> relay -> outbox -> broker -> consumer.
"""

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from outbox import (
    AttemptCap,
    Broker,
    DeadLetter,
    Failure,
    FlakyBroker,
    IdempotentConsumer,
    Message,
    OutboxRelay,
    OutboxTable,
    PublishFailed,
)

REQUIRED = ("batch_size", "max_passes")
OPTIONAL = ("max_attempts",)


@dataclass(frozen=True)
class Config:
    batch_size: int
    max_passes: int
    max_attempts: int | None = None
    """``None`` (the key left out): no limit, a message that always fails
    blocks its order forever."""


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
        if key not in REQUIRED + OPTIONAL:
            raise BadConfig(f"{path}: unknown key {json.dumps(key)}")
    for key in REQUIRED + OPTIONAL:
        if key not in fields:
            if key in OPTIONAL:
                continue
            raise BadConfig(f'{path}: "{key}" is missing')
        # type(...) is int: True is an int in Python, and 3.0 a float.
        if type(fields[key]) is not int or fields[key] < 1:
            raise BadConfig(f'{path}: "{key}" must be an integer >= 1')
    return Config(**fields)


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


def attempts(count: int) -> str:
    """The count with its noun: ``1 attempt``, ``3 attempts``."""
    return "1 attempt" if count == 1 else f"{count} attempts"


def id_list(ids: list[int]) -> str:
    return "[" + ", ".join(str(i) for i in ids) + "]"


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).parent.parent / "demo.json")
    try:
        config = load_config(path)
    except BadConfig as error:
        print(f"demo: {error}", file=sys.stderr)
        sys.exit(2)
    batch_size, max_passes, max_attempts = config.batch_size, config.max_passes, config.max_attempts

    table = OutboxTable()
    table.add(Message(1, "order-1", "OrderPlaced"))
    table.add(Message(2, "order-2", "OrderPlaced"))
    table.add(Message(3, "order-1", "OrderPaid"))
    table.add(Message(4, "order-2", "OrderPaid"))
    table.add(Message(5, "order-3", "OrderPlaced"))
    consumer = IdempotentConsumer()  # the delivery service, across the broker
    # Attempt 1 is message 1's, which the broker delivers; on the shared
    # config, attempts 6 to 8 are message 5's, which always fails.
    failures = {1: Failure.LOST_ACK, 6: Failure.DOWN, 7: Failure.DOWN, 8: Failure.DOWN}
    broker = NarratingBroker(FlakyBroker(consumer, failures), consumer)
    # The relay raises the alert; the process says where it goes: here,
    # under the dead letter's attempt in the transcript.
    alerts: dict[int, str] = {}

    def alert(letter: DeadLetter) -> None:
        alerts[letter.message.id] = (
            f"dead letter {describe(letter.message)} after {attempts(letter.attempts)}"
        )

    cap = None if max_attempts is None else AttemptCap(max_attempts)
    relay = OutboxRelay(table, broker, batch_size, cap=cap, alert=alert)

    limit = (
        "no attempt limit"
        if max_attempts is None
        else f"at most {max_attempts} attempts per message"
    )
    print(f"Outbox relay demo: batch size {batch_size}, at most {max_passes} passes, {limit}.")
    print(f"Outbox: {', '.join(describe(m) for m in table.unsent(sys.maxsize))}.")
    print("The broker will lose the ack of attempt 1 and reject attempts 6, 7 and 8.")

    passes = 0
    while table.has_unsent() and passes < max_passes:
        passes += 1
        batch = table.unsent(batch_size)
        print(f"\nPass {passes}: batch {id_list([m.id for m in batch])}")
        alerts.clear()
        sent = relay.run_once()
        for message in batch:
            skipped = f"skipped {describe(message)}: {message.aggregate} is blocked"
            print(f"  {broker.story.pop(message.id, skipped)}")
            if message.id in alerts:
                print(f"  alert: {alerts[message.id]}")
        print(f"  sent {id_list(sent)}")

    if table.has_unsent():
        print("\nStopped at the pass limit with messages still unsent.")
    else:
        print(f"\nOutbox drained after {passes} passes.")
    if table.dead_letters:
        letters = ", ".join(
            f"{describe(d.message)} ({attempts(d.attempts)})" for d in table.dead_letters
        )
        print(f"Dead letters, for a person to look at: {letters}.")
    print("Consumer journal:")
    for entry in consumer.journal:
        print(f"  {entry}")
    print(f"Duplicates dropped: {consumer.duplicates}")


if __name__ == "__main__":
    main()
