from outbox.message import Message


class IdempotentConsumer:
    """The delivery service: turns at-least-once delivery into exactly-once
    effect by remembering which message ids it has processed.

    It cannot tell a repeat by content (two identical "paid" events can both
    be honest); only the outbox-assigned id tells.
    """

    def __init__(self, retention: int | None = None) -> None:
        """A consumer that forgets each id ``retention`` passes after the pass
        it applied it in (``None``: never), as a real inbox's cleanup does."""
        # Each processed id and the pass it was applied in, oldest first: a
        # dict keeps insertion order, so tick forgets from its front.
        self._processed: dict[int, int] = {}
        self._retention = retention
        # The pass number: how many times tick was called.
        self._clock = 0
        self._journal: list[str] = []
        self._duplicates = 0

    def tick(self) -> None:
        """Advances the clock by one pass and forgets every id whose window
        ended: one applied at pass t is forgotten at pass t + retention.

        A repeat that comes later is applied again: the retention must
        outlast the longest redelivery.
        """
        self._clock += 1
        if self._retention is None:
            return
        while self._processed:
            oldest, applied_at = next(iter(self._processed.items()))
            if self._clock - applied_at < self._retention:
                break
            del self._processed[oldest]

    def handle(self, message: Message) -> None:
        """Does the work once per message id; a redelivery is only counted.

        With a retention, once per id within its window: the id is
        remembered from the pass it is applied in, and a dropped repeat does
        not extend the window.
        """
        if message.id in self._processed:
            self._duplicates += 1
            return
        self._processed[message.id] = self._clock
        self._journal.append(f"{message.aggregate} {message.type}")

    @property
    def journal(self) -> list[str]:
        """The work done, in order: ``"<aggregate> <type>"`` per message."""
        return list(self._journal)

    @property
    def duplicates(self) -> int:
        """How many redeliveries were dropped."""
        return self._duplicates
