"""Rendered lines checked against the project's own grammars (the simulator's format check).

Every line the renderers write carries an ``Expect``: the event type (or ignored family) the
grammars must recognise it as, and field values they must extract. ``check_rendered`` parses
each collected line with the Python executor (``assemble_records`` + ``parse_record`` with the
release as hint) and reports every line that is quarantined, recognised as something else, or
read with other field values.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass

from kafkactl_core.grammars import (
    IgnoredRecord,
    ParsedEvent,
    Quarantined,
    assemble_records,
    parse_record,
    resolve_layout,
)
from kafkactl_core.versions import KafkaRelease
from kafkactl_lab.simulate.output import Rendered


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A rendered line the grammars do not read as intended.

    Attributes:
        line: the line (record) as written.
        expected: what it was meant to be (``kind`` and fields).
        got: what the grammars made of it.
    """

    line: Rendered
    expected: str
    got: str


def _same(expected: object, got: object) -> bool:
    if isinstance(expected, float) and isinstance(got, float):
        return abs(expected - got) <= 1e-12 * max(1.0, abs(expected))
    if isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple)):
        return tuple(expected) == tuple(got)
    return expected == got


def check_rendered(lines: Iterable[Rendered], release: str) -> list[Mismatch]:
    """Parse every rendered line and compare it with its expectation.

    Args:
        lines: lines collected by an ``Emitter`` (``collect=True``).
        release: the simulated release (the parser's version hint), e.g. ``2.8.2``.

    Returns:
        The lines that did not parse as intended (empty when all did).
    """
    layout = resolve_layout("kafka")
    hint = KafkaRelease.parse(release)
    problems: list[Mismatch] = []
    for line in lines:
        expect = line.expect
        wanted = "nothing" if expect is None else f"{expect.kind} {dict(expect.fields)}"
        records = list(assemble_records(io.BytesIO(line.text.encode("utf-8")), layout))
        if len(records) != 1:
            problems.append(Mismatch(line, wanted, f"{len(records)} records"))
            continue
        outcome = parse_record(records[0], hint)
        if isinstance(outcome, Quarantined):
            got = f"quarantined: {outcome.reason} {outcome.detail or ''}".strip()
            problems.append(Mismatch(line, wanted, got))
            continue
        if isinstance(outcome, IgnoredRecord):
            if expect is None or expect.fields or outcome.family != expect.kind:
                problems.append(Mismatch(line, wanted, f"ignored: {outcome.family}"))
            continue
        assert isinstance(outcome, ParsedEvent)
        event = outcome.event
        kind = event.event_type.value
        if expect is None or kind != expect.kind:
            problems.append(Mismatch(line, wanted, f"{kind} ({outcome.grammar})"))
            continue
        for name, value in expect.fields:
            got_value = getattr(event, name)
            if not _same(value, got_value):
                problems.append(
                    Mismatch(line, wanted, f"{kind} ({outcome.grammar}): {name}={got_value!r}")
                )
                break
    return problems
