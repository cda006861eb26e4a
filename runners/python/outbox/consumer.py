from outbox.message import Message


class IdempotentConsumer:
    """The delivery service: does the work once per message id.

    It cannot tell a repeat by content (two identical "paid" events can both
    be honest); only the outbox-assigned id tells.
    """

    def __init__(self) -> None:
        self._processed: set[int] = set()
        self.journal: list[str] = []
        self.duplicates = 0

    def handle(self, message: Message) -> None:
        if message.id in self._processed:
            self.duplicates += 1
            return
        self._processed.add(message.id)
        self.journal.append(f"{message.aggregate} {message.type}")
