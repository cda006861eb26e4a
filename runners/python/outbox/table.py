from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum, auto

from outbox.message import Message


@dataclass(frozen=True, slots=True)
class Partition:
    """The orders one relay of several publishes: those whose hash, modulo
    the number of relays, is its index, so two relays never take rows of one
    order and each order keeps its order.

    The default, 0 of 1, is the whole table: one relay owns every order.
    """

    index: int = 0
    """This relay's index, below ``count``."""
    count: int = 1
    """How many relays share the table, at least 1."""

    @staticmethod
    def fnv1a32(text: str) -> int:
        """FNV-1a, 32 bits, over the UTF-8 bytes of ``text``: the same number
        in every language, which a language's built-in string hash is not."""
        hash_ = 2166136261
        # A str is code points: encode() gives its UTF-8 bytes. Python's
        # integers never overflow, so the mask keeps the low 32 bits.
        for byte in text.encode():
            hash_ = ((hash_ ^ byte) * 16777619) & 0xFFFFFFFF
        return hash_

    def owns(self, aggregate: str) -> bool:
        """Whether this relay publishes the order ``aggregate``: its hash,
        read as an unsigned number, modulo ``count`` is ``index``."""
        return self.fnv1a32(aggregate) % self.count == self.index


class Fetch(Enum):
    """Which unsent rows a fetch takes, before it takes at most ``limit`` of
    them."""

    ROWS = auto()
    """Every row: a batch full of one blocked order sends nothing for the
    others."""
    HEADS = auto()
    """The oldest row of each order only: a blocked order costs one slot,
    and an order with k rows needs k runs."""


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """A row the relay gave up on: it left the unsent rows after
    ``attempts`` failed publish calls, for a person to look at."""

    message: Message
    """The row as it was written."""
    attempts: int
    """Its failed publish calls, the last included."""


class OutboxTable:
    """The rows waiting for the relay: the unsent messages in insertion order."""

    def __init__(self) -> None:
        """An empty table."""
        # A dict keyed by id, which keeps insertion order.
        self._unsent: dict[int, Message] = {}
        # Kept apart from the rows: the last row may be sent already.
        self._last_id: int | None = None
        # Failed publish calls per row that ever failed; kept after the row
        # is sent, as a count never resets.
        self._attempts: dict[int, int] = {}
        self._dead_letters: list[DeadLetter] = []
        # Orders whose rows no fetch takes until they are unparked.
        self._parked: set[str] = set()

    def add(self, message: Message) -> None:
        """Appends a row; refuses an id that does not increase (a writer's
        bug) with ``OutOfOrder``."""
        if self._last_id is not None and message.id <= self._last_id:
            raise OutOfOrder(message.id, self._last_id)
        self._last_id = message.id
        self._unsent[message.id] = message

    def unsent(
        self, limit: int, partition: Partition = Partition(), fetch: Fetch = Fetch.ROWS
    ) -> list[Message]:
        """The oldest unsent rows in insertion order, at most ``limit``: a
        copy, because the relay marks rows sent while it walks the batch.

        Only rows of the orders the ``partition`` owns that are not parked,
        and with ``Fetch.HEADS`` only the oldest such row of each order:
        these filters come before the limit, so a row they leave out takes
        no slot.
        """
        rows: Iterable[Message] = (
            m
            for m in self._unsent.values()
            if partition.owns(m.aggregate) and m.aggregate not in self._parked
        )
        if fetch is Fetch.HEADS:
            # Keyed by order: the first row of each stays, in its place.
            heads: dict[str, Message] = {}
            for message in rows:
                heads.setdefault(message.aggregate, message)
            rows = heads.values()
        return list(rows)[:limit]

    def mark_sent(self, id: int) -> None:
        """Takes the row out of later ``unsent`` selections."""
        self._unsent.pop(id, None)

    def mark_failed(self, id: int) -> int:
        """Counts one failed publish call of the row and returns its count so
        far: the table keeps it, since a relay keeps nothing between runs.

        A lost ack counts, as the relay cannot tell it from a broker that is
        down; a count never resets.
        """
        self._attempts[id] = self._attempts.get(id, 0) + 1
        return self._attempts[id]

    def dead_letter(self, id: int) -> DeadLetter:
        """Moves the row from the unsent rows to the dead letters, with its
        attempts, and returns it: no fetch takes it again.

        Raises ``KeyError`` when ``id`` is not an unsent row: the relay
        dead-letters only a row it has just fetched.
        """
        letter = DeadLetter(self._unsent.pop(id), self._attempts.pop(id, 0))
        self._dead_letters.append(letter)
        return letter

    def park(self, aggregate: str) -> None:
        """Holds every row of the order back from ``unsent`` (they take no
        slot) until ``unpark``: a dead letter then cannot be overtaken by its
        order's later events."""
        self._parked.add(aggregate)

    def unpark(self, aggregate: str) -> None:
        """Lets ``unsent`` take the order's rows again, from its oldest; an
        order that is not parked is left as it is."""
        self._parked.discard(aggregate)

    @property
    def dead_letters(self) -> list[DeadLetter]:
        """The rows given up on, in the order they were: what a person reads."""
        return list(self._dead_letters)

    def has_unsent(self) -> bool:
        """Whether the relay still has work: the demo's loop condition.

        A parked order's rows count (they are still unsent); dead letters do
        not.
        """
        return bool(self._unsent)


class OutOfOrder(ValueError):
    """``add`` was given an id not greater than the last one: the table's
    order would no longer be insertion order."""

    def __init__(self, message_id: int, last_id: int) -> None:
        super().__init__(f"message id {message_id} is not greater than the last id {last_id}")
        self.id = message_id
        self.last_id = last_id
