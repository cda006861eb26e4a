"""The relay as a process: the composition root reads the batch size and the
pass limit from the shared config, builds the table, broker, consumer and
relay, and loops ``run_once`` while rows are unsent. It prints the same
transcript as every other language's demo."""

import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

from outbox import Broker, Failure, FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable, PublishFailed

LIMIT = 1_000_000
"""The largest batch size and pass limit. Every port reads JSON numbers as
doubles or 64-bit integers and holds 0..LIMIT exactly, so they all reject the
same configs."""


class ConfigError(Exception):
    """A bad config. The first line is the same in every port's demo; a second
    line, if any, is Python's own reason."""


def _number(text: str) -> float:
    # Every number is a float, as in JavaScript, so 3.0 is 3 in every port;
    # one too large for a float is refused, as Rust's parser refuses it.
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number out of range: {text}")
    return value


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


@dataclass(frozen=True)
class Config:
    batch_size: int
    max_passes: int

    @staticmethod
    def load(path: str) -> "Config":
        try:
            with open(path, "rb") as file:
                data = file.read()
        except OSError as error:
            raise ConfigError(f"{path}: cannot read the file\n  {error}") from error
        try:
            value = json.loads(data.decode(), parse_int=_number, parse_float=_number, parse_constant=_constant)
        except (ValueError, RecursionError) as error:
            raise ConfigError(f"{path}: not valid JSON\n  {error}") from error
        try:
            return Config.from_json(value)
        except ConfigError as error:
            raise ConfigError(f"{path}: {error}") from None

    @staticmethod
    def from_json(value: object) -> "Config":
        """Checks a parsed config: unknown keys first, then each key."""
        if not isinstance(value, dict):
            raise ConfigError(f"want a JSON object with `batch_size` and `max_passes`, not {kind(value)}")
        # Sorted, because not every port's parser keeps the file's order.
        unknown = sorted(set(value) - {"batch_size", "max_passes"})
        if unknown:
            names = ", ".join(json.dumps(key, ensure_ascii=False) for key in unknown)
            plural = "" if len(unknown) == 1 else "s"
            raise ConfigError(f"unknown key{plural} {names}; the keys are `batch_size` and `max_passes`")
        return Config(integer(value, "batch_size", 1), integer(value, "max_passes", 0))


def integer(fields: dict[str, object], key: str, lowest: int) -> int:
    """The value of ``key``, an integer from ``lowest`` to ``LIMIT``."""
    if key not in fields:
        raise ConfigError(f"`{key}` is missing")
    value = fields[key]
    rule = f"`{key}` must be an integer from {lowest} to {LIMIT}"
    if not isinstance(value, float):
        raise ConfigError(f"{rule}, not {kind(value)}")
    if not value.is_integer():
        raise ConfigError(f"{rule}, not a fraction")
    if not lowest <= value <= LIMIT:
        raise ConfigError(rule)
    return int(value)


def kind(value: object) -> str:
    """A JSON value's type, as the error messages name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


@dataclass
class NarratingBroker:
    """Wraps the real broker and remembers how each attempt went, so the
    transcript can tell the pass's story in batch order. It watches the
    delivery service too: when its count of dropped repeats rises during a
    publish, that publish was a redelivery the service recognised."""

    inner: Broker
    consumer: IdempotentConsumer
    attempts: int = 0
    log: dict[int, str] = field(default_factory=dict)

    def publish(self, message: Message) -> None:
        self.attempts += 1
        story = f"attempt {self.attempts}: {describe(message)} -> "
        dropped = self.consumer.duplicates
        try:
            self.inner.publish(message)
            story += "published"
        except PublishFailed as failed:
            story += f"{failed}; {message.aggregate} blocked for this pass"
            raise
        finally:
            if self.consumer.duplicates > dropped:
                story += f"\n    delivery service: #{message.id} already processed, repeat dropped"
            self.log[message.id] = story


def describe(message: Message) -> str:
    return f"#{message.id} {message.aggregate} {message.type}"


def id_list(ids: list[int]) -> str:
    return "[" + ", ".join(str(i) for i in ids) + "]"


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).parent.parent / "demo.json")
    try:
        config = Config.load(path)
    except ConfigError as error:
        print(f"demo: {error}", file=sys.stderr)
        sys.exit(2)

    table = OutboxTable()
    for message in (
        Message(1, "order-1", "OrderPlaced"),
        Message(2, "order-2", "OrderPlaced"),
        Message(3, "order-1", "OrderPaid"),
        Message(4, "order-2", "OrderPaid"),
    ):
        table.add(message)
    consumer = IdempotentConsumer()
    broker = NarratingBroker(FlakyBroker(consumer, {1: Failure.LOST_ACK}), consumer)
    relay = OutboxRelay(table, broker, config.batch_size)

    print(f"Outbox relay demo: batch size {config.batch_size}, at most {config.max_passes} passes.")
    print(f"Outbox: {', '.join(describe(m) for m in table.unsent(sys.maxsize))}.")
    print("The broker will lose the ack of attempt 1.")

    passes = 0
    while table.has_unsent() and passes < config.max_passes:
        passes += 1
        batch = table.unsent(config.batch_size)
        print(f"\nPass {passes}: batch {id_list([m.id for m in batch])}")
        sent = relay.run_once()
        for message in batch:
            line = broker.log.pop(message.id, None)
            if line is None:
                line = f"skipped {describe(message)}: {message.aggregate} is blocked"
            print(f"  {line}")
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
