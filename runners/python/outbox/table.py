from collections import OrderedDict
from itertools import islice

from outbox.message import Message


class OutOfOrder(ValueError):
    """An id that is not greater than the last one added: the outbox assigns
    ids in increasing order, so such a row is a bug of the writer."""

    def __init__(self, message_id: int, last_id: int) -> None:
        super().__init__(f"message id {message_id} is not greater than the last id {last_id}")
        self.id = message_id
        self.last_id = last_id


class OutboxTable:
    """The rows waiting for the relay, in insertion order.

    An ``OrderedDict`` unlinks a sent row in O(1), so ``unsent`` walks only
    the rows it returns. A plain ``dict`` keeps a hole for every deleted row
    and would walk them all on every pass while a large backlog drains.
    """

    def __init__(self) -> None:
        self._unsent: OrderedDict[int, Message] = OrderedDict()
        # Remembered apart from the rows: the last row may be sent already.
        self._last_id: int | None = None

    def add(self, message: Message) -> None:
        """Appends a row; raises ``OutOfOrder`` if its id does not increase."""
        if self._last_id is not None and message.id <= self._last_id:
            raise OutOfOrder(message.id, self._last_id)
        self._last_id = message.id
        self._unsent[message.id] = message

    def unsent(self, limit: int) -> list[Message]:
        """The oldest unsent rows, at most ``limit``: a copy, because the
        relay marks rows sent while it walks the batch."""
        return list(islice(self._unsent.values(), limit))

    def mark_sent(self, message_id: int) -> None:
        self._unsent.pop(message_id, None)

    def has_unsent(self) -> bool:
        return bool(self._unsent)
