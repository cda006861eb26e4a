from outbox.message import Message


class IdempotentConsumer:
    """The delivery service: turns at-least-once delivery into exactly-once
    effect by remembering which message ids it has processed.

    It cannot tell a repeat by content (two identical "paid" events can both
    be honest); only the outbox-assigned id tells.
    """

    def __init__(self) -> None:
        """A consumer that has processed nothing."""
        self._processed: set[int] = set()
        self._journal: list[str] = []
        self._duplicates = 0

    def handle(self, message: Message) -> None:
        """Does the work once per message id; a redelivery is only counted."""
        if message.id in self._processed:
            self._duplicates += 1
            return
        self._processed.add(message.id)
        self._journal.append(f"{message.aggregate} {message.type}")

    @property
    def journal(self) -> list[str]:
        """The work done, in order: ``"<aggregate> <type>"`` per message."""
        return list(self._journal)

    @property
    def duplicates(self) -> int:
        """How many redeliveries were dropped."""
        return self._duplicates
