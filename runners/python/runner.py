"""Drives the Python port over the parity harness's protocol: one case per
stdin line in, one result per stdout line out, flushed at once.

Started as ``python3 -S -E runners/python/runner.py``: it needs nothing from
site-packages, and skipping them halves the start-up time.
"""

import json
import sys
import time
from typing import Any

from outbox import Failure, FlakyBroker, IdempotentConsumer, Message, OutboxRelay, OutboxTable

FAILURES = {"down": Failure.DOWN, "lost_ack": Failure.LOST_ACK}


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    table = OutboxTable()
    for m in case["messages"]:
        table.add(Message(m["id"], m["aggregate"], m["type"]))
    failures = {int(attempt): FAILURES[kind] for attempt, kind in case["failures"].items()}
    consumer = IdempotentConsumer()
    broker = FlakyBroker(consumer, failures)
    batch_size = case["batch_size"]
    relay = OutboxRelay(table, broker, batch_size)
    sent = []
    for _ in range(case["passes"]):
        if case.get("restart_each_pass", False):
            relay = OutboxRelay(table, broker, batch_size)
        sent.append(relay.run_once())
    return {"name": case["name"], "sent": sent, "journal": consumer.journal, "duplicates": consumer.duplicates}


def run_bench(name: str, bench: dict[str, int]) -> dict[str, Any]:
    """Builds a table (``messages`` rows over ``aggregates`` orders, every
    ``lost_ack_every``-th attempt losing its ack) and drains it, timing only
    the relay's passes."""
    table = OutboxTable()
    aggregates = bench["aggregates"]
    for id_ in range(1, bench["messages"] + 1):
        table.add(Message(id_, f"order-{(id_ - 1) % aggregates + 1}", "Event"))
    every = max(bench["lost_ack_every"], 2)
    failures = {k * every: Failure.LOST_ACK for k in range(1, (2 * bench["messages"] + 2) // every + 1)}
    consumer = IdempotentConsumer()
    relay = OutboxRelay(table, FlakyBroker(consumer, failures), bench["batch_size"])
    sent = passes = 0
    started = time.perf_counter_ns()
    while ids := relay.run_once():
        sent += len(ids)
        passes += 1
    elapsed = time.perf_counter_ns() - started
    return {"name": name, "elapsed_ns": elapsed, "sent": sent, "duplicates": consumer.duplicates, "passes": passes}


def answer(line: str) -> dict[str, Any]:
    name = None
    try:
        case = json.loads(line)
        name = case["name"]
        if "bench" in case:
            return run_bench(name, case["bench"])
        return run_case(case)
    except Exception as error:  # the protocol's error answer; the runner goes on
        return {"name": name, "error": f"{type(error).__name__}: {error}"}


def main() -> None:
    for line in sys.stdin:
        sys.stdout.write(json.dumps(answer(line), separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
