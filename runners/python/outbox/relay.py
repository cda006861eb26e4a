from outbox.broker import Broker, PublishFailed
from outbox.table import OutboxTable


class OutboxRelay:
    """Moves unsent rows from the outbox table to the broker, one pass at a time.

    It keeps nothing between passes (all state is in the table), so a new
    relay can be built at any pass boundary and carries on where the last one
    stopped.
    """

    def __init__(self, table: OutboxTable, broker: Broker, batch_size: int) -> None:
        """A relay taking at most ``batch_size`` rows per pass."""
        self._table = table
        self._broker = broker
        self._batch_size = batch_size

    def run_once(self) -> list[int]:
        """One pass over the oldest unsent rows, returning the ids sent, in order.

        A failed publish leaves its row unsent (the next pass retries it) and
        blocks its aggregate for the rest of the pass, so a later event of the
        same order cannot overtake it. Any other error propagates.
        """
        blocked: set[str] = set()
        sent: list[int] = []
        for message in self._table.unsent(self._batch_size):
            if message.aggregate in blocked:
                continue
            try:
                self._broker.publish(message)
            except PublishFailed:
                blocked.add(message.aggregate)
                continue
            self._table.mark_sent(message.id)
            sent.append(message.id)
        return sent
