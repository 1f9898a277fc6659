"""Log grammars as data, log4j layouts, record assembly, the Python executor and version inference.

One definition, two executors (ARCHITECTURE.md): every message family and version variant is a
``GrammarEntry`` (literal pre-filter, portable regex, typed fields, release range) listed by
``grammar_entries()``. ``parse_record`` runs them in pure Python (the specification); the
ingest job's Arrow executor (``jobs.logparse``) runs them vectorised in Spark's tasks.

Typical use::

    layout = detect_layout(first_lines) or resolve_layout("kafka")
    for record in assemble_records(binary_file, layout):
        outcome = parse_record(record)          # ParsedEvent | IgnoredRecord | Quarantined

One record yields at most one event. A line that names many partitions keeps them in the event
(``partitions``, ``isr``, ... lists, or the counts of the 2.6+ request summaries, which do not name
partitions) rather than being expanded into one event per partition; ``Map(...)`` dumps such as
``Topics not in preferred replica for broker 2 Map(...)`` keep their interior in ``detail``.

Modules: ``fields`` (types, conversion rules, ``EVENT_FIELDS``), ``events`` (vocabulary),
``entry`` (the entry type), ``fragments`` (regex pieces), ``families`` (the entries), ``registry``
(ordering and lookups), ``lint`` (portability lint), ``timestamps`` and ``layout`` (PatternLayout),
``records`` (assembly), ``outcome`` and ``executor`` (classification), ``inference`` (versions),
``config_lines`` (the keys of a configuration a broker printed: ``silver.broker_configs``).
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, Mode, VersionRange
from kafkactl_core.grammars.events import (
    EVENT_TYPE_MEANINGS,
    IGNORED_FAMILY_MEANINGS,
    EventType,
    IgnoredFamily,
)
from kafkactl_core.grammars.executor import match_message, parse_record, parse_records
from kafkactl_core.grammars.fields import EVENT_FIELDS, FieldType, convert_field
from kafkactl_core.grammars.inference import VersionEvidence, VersionInference, infer_version
from kafkactl_core.grammars.layout import (
    KAFKA_LAYOUT,
    LAYOUT_PRESETS,
    STRIMZI_LAYOUT,
    CompiledLayout,
    LayoutError,
    compile_layout,
    detect_layout,
    resolve_layout,
)
from kafkactl_core.grammars.lint import lint_pattern
from kafkactl_core.grammars.outcome import (
    ControllerEvent,
    IgnoredRecord,
    Outcome,
    ParsedEvent,
    Quarantined,
)
from kafkactl_core.grammars.records import LogRecord, assemble_records
from kafkactl_core.grammars.registry import (
    AUDITED_LOGGER_PREFIXES,
    entry_by_name,
    grammar_entries,
    grammars_for_version,
)

__all__ = [
    "AUDITED_LOGGER_PREFIXES",
    "EVENT_FIELDS",
    "EVENT_TYPE_MEANINGS",
    "IGNORED_FAMILY_MEANINGS",
    "KAFKA_LAYOUT",
    "LAYOUT_PRESETS",
    "STRIMZI_LAYOUT",
    "CompiledLayout",
    "ControllerEvent",
    "EventType",
    "FieldType",
    "GrammarEntry",
    "IgnoredFamily",
    "IgnoredRecord",
    "LayoutError",
    "LogRecord",
    "Mode",
    "Outcome",
    "ParsedEvent",
    "Quarantined",
    "VersionEvidence",
    "VersionInference",
    "VersionRange",
    "assemble_records",
    "compile_layout",
    "convert_field",
    "detect_layout",
    "entry_by_name",
    "grammar_entries",
    "grammars_for_version",
    "infer_version",
    "lint_pattern",
    "match_message",
    "parse_record",
    "parse_records",
    "resolve_layout",
]
