"""The operations of a run: bootstrap, the seeded random mix, and scripts, as lazy streams.

``bootstrap_operations`` starts the brokers one second apart. ``random_operations`` then creates
the initial topics and draws operations as a Poisson process whose rates (``MixRates``, per
hour) are scaled by the cluster's size where it matters (ISR shrinks per 1000 partitions); each
operation's targets are drawn when it runs. ``script_operations`` turns a script's steps into
operations. Every stream is generated lazily, in time order, from its own seeded generator.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterable, Iterator

from kafkactl_lab.simulate import ops as o
from kafkactl_lab.simulate.settings import Script, SimulationSettings, step_to_op

UNCLEAN = "unclean.leader.election.enable"
TOPIC_NAMES = (
    "orders",
    "payments",
    "clickstream",
    "inventory",
    "audit",
    "sessions",
    "shipments",
    "ledger",
    "metrics",
    "notifications",
)


def topic_name(index: int) -> str:
    """The ``index``-th initial topic's name (``orders``, ..., ``orders-1``, ...)."""
    base = TOPIC_NAMES[index % len(TOPIC_NAMES)]
    round_ = index // len(TOPIC_NAMES)
    return base if round_ == 0 else f"{base}-{round_}"


def bootstrap_operations(settings: SimulationSettings) -> list[o.Op]:
    """Every broker starts, one second apart, from the start time."""
    start = settings.start_us
    return [o.StartBroker(start + i * 1_000_000, b) for i, b in enumerate(settings.broker_ids)]


def random_operations(settings: SimulationSettings) -> Iterator[o.Op]:
    """The seeded random mix (after the bootstrap): initial topics, then random operations.

    Args:
        settings: the run's settings.

    Yields:
        Operations in time order.
    """
    rng = random.Random(f"mix-{settings.seed}")
    t = settings.start_us + (settings.brokers + 4) * 1_000_000
    unclean_topics = round(settings.topics * settings.unclean_topic_fraction)
    unclean_indices = set(rng.sample(range(settings.topics), unclean_topics))
    for index in range(settings.topics):
        config = {UNCLEAN: "true"} if index in unclean_indices else {}
        rf = min(settings.replication_factor, settings.brokers)
        yield o.CreateTopic(t, topic_name(index), settings.partitions_per_topic, rf, None, config)
        t += 2_000_000
    rates = settings.rates
    partitions = settings.topics * settings.partitions_per_topic
    kinds: list[tuple[str, float]] = [
        ("crash_broker", rates.crash_broker),
        ("stop_broker", rates.stop_broker),
        ("rolling_restart", rates.rolling_restart),
        ("shrink_isr", rates.shrink_isr_per_1000_partitions * partitions / 1000),
        ("expire_controller_session", rates.expire_controller_session),
        ("reassign", rates.reassign),
        ("create_topic", rates.create_topic),
        ("delete_topic", rates.delete_topic),
        ("isolate_leader", rates.isolate_leader if unclean_topics else 0.0),
    ]
    if settings.brokers < 2:
        kinds = [(k, r) for k, r in kinds if k in ("shrink_isr", "create_topic", "delete_topic")]
    kinds = [(k, r) for k, r in kinds if r > 0]
    total = sum(r for _, r in kinds)
    if total <= 0:
        return
    names = [k for k, _ in kinds]
    weights = [r for _, r in kinds]
    created = 0
    end = settings.end_us
    while True:
        t += int(rng.expovariate(total) * 3_600_000_000) + 1
        if t > end:
            return
        kind = rng.choices(names, weights)[0]
        if kind == "crash_broker":
            yield o.CrashBroker(t, None, rng.uniform(60, 900))
        elif kind == "stop_broker":
            yield o.StopBroker(t, None, rng.uniform(30, 300))
        elif kind == "rolling_restart":
            yield o.RollingRestart(t, None, rng.uniform(60, 240), rng.uniform(20, 90))
        elif kind == "shrink_isr":
            yield o.ShrinkIsr(t, None, None, None, rng.uniform(5, 180))
        elif kind == "expire_controller_session":
            yield o.ExpireControllerSession(t, None, rng.uniform(2, 12))
        elif kind == "reassign":
            yield o.Reassign(t, None, None, None, rng.uniform(20, 600))
        elif kind == "create_topic":
            created += 1
            rf = min(settings.replication_factor, settings.brokers)
            name = f"tmp-{topic_name(rng.randrange(len(TOPIC_NAMES)))}-{created}"
            count = max(1, settings.partitions_per_topic // 2)
            yield o.CreateTopic(t, name, count, rf, None, {}, deletable=True)
        elif kind == "delete_topic":
            yield o.DeleteTopic(t)
        else:
            yield o.IsolateLeader(t, None, None, rng.uniform(5, 60), rng.uniform(120, 900))


def script_operations(script: Script, settings: SimulationSettings) -> list[o.Op]:
    """A script's steps as operations, sorted by time (stable for equal times)."""
    start = settings.start_us
    ops = [step_to_op(step, start) for step in script.steps]
    return sorted(ops, key=lambda op: op.at_us)


def merge(*streams: Iterable[o.Op]) -> Iterator[o.Op]:
    """Merge time-ordered streams (earlier streams first among equal times)."""
    return heapq.merge(*streams, key=lambda op: op.at_us)
