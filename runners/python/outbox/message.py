from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Message:
    """One outbox row: an event of one aggregate (an order).

    The teaching scope drops payload and headers; id, aggregate and event
    type are all the relay and the consumer need to show ordering and
    dedupe. The outbox assigns ``id``, increasing in insertion order; it is
    the only thing that tells a redelivery from an honest second event.
    """

    id: int
    aggregate: str
    type: str
