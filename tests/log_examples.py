"""Lines of the reference examples, as the ingest tests build their input files from them."""

from __future__ import annotations

from tests.conftest import reference_dir

EXAMPLES = reference_dir() / "examples"


def example_lines(name: str) -> list[str]:
    """The lines of a reference example (with their newlines), without its '#' header."""
    lines = (EXAMPLES / name).read_text().splitlines(keepends=True)
    return [line for line in lines if not line.startswith("#")]


def as_strimzi(lines: list[str]) -> list[str]:
    """Kafka-layout lines (``[%d] %p %m (%c)%n``) in Strimzi's ``%d %p %m (%c) [%t]%n``."""
    out = []
    for line in lines:
        head, _, rest = line.partition("] ")
        level, _, message = rest.partition(" ")
        body, _, logger = message.rstrip("\n").rpartition(" (")
        out.append(f"{head[1:]} {level} {body} ({logger} [controller-event-thread]\n")
    return out
