"""The relay as a process: the composition root reads the batch size and the
pass limit from the shared config, builds the table, broker, consumer and
relay, and loops ``run_once`` while rows are unsent. It prints the same
transcript as every other language's demo."""

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from outbox import Broker, Failure, FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable, PublishFailed


@dataclass(frozen=True)
class Config:
    batch_size: int
    max_passes: int

    @staticmethod
    def load(path: Path) -> "Config":
        data = json.loads(path.read_text(encoding="utf-8"))
        if set(data) != {"batch_size", "max_passes"}:
            raise ValueError(f"{path}: want exactly batch_size and max_passes, got {sorted(data)}")
        config = Config(data["batch_size"], data["max_passes"])
        if not isinstance(config.batch_size, int) or config.batch_size < 1:
            raise ValueError(f"{path}: batch_size must be an integer of at least 1")
        if not isinstance(config.max_passes, int) or config.max_passes < 0:
            raise ValueError(f"{path}: max_passes must be an integer of at least 0")
        return config


@dataclass
class NarratingBroker:
    """Wraps the real broker and remembers how each attempt went, so the
    transcript can tell the pass's story in batch order."""

    inner: Broker
    attempts: int = 0
    log: dict[int, str] = field(default_factory=dict)

    def publish(self, message: Message) -> None:
        self.attempts += 1
        try:
            self.inner.publish(message)
        except PublishFailed as failed:
            self.log[message.id] = (
                f"attempt {self.attempts}: {describe(message)} -> {failed}; {message.aggregate} blocked for this pass"
            )
            raise
        self.log[message.id] = f"attempt {self.attempts}: {describe(message)} -> published"


def describe(message: Message) -> str:
    return f"#{message.id} {message.aggregate} {message.type}"


def id_list(ids: list[int]) -> str:
    return "[" + ", ".join(str(i) for i in ids) + "]"


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent.parent / "demo.json"
    try:
        config = Config.load(path)
    except (OSError, ValueError) as error:
        sys.exit(f"demo: {error}")

    table = OutboxTable()
    for message in (
        Message(1, "order-1", "OrderPlaced"),
        Message(2, "order-2", "OrderPlaced"),
        Message(3, "order-1", "OrderPaid"),
        Message(4, "order-2", "OrderPaid"),
    ):
        table.add(message)
    consumer = IdempotentConsumer()
    broker = NarratingBroker(FlakyBroker(consumer, {1: Failure.LOST_ACK}))
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
