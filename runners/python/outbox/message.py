from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Message:
    """One outbox row: an event of one aggregate (an order).

    The outbox assigns ``id``, increasing in insertion order; it is the only
    thing that tells a redelivery from an honest second event.
    """

    id: int
    aggregate: str
    type: str
