"""Parsers of ZooKeeper's own text dumps, giving the same records as the binary decoders.

For users who kept only the output of ``java org.apache.zookeeper.server.SnapshotFormatter
-d snapshot.<zxid>`` or ``TxnLogToolkit -d log.<zxid>`` (``zkTxnLogToolkit.sh``):

* ``parse_snapshot_dump`` → ``SnapshotNode`` values (data from the base64 ``data =`` lines;
  a dump made without ``-d`` has only ``dataLength`` and the data is reported missing) and the
  sessions. ``ctime``/``mtime`` are ``Date.toString()``: second precision, zone by name.
* ``parse_txnlog_dump`` → ``TxnEntry`` values. Times are second precision (the toolkit prints
  ``DateFormat.SHORT``/``LONG`` of the JVM's default locale; en_US is understood). Data is
  printed as UTF-8 text, so non-UTF-8 bytes are lost; multi sub-txns are printed as their raw
  jute bytes decoded as UTF-8, and are re-parsed here, trying the 128 values a single mangled
  length byte can have. What could not be recovered is flagged per entry, never guessed.

Offsets in issues and records are 1-based line numbers. Nothing raises for bad input.
"""

from __future__ import annotations

import base64
import binascii
import calendar
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kafkactl_core.grammars.timestamps import SHORT_MONTHS
from kafkactl_core.zk.jute import (
    Acl,
    CheckVersionTxn,
    CloseSessionTxn,
    CreateContainerTxn,
    CreateSessionTxn,
    CreateTTLTxn,
    CreateTxn,
    DeleteTxn,
    ErrorTxn,
    FileIssue,
    IssueKind,
    MultiTxn,
    OpCode,
    SetACLTxn,
    SetDataTxn,
    Stat,
    SubTxn,
    TxnHeader,
    TxnRecord,
    UnknownTxn,
    op_code,
)
from kafkactl_core.zk.snapshot import SnapshotNode
from kafkactl_core.zk.txnlog import TxnEntry

_ZONES_MIN: dict[str, int] = {
    "UTC": 0,
    "GMT": 0,
    "Z": 0,
    "UT": 0,
    "WET": 0,
    "WEST": 60,
    "BST": 60,
    "CET": 60,
    "CEST": 120,
    "MET": 60,
    "MEST": 120,
    "EET": 120,
    "EEST": 180,
    "MSK": 180,
    "EST": -300,
    "EDT": -240,
    "CST": -360,
    "CDT": -300,
    "MST": -420,
    "MDT": -360,
    "PST": -480,
    "PDT": -420,
    "AKST": -540,
    "AKDT": -480,
    "HST": -600,
    "JST": 540,
    "KST": 540,
    "HKT": 480,
    "SGT": 480,
    "AEST": 600,
    "AEDT": 660,
    "ACST": 570,
    "AWST": 480,
    "NZST": 720,
    "NZDT": 780,
}
_OFFSET_ZONE = re.compile(r"^(?:GMT|UTC)([+-])(\d{1,2}):?(\d{2})?$")
_MONTHS = {name: i for i, name in enumerate(SHORT_MONTHS, start=1)}


def zone_offset_minutes(zone: str) -> int | None:
    """Minutes east of UTC for a zone name Java printed (``UTC``, ``CEST``, ``GMT+05:30``).

    Args:
        zone: the zone text.

    Returns:
        The offset, None when the name is unknown or ambiguous (``IST``).
    """
    known = _ZONES_MIN.get(zone)
    if known is not None:
        return known
    match = _OFFSET_ZONE.match(zone)
    if match is None:
        return None
    sign, hours, minutes = match.groups()
    total = int(hours) * 60 + int(minutes or 0)
    return total if sign == "+" else -total


def _epoch_ms(
    year: int, month: int, day: int, hour: int, minute: int, second: int, zone: str
) -> int | None:
    offset = zone_offset_minutes(zone)
    if offset is None:
        return None
    try:
        seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    return (seconds - offset * 60) * 1000


_DATE_TOSTRING = re.compile(
    r"^\w{3} (\w{3}) (\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\S+) (-?\d+)$"
)  # java.util.Date.toString(): "Thu Mar 31 16:03:54 UTC 2022"


def parse_java_date(text: str) -> int | None:
    """ms since the epoch of a ``java.util.Date.toString()`` text, None when not parsable.

    Args:
        text: e.g. ``Thu Mar 31 16:03:54 UTC 2022``.

    Returns:
        The time (second precision) or None.
    """
    match = _DATE_TOSTRING.match(text.strip())
    if match is None:
        return None
    month_name, day, hour, minute, second, zone, year = match.groups()
    month = _MONTHS.get(month_name)
    if month is None:
        return None
    return _epoch_ms(int(year), month, int(day), int(hour), int(minute), int(second), zone)


_SHORT_LONG = re.compile(
    r"^(\d{1,2})/(\d{1,2})/(\d{2,4}), (\d{1,2}):(\d{2}):(\d{2})[ \u202f\u00a0]([AP]M) (\S+)$"
)  # DateFormat SHORT date + LONG time, en_US: "11/21/26, 6:34:40 AM UTC"


def parse_toolkit_date(text: str) -> int | None:
    """ms since the epoch of a ``TxnLogToolkit`` date (en_US SHORT date, LONG time).

    Args:
        text: e.g. ``11/21/26, 6:34:40 AM UTC``.

    Returns:
        The time (second precision) or None.
    """
    match = _SHORT_LONG.match(text.strip())
    if match is None:
        return None
    month, day, year, hour, minute, second, half, zone = match.groups()
    y = int(year)
    if len(year) <= 2:
        y += 2000 if y < 70 else 1900
    h = int(hour) % 12 + (12 if half == "PM" else 0)
    return _epoch_ms(y, int(month), int(day), h, int(minute), int(second), zone)


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _signed32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


@dataclass(frozen=True, slots=True)
class DumpSummary:
    """What parsing one text dump gave.

    Attributes:
        file: the dump as named by the caller.
        kind: ``snapshot`` or ``txnlog``.
        records: nodes or entries parsed.
        zxid: a snapshot dump's ``Last zxid``: the larger of the file name's zxid and the
            newest mzxid/pzxid among its nodes (``SnapshotFormatter.printDetails``).
        lossy: records whose data or fields could not be fully recovered from the text.
        time_precision_ms: 1000: the dumps print times to the second.
        issues: problems found, by line number.
    """

    file: str
    kind: str
    records: int
    zxid: int | None
    lossy: int
    time_precision_ms: int
    issues: tuple[FileIssue, ...]


@dataclass(slots=True)
class SnapshotDump:
    """A parsed ``SnapshotFormatter`` dump.

    Attributes:
        nodes: the znodes, by path.
        sessions: session id → timeout.
        ephemeral_counts: session id → ephemeral count printed with it.
        summary: the parse summary.
        data_included: whether the dump had ``data =`` lines (``-d``).
    """

    nodes: dict[str, SnapshotNode]
    sessions: dict[int, int]
    ephemeral_counts: dict[int, int]
    summary: DumpSummary
    data_included: bool


_STAT_KEYS = (
    "cZxid",
    "ctime",
    "mZxid",
    "mtime",
    "pZxid",
    "cversion",
    "dataVersion",
    "aclVersion",
    "ephemeralOwner",
)
_SESSION_LINE = re.compile(r"^0x([0-9a-fA-F]+), (-?\d+), (-?\d+)$")


def _lines(text: str | Iterable[str]) -> Iterable[str]:
    # Split on "\n" only: str.splitlines() would also split on \x0b, \x1c … which the
    # toolkit prints raw inside multi sub-txns.
    return text.split("\n") if isinstance(text, str) else text


def parse_snapshot_dump(lines: str | Iterable[str], name: str = "<dump>") -> SnapshotDump:
    """Parse the output of ``SnapshotFormatter [-d] snapshot.<zxid>``.

    Args:
        lines: the dump's text, or its lines (a file object opened with ``newline="\n"``
            works; never ``str.splitlines()``, which splits on more than line feeds).
        name: the name to cite in issues.

    Returns:
        Nodes, sessions and a summary. Nodes carry ``offset`` = the line of their path.
    """
    issues: list[FileIssue] = []
    nodes: dict[str, SnapshotNode] = {}
    sessions: dict[int, int] = {}
    counts: dict[int, int] = {}
    zxid: int | None = None
    data_included = False
    current: dict[str, str] = {}
    current_path: str | None = None
    current_line = 0
    section = "start"
    lossy = 0

    def flush() -> None:
        nonlocal lossy
        if current_path is None:
            return
        node, problem = _snapshot_node(current_path, current, current_line)
        if problem:
            issues.append(FileIssue(name, current_line, IssueKind.unparsable_text, problem, False))
        if node is not None:
            if "data" not in current:
                lossy += 1
            nodes[node.path] = node

    for number, raw in enumerate(_lines(lines), start=1):
        line = raw.rstrip("\r\n")
        if line.startswith("ZNode Details"):
            section = "nodes"
            continue
        if line.startswith("Session Details"):
            flush()
            current_path, current = None, {}
            section = "sessions"
            continue
        if line == "----":
            if section == "nodes":
                flush()
                current_path, current = None, {}
            continue
        if line.startswith("Last zxid: 0x"):
            try:
                zxid = int(line[len("Last zxid: 0x") :], 16)
            except ValueError:
                issues.append(
                    FileIssue(name, number, IssueKind.unparsable_text, f"bad zxid: {line}", False)
                )
            continue
        if line.startswith("Target zxid digest is") or not line.strip():
            continue
        if section == "nodes":
            if line.startswith("  ") and current_path is not None:
                key, sep, value = line.strip().partition(" = ")
                if not sep and line.strip().endswith(" ="):
                    key, value = line.strip()[:-2], ""
                current[key] = value
                data_included = data_included or key == "data"
            elif not line.startswith(" "):
                flush()
                current_path, current, current_line = line, {}, number
            else:
                issues.append(
                    FileIssue(
                        name, number, IssueKind.unparsable_text, f"stray line {line!r}", False
                    )
                )
        elif section == "sessions":
            match = _SESSION_LINE.match(line.strip())
            if match:
                sid = _signed64(int(match.group(1), 16))
                sessions[sid] = int(match.group(2))
                counts[sid] = int(match.group(3))
            else:
                issues.append(
                    FileIssue(
                        name, number, IssueKind.unparsable_text, f"bad session {line!r}", False
                    )
                )
        else:
            issues.append(
                FileIssue(
                    name,
                    number,
                    IssueKind.not_zookeeper,
                    f"not SnapshotFormatter output: {line[:60]!r}",
                    True,
                )
            )
            break
    if section == "nodes":
        flush()
    if section == "start" and not issues:
        issues.append(
            FileIssue(name, 1, IssueKind.not_zookeeper, "no 'ZNode Details' section", True)
        )
    if nodes and not data_included:
        issues.append(
            FileIssue(
                name,
                None,
                IssueKind.unparsable_text,
                "dump made without -d: znode data is missing (only dataLength)",
                False,
            )
        )
    summary = DumpSummary(name, "snapshot", len(nodes), zxid, lossy, 1000, tuple(issues))
    return SnapshotDump(nodes, sessions, counts, summary, data_included)


def _snapshot_node(
    path: str, fields: dict[str, str], line: int
) -> tuple[SnapshotNode | None, str | None]:
    missing = [k for k in _STAT_KEYS if k not in fields]
    if missing:
        return None, f"node {path} lacks {', '.join(missing)}"
    try:
        ctime = parse_java_date(fields["ctime"])
        mtime = parse_java_date(fields["mtime"])
        stat = Stat(
            czxid=int(fields["cZxid"], 16),
            mzxid=int(fields["mZxid"], 16),
            ctime=ctime if ctime is not None else -1,
            mtime=mtime if mtime is not None else -1,
            version=int(fields["dataVersion"]),
            cversion=int(fields["cversion"]),
            aversion=int(fields["aclVersion"]),
            ephemeral_owner=_signed64(int(fields["ephemeralOwner"], 16)),
            pzxid=int(fields["pZxid"], 16),
        )
    except ValueError as exc:
        return None, f"node {path}: {exc}"
    problem = None
    if ctime is None or mtime is None:
        problem = f"node {path}: time zone of {fields['ctime']!r} unknown; time set to -1"
    data: bytes | None = None
    if "data" in fields:
        try:
            data = base64.b64decode(fields["data"], validate=True)
        except (binascii.Error, ValueError):
            return None, f"node {path}: data is not base64"
    return SnapshotNode(path, data, -1, stat, line), problem


_TXN_LINE = re.compile(
    r"^(?:(CRC ERROR|CRC FIXED) - )?(.+?) session 0x([0-9a-f]+) cxid 0x([0-9a-f]+) "
    r"zxid 0x([0-9a-f]+) (unknown -?\d+|\w+)(?: (.*))?$",
    re.DOTALL,
)


@dataclass(slots=True)
class TxnLogDump:
    """A parsed ``TxnLogToolkit -d`` dump.

    Attributes:
        entries: the transactions (``offset`` = the line of the entry).
        lossy: zxids whose record could not be fully recovered from the text.
        dbid: from the header line.
        version: the log format version from the header line.
        summary: the parse summary.
    """

    entries: list[TxnEntry]
    lossy: set[int]
    dbid: int | None
    version: int | None
    summary: DumpSummary


_HEADER_LINE = re.compile(
    r"^ZooKeeper Transactional Log File with dbid (-?\d+) txnlog format version (-?\d+)$"
)


def parse_txnlog_dump(lines: str | Iterable[str], name: str = "<dump>") -> TxnLogDump:
    """Parse the output of ``TxnLogToolkit -d log.<zxid>``.

    Args:
        lines: the dump's text, or its lines (a file object opened with ``newline="\n"``
            works; never ``str.splitlines()``, which splits on more than line feeds).
        name: the name to cite in issues.

    Returns:
        Entries, with the zxids whose record is lossy, and a summary.
    """
    issues: list[FileIssue] = []
    entries: list[TxnEntry] = []
    lossy: set[int] = set()
    dbid = version = None
    pending: list[str] = []
    pending_line = 0
    seen_header = False

    def flush() -> None:
        if not pending:
            return
        text = "\n".join(pending)
        entry, is_lossy, problem = _txn_entry(text, pending_line)
        if entry is None:
            issues.append(
                FileIssue(name, pending_line, IssueKind.unparsable_text, problem or "?", False)
            )
            return
        if problem:
            issues.append(FileIssue(name, pending_line, IssueKind.unparsable_text, problem, False))
        if is_lossy:
            lossy.add(entry.zxid)
        entries.append(entry)

    crlf = False
    for number, raw in enumerate(_lines(lines), start=1):
        # Only the line feed is a separator: a multi's raw bytes may end in \r (0x0d) ...
        line = raw[:-1] if raw.endswith("\n") else raw
        if crlf and line.endswith("\r"):  # ... unless the whole dump was saved with CRLF
            line = line[:-1]
        header = _HEADER_LINE.match(line.rstrip("\r"))
        if header:
            crlf = line.endswith("\r")
            line = line.rstrip("\r")
            dbid, version = int(header.group(1)), int(header.group(2))
            seen_header = True
            continue
        if line.startswith("EOF reached after "):
            flush()
            pending = []
            continue
        match = _TXN_LINE.match(line)
        if match:
            flush()
            pending, pending_line = [line], number
            if match.group(1):
                issues.append(
                    FileIssue(
                        name,
                        number,
                        IssueKind.checksum_mismatch,
                        f"the toolkit reported {match.group(1)} for zxid 0x{match.group(5)}",
                        False,
                    )
                )
                pending = []  # the toolkit prints the entry again right after
            continue
        if pending:
            pending.append(line)  # data or a record's toString with a newline in it
        elif not seen_header:
            issues.append(
                FileIssue(
                    name,
                    number,
                    IssueKind.not_zookeeper,
                    f"not TxnLogToolkit output: {line[:60]!r}",
                    True,
                )
            )
            break
        elif line.strip():
            issues.append(
                FileIssue(name, number, IssueKind.unparsable_text, f"stray line {line!r}", False)
            )
    flush()
    summary = DumpSummary(name, "txnlog", len(entries), None, len(lossy), 1000, tuple(issues))
    return TxnLogDump(entries, lossy, dbid, version, summary)


def _txn_entry(text: str, line: int) -> tuple[TxnEntry | None, bool, str | None]:
    match = _TXN_LINE.match(text)
    if match is None:
        return None, False, f"not a txn line: {text[:80]!r}"
    _, date, session, cxid, zxid, op_text, rest = match.groups()
    op = op_code(op_text)
    if op is None:
        return None, False, f"unknown op {op_text!r}"
    time = parse_toolkit_date(date)
    problem = None
    if time is None:
        problem = f"time {date!r} not understood (en_US SHORT/LONG format expected); set to -1"
    header = TxnHeader(
        _signed64(int(session, 16)),
        _signed32(int(cxid, 16)),
        int(zxid, 16),
        time if time is not None else -1,
        op,
    )
    record, lossy = _txn_record(op, rest or "")
    return TxnEntry(line, 0, header, record, None), lossy, problem


def _csv_unescape(text: str) -> str:
    """Undo jute's ``Utils.toCSVString`` escaping (``%2C`` for ``,`` …)."""
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


_ACL_ITEM = r"-?\d+,s\{'[^\n]*?,'[^\n]*?\}\n"
_ACL_LIST = re.compile(rf",(\[(?:{_ACL_ITEM}(?:, {_ACL_ITEM})*)?\])$", re.DOTALL)
_ACL_ONE = re.compile(r"(-?\d+),s\{'([^\n]*?),'([^\n]*?)\}\n")
_JUTE_ACLS = re.compile(r"^v\{(.*)\}$", re.DOTALL)
_JUTE_ACL_ONE = re.compile(r"s\{(-?\d+),s\{'([^,}]*),'([^}]*)\}\}")


def _data(text: str) -> tuple[bytes, bool]:
    return text.encode("utf-8"), "\ufffd" in text


def _acl_list(text: str) -> tuple[Acl, ...]:
    return tuple(
        Acl(int(p), _csv_unescape(s), _csv_unescape(i)) for p, s, i in _ACL_ONE.findall(text)
    )


def _txn_record(op: int, rest: str) -> tuple[TxnRecord, bool]:
    """Rebuild a txn record from its toolkit text; the flag says it is lossy."""
    body = rest[:-1] if rest.endswith("\n") else rest
    try:
        if op in (OpCode.create, OpCode.create2, OpCode.createContainer, OpCode.createTTL):
            return _create_text(op, body)
        if op in (OpCode.setData, OpCode.reconfig):
            head, _, version = body.rpartition(",")
            path, _, data = head.partition(",")
            raw, lossy = _data(data)
            return SetDataTxn(path, raw, int(version)), lossy
        if op in (OpCode.delete, OpCode.deleteContainer):
            return DeleteTxn(_csv_unescape(body.strip().lstrip("'"))), False
        if op == OpCode.createSession:
            return CreateSessionTxn(int(body.strip())), False
        if op == OpCode.error:
            return ErrorTxn(int(body.strip())), False
        if op == OpCode.closeSession:
            if not body.strip():
                return CloseSessionTxn(None), False
            inner = _JUTE_ACLS.match(body.strip())
            if inner is None:
                raise ValueError(body)
            items = [p for p in inner.group(1).split(",") if p]
            return CloseSessionTxn(tuple(_csv_unescape(p.lstrip("'")) for p in items)), False
        if op == OpCode.setACL:
            head, _, version = body.rpartition(",")
            path, _, acls = head.partition(",")
            entries = tuple(
                Acl(int(p), _csv_unescape(s), _csv_unescape(i))
                for p, s, i in _JUTE_ACL_ONE.findall(acls)
            )
            return SetACLTxn(_csv_unescape(path.lstrip("'")), entries, int(version)), False
        if op == OpCode.multi:
            return _multi_from_text(body)
    except (ValueError, IndexError) as exc:
        return UnknownTxn(op, rest.encode("utf-8"), f"text not understood: {exc}"), True
    return UnknownTxn(op, rest.encode("utf-8"), "op not printed by TxnLogToolkit"), True


def _create_text(op: int, body: str) -> tuple[TxnRecord, bool]:
    # path,data,[acl…],ephemeral,parentCVersion | path,data,[acl…],parentCVersion[,ttl]
    tail_fields = 1 if op == OpCode.createContainer else 2
    parts = body.rsplit(",", tail_fields)
    head, tail = parts[0], parts[1:]
    acl_match = _ACL_LIST.search(head)
    if acl_match is None:
        raise ValueError("no ACL list found")
    path, _, data = head[: acl_match.start()].partition(",")
    raw, lossy = _data(data)
    acls = _acl_list(acl_match.group(1))
    if op == OpCode.createContainer:
        return CreateContainerTxn(path, raw, acls, int(tail[0])), lossy
    if op == OpCode.createTTL:
        return CreateTTLTxn(path, raw, acls, int(tail[0]), int(tail[1])), lossy
    return CreateTxn(path, raw, acls, tail[0] == "true", int(tail[1])), lossy


# ---- multi: raw jute bytes printed as UTF-8, re-parsed with unknown (mangled) bytes ----

_UNKNOWN = 0x100  # marks a byte Java replaced by U+FFFD


def _lossy_bytes(text: str) -> list[int]:
    out: list[int] = []
    for ch in text:
        if ch == "\ufffd":
            out.append(_UNKNOWN)
        else:
            out.extend(ch.encode("utf-8", "surrogatepass"))
    return out


_Parser = Callable[[list[int], int], Iterator[tuple[Any, int]]]


def _p_int(buf: list[int], pos: int) -> Iterator[tuple[Any, int]]:
    chunk = buf[pos : pos + 4]
    if len(chunk) < 4:
        return
    if _UNKNOWN in chunk:
        yield None, pos + 4
    else:
        yield _signed32(int.from_bytes(bytes(chunk), "big")), pos + 4


def _p_long(buf: list[int], pos: int) -> Iterator[tuple[Any, int]]:
    chunk = buf[pos : pos + 8]
    if len(chunk) < 8:
        return
    if _UNKNOWN in chunk:
        yield None, pos + 8
    else:
        yield _signed64(int.from_bytes(bytes(chunk), "big")), pos + 8


def _p_bool(buf: list[int], pos: int) -> Iterator[tuple[Any, int]]:
    if pos < len(buf) and buf[pos] in (0, 1):
        yield buf[pos] == 1, pos + 1


def _p_length(buf: list[int], pos: int) -> Iterator[tuple[int, int]]:
    chunk = buf[pos : pos + 4]
    if len(chunk) < 4:
        return
    unknown = [i for i, b in enumerate(chunk) if b == _UNKNOWN]
    if not unknown:
        value = _signed32(int.from_bytes(bytes(chunk), "big"))
        if -1 <= value <= len(buf) - pos - 4:
            yield value, pos + 4
        return
    if len(unknown) > 1:
        return
    for guess in range(0x80, 0x100):  # the byte was not valid UTF-8, so it was >= 0x80
        trial = list(chunk)
        trial[unknown[0]] = guess
        value = _signed32(int.from_bytes(bytes(trial), "big"))
        if 0 <= value <= len(buf) - pos - 4:
            yield value, pos + 4


def _p_buffer(buf: list[int], pos: int) -> Iterator[tuple[Any, int]]:
    for n, p in _p_length(buf, pos):
        if n < 0:
            yield None, p
            continue
        chunk = buf[p : p + n]
        yield (
            b"".join(b"\xef\xbf\xbd" if b == _UNKNOWN else bytes((b,)) for b in chunk),
            p + n,
        )


def _p_string(buf: list[int], pos: int) -> Iterator[tuple[Any, int]]:
    for value, p in _p_buffer(buf, pos):
        if value is None:
            yield None, p
            continue
        try:
            yield value.decode("utf-8"), p
        except UnicodeDecodeError:
            continue


def _p_acls(buf: list[int], pos: int) -> Iterator[tuple[Any, int]]:
    for count, p in _p_length(buf, pos):
        if count < 0:
            yield None, p
            continue
        if count * 12 > len(buf) - p:  # an ACL takes at least 12 bytes
            continue
        for values, end in _p_seq(buf, p, [_p_int, _p_string, _p_string] * count):
            acls = tuple(
                Acl(
                    -1 if values[i] is None else values[i], values[i + 1] or "", values[i + 2] or ""
                )
                for i in range(0, len(values), 3)
            )
            yield acls, end


def _p_seq(
    buf: list[int], pos: int, parsers: list[_Parser], acc: tuple[Any, ...] = ()
) -> Iterator[tuple[tuple[Any, ...], int]]:
    if not parsers:
        yield acc, pos
        return
    for value, p in parsers[0](buf, pos):
        yield from _p_seq(buf, p, parsers[1:], (*acc, value))


_SUB_GRAMMAR: dict[int, list[_Parser]] = {
    OpCode.create: [_p_string, _p_buffer, _p_acls, _p_bool, _p_int],
    OpCode.create2: [_p_string, _p_buffer, _p_acls, _p_bool, _p_int],
    OpCode.createContainer: [_p_string, _p_buffer, _p_acls, _p_int],
    OpCode.createTTL: [_p_string, _p_buffer, _p_acls, _p_int, _p_long],
    OpCode.delete: [_p_string],
    OpCode.deleteContainer: [_p_string],
    OpCode.setData: [_p_string, _p_buffer, _p_int],
    OpCode.check: [_p_string, _p_int],
    OpCode.error: [_p_int],
}
_SUB_NAMES = "create|create2|createTtl|createContainer|delete|deleteContainer|setData|check|error"
_SUB_START = re.compile(rf"^({_SUB_NAMES}):")


def _sub_record(op: int, values: tuple[Any, ...]) -> TxnRecord:
    if op in (OpCode.create, OpCode.create2):
        path, data, acl, ephemeral, pcv = values
        return CreateTxn(path or "", data, acl, ephemeral, -1 if pcv is None else pcv)
    if op == OpCode.createContainer:
        path, data, acl, pcv = values
        return CreateContainerTxn(path or "", data, acl, -1 if pcv is None else pcv)
    if op == OpCode.createTTL:
        path, data, acl, pcv, ttl = values
        return CreateTTLTxn(path or "", data, acl, -1 if pcv is None else pcv, ttl or 0)
    if op in (OpCode.delete, OpCode.deleteContainer):
        return DeleteTxn(values[0] or "")
    if op == OpCode.setData:
        return SetDataTxn(values[0] or "", values[1], values[2])
    if op == OpCode.check:
        return CheckVersionTxn(values[0] or "", values[1])
    return ErrorTxn(values[0])


def _at_boundary(buf: list[int], pos: int) -> bool:
    if pos == len(buf):
        return True
    if buf[pos] != ord(";"):
        return False
    head = bytes(b for b in buf[pos + 1 : pos + 20] if b != _UNKNOWN).decode("ascii", "replace")
    return _SUB_START.match(head) is not None


def _implausibility(values: tuple[Any, ...]) -> int:
    """How unlikely decoded ints are (versions, cversions, error codes are small numbers)."""
    return max((abs(v) for v in values if type(v) is int), default=0)


def _multi_text(body: str) -> tuple[MultiTxn, bool, int]:
    """Re-parse a multi's subs; returns (record, lossy, implausibility) or raises ValueError.

    When a mangled length admits several parses ending at a sub-txn boundary, the one with
    the most plausible int fields wins and the record is flagged lossy.
    """
    buf = _lossy_bytes(body)
    subs: list[SubTxn] = []
    lossy = False
    score = 0
    pos = 0
    while pos < len(buf):
        head = bytes(b for b in buf[pos : pos + 20] if b != _UNKNOWN).decode("ascii", "replace")
        match = _SUB_START.match(head)
        if match is None:
            raise ValueError(f"multi sub-txn expected at {head!r}")
        name = match.group(1)
        op = op_code(name)
        if op is None:
            raise ValueError(f"unknown sub-txn {name}")
        start = pos + len(name) + 1
        found: list[tuple[tuple[Any, ...], int]] = []
        for values, end in _p_seq(buf, start, _SUB_GRAMMAR[op]):
            if _at_boundary(buf, end):
                found.append((values, end))
                if len(found) > 8:
                    break
        if not found:
            raise ValueError(f"cannot re-parse the {name} sub-txn")
        values, end = min(found, key=lambda f: _implausibility(f[0]))
        if len({f[0] for f in found}) > 1:
            lossy = True  # ambiguous: the most plausible reading was taken
        lossy = lossy or any(v is None for v in values)
        lossy = lossy or any(isinstance(v, bytes) and b"\xef\xbf\xbd" in v for v in values)
        score = max(score, _implausibility(values))
        subs.append(SubTxn(op, _sub_record(op, values)))
        pos = end + 1 if end < len(buf) else end
    return MultiTxn(tuple(subs)), lossy, score


_PLAUSIBLE = 1 << 24  # versions, cversions and error codes of real znodes stay below this


def _multi_from_text(body: str) -> tuple[TxnRecord, bool]:
    """A multi from its toolkit text, restoring a line break the line split may have eaten.

    The toolkit adds no line break when the text already ends with one, so a last sub-txn
    whose final int ends in byte 0x0a (a version of 10, 266 …) lost it to the line split.
    Without it the only reading shifts bytes into that int, making it implausibly large
    (``}\\0\\0\\0``); then the reading with the line break restored is taken.
    """
    try:
        record, lossy, score = _multi_text(body)
    except ValueError:
        record, lossy, score = None, True, _PLAUSIBLE
    if record is not None and score < _PLAUSIBLE:
        return record, lossy
    try:
        restored, restored_lossy, restored_score = _multi_text(body + "\n")
    except ValueError:
        if record is None:
            raise
        return record, True
    if record is None or restored_score < score:
        return restored, restored_lossy or restored_score >= _PLAUSIBLE
    return record, True
