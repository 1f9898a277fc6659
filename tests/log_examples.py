"""Lines of the reference examples, as the ingest tests build their input files from them."""

from __future__ import annotations

from pathlib import Path

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


def state_change_logs(logs: Path, strimzi_lines: int) -> Path:
    """``logs`` made, holding ``state-change.log``: the first ``strimzi_lines`` of 2.4's example
    in Strimzi's layout, and ``state-change.log.1``: 1.0's example, then 30 lines of 3.9's."""
    logs.mkdir()
    strimzi = as_strimzi(example_lines("state-change.log.2.4")[:strimzi_lines])
    (logs / "state-change.log").write_text("".join(strimzi))
    mixed = example_lines("state-change.log.1.0") + example_lines("state-change.log.3.9")[:30]
    (logs / "state-change.log.1").write_text("".join(mixed))
    return logs
