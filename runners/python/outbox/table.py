from collections import OrderedDict
from itertools import islice

from outbox.message import Message


class OutboxTable:
    """The rows waiting for the relay, in insertion order.

    An ``OrderedDict`` unlinks a sent row in O(1), so ``unsent`` walks only
    the rows it returns. A plain ``dict`` keeps a hole for every deleted row
    and would walk them all on every pass while a large backlog drains.
    """

    def __init__(self) -> None:
        self._unsent: OrderedDict[int, Message] = OrderedDict()

    def add(self, message: Message) -> None:
        self._unsent[message.id] = message

    def unsent(self, limit: int) -> list[Message]:
        """The oldest unsent rows, at most ``limit``: a copy, because the
        relay marks rows sent while it walks the batch."""
        return list(islice(self._unsent.values(), limit))

    def mark_sent(self, message_id: int) -> None:
        self._unsent.pop(message_id, None)

    def has_unsent(self) -> bool:
        return bool(self._unsent)
