from outbox.message import Message


class OutboxTable:
    """The rows waiting for the relay: the unsent messages in insertion order."""

    def __init__(self) -> None:
        """An empty table."""
        # A dict keyed by id, which keeps insertion order.
        self._unsent: dict[int, Message] = {}
        # Kept apart from the rows: the last row may be sent already.
        self._last_id: int | None = None

    def add(self, message: Message) -> None:
        """Appends a row; refuses an id that does not increase (a writer's
        bug) with ``OutOfOrder``."""
        if self._last_id is not None and message.id <= self._last_id:
            raise OutOfOrder(message.id, self._last_id)
        self._last_id = message.id
        self._unsent[message.id] = message

    def unsent(self, limit: int) -> list[Message]:
        """The oldest unsent rows in insertion order, at most ``limit``: a
        copy, because the relay marks rows sent while it walks the batch."""
        return list(self._unsent.values())[:limit]

    def mark_sent(self, message_id: int) -> None:
        """Takes the row out of later ``unsent`` selections."""
        self._unsent.pop(message_id, None)

    def has_unsent(self) -> bool:
        """Whether the relay still has work: the demo's loop condition."""
        return bool(self._unsent)


class OutOfOrder(ValueError):
    """``add`` was given an id not greater than the last one: the table's
    order would no longer be insertion order."""

    def __init__(self, message_id: int, last_id: int) -> None:
        super().__init__(f"message id {message_id} is not greater than the last id {last_id}")
        self.id = message_id
        self.last_id = last_id
