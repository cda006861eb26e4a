from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, auto

from outbox.broker import Broker, PublishFailed
from outbox.table import DeadLetter, Fetch, OutboxTable, Partition


class OnExhausted(Enum):
    """What becomes of a dead letter's order: the choice between liveness and
    order that every capped relay makes."""

    RELEASE = auto()
    """The order goes on with its next row on the next run: the consumer may
    then see ``OrderPaid`` without ``OrderPlaced``."""
    PARK = auto()
    """No row of the order is fetched until a person unparks it, so none
    overtakes the dead letter."""


@dataclass(frozen=True, slots=True)
class AttemptCap:
    """The attempt limit: without it, a message that always fails blocks its
    order forever."""

    max_attempts: int
    """Failed publish calls after which a row becomes a dead letter, at least
    1."""
    on_exhausted: OnExhausted = OnExhausted.RELEASE
    """What becomes of the row's order then."""


class OutboxRelay:
    """Moves unsent rows from the outbox table to the broker, one pass at a time.

    It keeps nothing between passes (all state is in the table), so a new
    relay can be built at any pass boundary and carries on where the last one
    stopped.
    """

    def __init__(
        self,
        table: OutboxTable,
        broker: Broker,
        batch_size: int,
        *,
        partition: Partition = Partition(),
        fetch: Fetch = Fetch.ROWS,
        cap: AttemptCap | None = None,
        alert: Callable[[DeadLetter], None] | None = None,
    ) -> None:
        """A relay taking at most ``batch_size`` rows per pass.

        What it is told beyond its table, broker and batch size comes as
        keyword arguments; the defaults are the whole table, row by row, no
        cap. ``partition``: the orders this relay publishes, when several
        share the table. ``fetch``: rows, or only the oldest row of each
        order. ``cap``: ``None``, a failing row is retried on every run,
        forever. ``alert``: told each dead letter as the relay makes it, so
        that a person hears of it: the relay raises the alert, the caller
        decides where it goes.
        """
        self._table = table
        self._broker = broker
        self._batch_size = batch_size
        self._partition = partition
        self._fetch = fetch
        self._cap = cap
        self._alert = alert

    def run_once(self) -> list[int]:
        """One pass over the oldest unsent rows, returning the ids sent, in order.

        A failed publish leaves its row unsent (the next pass retries it) and
        blocks its aggregate for the rest of the pass, so a later event of the
        same order cannot overtake it. The table counts the failure; when the
        count reaches the cap, the row becomes a dead letter, its order is
        parked if the cap says so, and the alert is raised. Any other error
        propagates.
        """
        blocked: set[str] = set()
        sent: list[int] = []
        for message in self._table.unsent(self._batch_size, self._partition, self._fetch):
            if message.aggregate in blocked:
                continue
            try:
                self._broker.publish(message)
            except PublishFailed:
                blocked.add(message.aggregate)
                attempts = self._table.mark_failed(message.id)
                if self._cap is not None and attempts >= self._cap.max_attempts:
                    letter = self._table.dead_letter(message.id)
                    if self._cap.on_exhausted is OnExhausted.PARK:
                        self._table.park(message.aggregate)
                    if self._alert is not None:
                        self._alert(letter)
                continue
            self._table.mark_sent(message.id)
            sent.append(message.id)
        return sent
