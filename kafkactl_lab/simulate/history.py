"""The ZooKeeper-shaped history: every znode write and session event, in order, with its time.

``ZkHistory`` writes one JSON object per line, one line per ZooKeeper transaction:

* ``createSession`` (``session``, ``broker``, ``timeout_ms``), ``closeSession`` (``expired``:
  the server expired it after a crash; ``removed``: the ephemerals it took along);
* ``create`` (``path``, ``data``, ``ephemeral``, ``sequential``), ``setData`` (``version``: the
  expected version, -1 for any; ``new_version``), ``delete``;
* ``multi`` (``ops``: ``check``/``create``/``setData``/``delete`` objects), the form a 2.2+
  controller uses to fence every write with a ``/controller_epoch`` version check.

Every record has ``zxid`` (the transaction id a fresh standalone ZooKeeper assigns: 1, 2, 3...
as every transaction, sessions included, is in the history), ``t`` (ms since the epoch) and
``time`` (ISO 8601, UTC). ``data`` is the znode's text (``null`` for no data). The class also
mirrors the tree (versions, child versions for sequential names, ephemeral owners) so that
expected versions and sequential names are what ZooKeeper will produce; a write that ZooKeeper
would refuse is a ``HistoryError`` (a simulator bug, never silently written).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TextIO

from kafkactl_lab.simulate.clock import Clock, iso_ms


class HistoryError(RuntimeError):
    """A write ZooKeeper would refuse (missing parent, existing node, wrong version)."""


@dataclass(slots=True)
class _Node:
    version: int = 0
    cversion: int = 0
    owner: str | None = None
    czxid: int = 0
    children: int = 0


@dataclass(slots=True)
class _Session:
    broker: int | None
    ephemerals: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Check:
    """A multi's version check (Kafka 2.2+ fences controller writes on ``/controller_epoch``)."""

    path: str
    version: int


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] or "/"


class ZkHistory:
    """Writes the history and mirrors the tree it describes (see the module docstring)."""

    def __init__(self, out: TextIO | None, clock: Clock) -> None:
        """Write records to ``out`` (``None``: mirror only) stamped by ``clock``."""
        self.out = out
        self.clock = clock
        self.zxid = 0
        self.nodes: dict[str, _Node] = {"/": _Node()}
        self.sessions: dict[str, _Session] = {}

    # ------------------------------------------------------------------ reads

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists."""
        return path in self.nodes

    def version(self, path: str) -> int:
        """The data version of ``path``."""
        return self.nodes[path].version

    def czxid(self, path: str) -> int:
        """The zxid that created ``path``."""
        return self.nodes[path].czxid

    # ------------------------------------------------------------------ writing

    def _emit(self, record: dict[str, Any]) -> int:
        self.zxid += 1
        ms = self.clock.tick() // 1000
        if self.out is not None:
            head = {"zxid": self.zxid, "t": ms, "time": iso_ms(ms)}
            head.update(record)
            self.out.write(json.dumps(head, separators=(",", ":")) + "\n")
        return self.zxid

    def create_session(self, name: str, timeout_ms: int, broker: int | None = None) -> int:
        """A client connects (one ``createSession`` transaction).

        Args:
            name: the session's name in the history (unique).
            timeout_ms: the negotiated session timeout.
            broker: the broker holding it (``None`` for tools).

        Returns:
            The zxid.
        """
        if name in self.sessions:
            raise HistoryError(f"session {name} already open")
        self.sessions[name] = _Session(broker)
        return self._emit(
            {"op": "createSession", "session": name, "broker": broker, "timeout_ms": timeout_ms}
        )

    def close_session(self, name: str, *, expired: bool) -> list[str]:
        """The session ends (closed by its client, or expired by the server).

        Args:
            name: the session.
            expired: the server expired it (the client crashed or stalled).

        Returns:
            The ephemerals removed with it.
        """
        session = self.sessions.pop(name, None)
        if session is None:
            raise HistoryError(f"session {name} is not open")
        removed = [p for p in session.ephemerals if p in self.nodes]
        for path in removed:
            self._drop(path)
        self._emit(
            {
                "op": "closeSession",
                "session": name,
                "broker": session.broker,
                "expired": expired,
                "removed": removed,
            }
        )
        return removed

    def _require_open(self, session: str, what: str) -> None:
        if session not in self.sessions:
            raise HistoryError(f"{what}: session {session} is not open")

    def _check_create(self, path: str, owner: str | None) -> None:
        if path in self.nodes:
            raise HistoryError(f"create {path}: node exists")
        parent = self.nodes.get(_parent(path))
        if parent is None:
            raise HistoryError(f"create {path}: no parent")
        if parent.owner is not None:
            raise HistoryError(f"create {path}: parent is ephemeral")
        if owner is not None:
            self._require_open(owner, f"create {path}")

    def _add(self, path: str, owner: str | None, zxid: int) -> None:
        parent = self.nodes[_parent(path)]
        parent.cversion += 1
        parent.children += 1
        self.nodes[path] = _Node(0, 0, owner, zxid)
        if owner is not None:
            self.sessions[owner].ephemerals.append(path)

    def _drop(self, path: str) -> None:
        node = self.nodes.pop(path)
        parent = self.nodes[_parent(path)]
        # ZooKeeper numbers sequential children by the parent's cversion as its request
        # processor tracks it, which only creates move
        parent.children -= 1
        if node.owner is not None and node.owner in self.sessions:
            owned = self.sessions[node.owner].ephemerals
            if path in owned:
                owned.remove(path)

    def sequential_name(self, prefix: str) -> str:
        """The name ZooKeeper gives the next sequential child: ``<prefix><10-digit number>``.

        The number is the parent's child version as ZooKeeper's request processor keeps it:
        the count of children created under it so far (deletions do not move it).
        """
        parent = self.nodes.get(_parent(prefix))
        if parent is None:
            raise HistoryError(f"sequential create under missing {_parent(prefix)}")
        return f"{prefix}{parent.cversion:010d}"

    def _op_record(
        self,
        op: str,
        session: str,
        path: str,
        data: str | None,
        *,
        ephemeral: bool,
        sequential: bool,
        version: int,
    ) -> dict[str, Any]:
        if op == "create":
            self._check_create(path, session if ephemeral else None)
            return {
                "op": "create",
                "path": path,
                "data": data,
                "ephemeral": ephemeral,
                "sequential": sequential,
            }
        node = self.nodes.get(path)
        if node is None:
            raise HistoryError(f"{op} {path}: no node")
        if version != -1 and version != node.version:
            raise HistoryError(f"{op} {path}: version {version}, node is at {node.version}")
        if op == "setData":
            return {
                "op": "setData",
                "path": path,
                "data": data,
                "version": version,
                "new_version": node.version + 1,
            }
        if op == "delete":
            if node.children:
                raise HistoryError(f"delete {path}: node has children")
            return {"op": "delete", "path": path, "version": version}
        raise HistoryError(f"unknown op {op}")

    def _apply(self, record: dict[str, Any], session: str, zxid: int) -> None:
        op, path = record["op"], record["path"]
        if op == "create":
            self._add(path, session if record["ephemeral"] else None, zxid)
        elif op == "setData":
            self.nodes[path].version += 1
        elif op == "delete":
            self._drop(path)

    def write(
        self,
        op: str,
        session: str,
        path: str,
        data: str | None = None,
        *,
        ephemeral: bool = False,
        sequential: bool = False,
        version: int = -1,
        check: Check | None = None,
    ) -> int:
        """One write (a ``multi`` with the check when ``check`` is given).

        Args:
            op: ``create``, ``setData`` or ``delete``.
            session: the writing session.
            path: the znode (for a sequential create: the full name from
                ``sequential_name``).
            data: the payload (create/setData).
            ephemeral: create an ephemeral owned by ``session``.
            sequential: the name was assigned by ZooKeeper.
            version: the expected version (-1: any).
            check: a ``/controller_epoch`` fence.

        Returns:
            The transaction's zxid.

        Raises:
            HistoryError: ZooKeeper would refuse the write.
        """
        self._require_open(session, f"{op} {path}")
        record = self._op_record(
            op, session, path, data, ephemeral=ephemeral, sequential=sequential, version=version
        )
        if check is not None:
            node = self.nodes.get(check.path)
            if node is None or node.version != check.version:
                raise HistoryError(f"check {check.path}@{check.version} would fail")
            zxid = self._emit(
                {
                    "op": "multi",
                    "session": session,
                    "ops": [
                        {"op": "check", "path": check.path, "version": check.version},
                        record,
                    ],
                }
            )
        else:
            zxid = self._emit({"session": session, **record})
        self._apply(record, session, zxid)
        return zxid

    def multi(self, session: str, ops: list[dict[str, Any]]) -> int:
        """Several writes in one transaction (e.g. the controller's registration).

        Args:
            session: the writing session.
            ops: ``{"op", "path", "data", "ephemeral", "version"}`` objects, in order;
                ``check`` ops carry ``path`` and ``version``.

        Returns:
            The transaction's zxid.

        Raises:
            HistoryError: ZooKeeper would refuse the transaction.
        """
        self._require_open(session, "multi")
        records: list[dict[str, Any]] = []
        for op in ops:
            if op["op"] == "check":
                node = self.nodes.get(op["path"])
                if node is None or node.version != op["version"]:
                    raise HistoryError(f"check {op['path']}@{op['version']} would fail")
                records.append({"op": "check", "path": op["path"], "version": op["version"]})
                continue
            records.append(
                self._op_record(
                    op["op"],
                    session,
                    op["path"],
                    op.get("data"),
                    ephemeral=op.get("ephemeral", False),
                    sequential=False,
                    version=op.get("version", -1),
                )
            )
        zxid = self._emit({"op": "multi", "session": session, "ops": records})
        for record in records:
            if record["op"] != "check":
                self._apply(record, session, zxid)
        return zxid

    def ensure(self, session: str, path: str, check: Check | None = None) -> None:
        """Create ``path`` and its missing parents (no data), parents first."""
        missing: list[str] = []
        current = path
        while current != "/" and current not in self.nodes:
            missing.append(current)
            current = _parent(current)
        for item in reversed(missing):
            self.write("create", session, item, None, check=check)
