"""A Kafka-shaped history written to a real ZooKeeper, with a record of every write.

Brokers register as ephemerals with their own sessions (one of them in a child process that
"crashes", so its session expires; one restarts cleanly); a controller creates topics and
partition state znodes in multi-ops guarded by a ``/controller_epoch`` version check (as Kafka
2.2+ does), moves leaders and shrinks/expands ISRs with conditional setData, processes ISR change
notifications, configs, a reassignment, a preferred election and a topic deletion through
``/admin/delete_topics``; the controller fails over once; one multi fails on a stale epoch.
``Recorder`` keeps what was written with the zxid ZooKeeper returned, to compare the decoded
files against.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field

from kazoo.client import KazooClient

from tests.core.zk_builders import partition_state_json

BROKER_TIMEOUT = 1.0  # seconds; the server's minimum is 2 x tickTime


@dataclass(frozen=True)
class Written:
    """One write as ZooKeeper acknowledged it."""

    zxid: int
    op: str  # create, setData, delete
    path: str
    data: bytes | None
    version: int | None  # the data version after the write (None for deletes)
    session: int
    multi_index: int | None


@dataclass(frozen=True)
class StateWrite:
    """A partition state znode write."""

    zxid: int
    topic: str
    partition: int
    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    zk_version: int


@dataclass
class BrokerLife:
    """A broker registration and how it ended."""

    broker_id: int
    session: int
    czxid: int
    end: str | None = None  # "session_closed", "session_expired" or None (still registered)


@dataclass
class Recorder:
    """What the scenario wrote."""

    writes: list[Written] = field(default_factory=list)
    states: list[StateWrite] = field(default_factory=list)
    brokers: list[BrokerLife] = field(default_factory=list)
    failed_multis: int = 0
    sessions: dict[str, int] = field(default_factory=dict)
    final: dict[str, tuple[bytes, object]] = field(default_factory=dict)
    deleted_topics: list[str] = field(default_factory=list)


def _sid(client: KazooClient) -> int:
    session = client.client_id[0]
    return session - (1 << 64) if session >= 1 << 63 else session


class Writer:
    """Writes through one client and records each acknowledged write."""

    def __init__(self, client: KazooClient, rec: Recorder) -> None:
        self.c = client
        self.rec = rec

    @property
    def session(self) -> int:
        return _sid(self.c)

    def create(
        self, path: str, data: bytes = b"", *, ephemeral: bool = False, sequence: bool = False
    ) -> tuple[str, int]:
        real, stat = self.c.create(
            path, data, ephemeral=ephemeral, sequence=sequence, include_data=True
        )
        self.rec.writes.append(Written(stat.czxid, "create", real, data, 0, self.session, None))
        return real, stat.czxid

    def set(self, path: str, data: bytes, version: int = -1) -> int:
        stat = self.c.set(path, data, version=version)
        self.rec.writes.append(
            Written(stat.mzxid, "setData", path, data, stat.version, self.session, None)
        )
        return stat.version

    def delete(self, path: str) -> int:
        self.c.delete(path)
        parent = path.rsplit("/", 1)[0] or "/"
        zxid = self.c.exists(parent).pzxid
        self.rec.writes.append(Written(zxid, "delete", path, None, None, self.session, None))
        return zxid

    def multi(self, ops: list[tuple]) -> list[object] | None:
        """Commit (kind, path, data, version) ops atomically; None when the multi failed."""
        t = self.c.transaction()
        for kind, path, data, version in ops:
            if kind == "check":
                t.check(path, version)
            elif kind == "create":
                t.create(path, data)
            elif kind == "setData":
                t.set_data(path, data, version)
            else:
                t.delete(path, version)
        results = t.commit()
        if any(isinstance(r, Exception) for r in results):
            self.rec.failed_multis += 1
            return None
        zxid = None
        for (kind, path, _, _), result in zip(ops, results, strict=True):
            if kind == "setData":
                zxid = result.mzxid
            elif kind == "create" and zxid is None:
                zxid = self.c.exists(result).czxid
            elif kind == "delete" and zxid is None:
                zxid = self.c.exists(path.rsplit("/", 1)[0] or "/").pzxid
        assert zxid is not None
        for index, ((kind, path, data, _), result) in enumerate(zip(ops, results, strict=True)):
            if kind == "check":
                continue
            version = result.version if kind == "setData" else (0 if kind == "create" else None)
            self.rec.writes.append(
                Written(
                    zxid,
                    kind,
                    path,
                    data if kind != "delete" else None,
                    version,
                    self.session,
                    index,
                )
            )
        return results


def controller_json(broker: int) -> bytes:
    stamp = int(time.time() * 1000)
    return (
        f'{{"version":2,"brokerid":{broker},"timestamp":"{stamp}","kraftControllerEpoch":-1}}'
    ).encode()


def broker_json(broker: int, rack: str) -> bytes:
    return json.dumps(
        {
            "features": {},
            "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"},
            "endpoints": [f"PLAINTEXT://kafka-{broker}:9092"],
            "rack": rack,
            "jmx_port": -1,
            "port": 9092,
            "host": f"kafka-{broker}",
            "version": 5,
            "timestamp": str(int(time.time() * 1000)),
        },
        separators=(",", ":"),
    ).encode()


_CRASHER = textwrap.dedent(
    """
    import json, os, sys
    from kazoo.client import KazooClient
    c = KazooClient(sys.argv[1], timeout=float(sys.argv[4]))
    c.start()
    path, stat = c.create(sys.argv[2], sys.argv[3].encode(), ephemeral=True, include_data=True)
    sid = c.client_id[0]
    print(json.dumps({"session": sid - (1 << 64) if sid >= 1 << 63 else sid,
                      "czxid": stat.czxid}), flush=True)
    sys.stdin.readline()
    os._exit(0)  # a crash: the session is never closed, ZooKeeper expires it
    """
)


class Controller:
    """A Kafka controller's writes: partition state via epoch-checked multi-ops."""

    def __init__(self, w: Writer, broker: int, epoch: int, epoch_zk_version: int) -> None:
        self.w = w
        self.broker = broker
        self.epoch = epoch
        self.epoch_zk_version = epoch_zk_version
        self.state: dict[tuple[str, int], tuple[int, int, list[int], int]] = {}

    def write_state(self, topic: str, p: int, leader: int, epoch: int, isr: list[int]) -> None:
        path = f"/brokers/topics/{topic}/partitions/{p}/state"
        data = partition_state_json(leader, epoch, isr, self.epoch, compact=True)
        check = ("check", "/controller_epoch", None, self.epoch_zk_version)
        if (topic, p) not in self.state:
            ops = [
                check,
                ("create", f"/brokers/topics/{topic}/partitions/{p}", b"", None),
                ("create", path, data, None),
            ]
            if p == 0:
                ops.insert(1, ("create", f"/brokers/topics/{topic}/partitions", b"", None))
            results = self.w.multi(ops)
            assert results is not None
            zxid = self.w.rec.writes[-1].zxid
            version = 0
        else:
            version = self.state[(topic, p)][3]
            results = self.w.multi([check, ("setData", path, data, version)])
            assert results is not None
            zxid = results[1].mzxid
            version = results[1].version
        self.state[(topic, p)] = (leader, epoch, isr, version)
        self.w.rec.states.append(StateWrite(zxid, topic, p, leader, epoch, tuple(isr), version))

    def change(
        self, topic: str, p: int, *, leader: int | None = None, isr: list[int] | None = None
    ) -> None:
        old_leader, epoch, old_isr, _ = self.state[(topic, p)]
        new_leader = old_leader if leader is None else leader
        new_epoch = epoch + 1 if new_leader != old_leader else epoch
        self.write_state(topic, p, new_leader, new_epoch, old_isr if isr is None else isr)


def run_scenario(hosts: str) -> Recorder:
    """Write the Kafka-shaped history; returns the record (with the final tree)."""
    rec = Recorder()
    admin_client = KazooClient(hosts, timeout=10)
    admin_client.start()
    admin = Writer(admin_client, rec)
    rec.sessions["admin"] = admin.session
    for path in [
        "/brokers",
        "/brokers/ids",
        "/brokers/topics",
        "/brokers/seqid",
        "/config",
        "/config/topics",
        "/config/brokers",
        "/config/changes",
        "/admin",
        "/admin/delete_topics",
        "/isr_change_notification",
        "/cluster",
    ]:
        admin.create(path)
    admin.create("/cluster/id", b'{"version":"1","id":"k4fWq0sYQ6ed5mEGq1XbJA"}')
    admin.create("/latest_producer_id_block")
    admin.create("/feature", b'{"features":{},"version":2,"status":1}')

    clients: dict[int, KazooClient] = {}
    for broker in (1, 2):
        client = KazooClient(hosts, timeout=BROKER_TIMEOUT * 4)
        client.start()
        clients[broker] = client
        _, czxid = Writer(client, rec).create(
            f"/brokers/ids/{broker}", broker_json(broker, f"az{broker}"), ephemeral=True
        )
        rec.brokers.append(BrokerLife(broker, _sid(client), czxid))
        rec.sessions[f"broker{broker}"] = _sid(client)
    registration3 = broker_json(3, "az3")
    crasher = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _CRASHER,
            hosts,
            "/brokers/ids/3",
            registration3.decode(),
            str(BROKER_TIMEOUT),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        hello = json.loads(crasher.stdout.readline())
        rec.writes.append(
            Written(
                hello["czxid"], "create", "/brokers/ids/3", registration3, 0, hello["session"], None
            )
        )
        rec.brokers.append(BrokerLife(3, hello["session"], hello["czxid"]))

        # broker 1 becomes controller (epoch 1 -> znode created, then bumped to 2)
        b1 = Writer(clients[1], rec)
        b1.create("/controller", controller_json(1), ephemeral=True)
        b1.create("/controller_epoch", b"1")
        version = b1.set("/controller_epoch", b"2", 0)
        ctl = Controller(b1, 1, 2, version)

        topics = {"orders": 3, "audit": 2, "doomed": 1}
        for topic, partitions in topics.items():
            assignment = {str(p): [(p + i) % 3 + 1 for i in range(3)] for p in range(partitions)}
            admin.create(
                f"/brokers/topics/{topic}",
                json.dumps(
                    {
                        "partitions": assignment,
                        "topic_id": f"{topic:_<22}"[:22],
                        "adding_replicas": {},
                        "removing_replicas": {},
                        "version": 3,
                    },
                    separators=(",", ":"),
                ).encode(),
            )
            for p in range(partitions):
                replicas = assignment[str(p)]
                ctl.write_state(topic, p, replicas[0], 0, list(replicas))

        admin.create(
            "/config/topics/orders",
            b'{"version":1,"config":{"unclean.leader.election.enable":"true"}}',
        )
        admin.create(
            "/config/changes/config_change_",
            b'{"version":2,"entity_path":"topics/orders"}',
            sequence=True,
        )
        admin.create("/config/brokers/<default>", b'{"version":1,"config":{}}')
        admin.set(
            "/config/brokers/<default>",
            b'{"version":1,"config":{"unclean.leader.election.enable":"false"}}',
        )

        # ISR churn: followers drop out and come back, leaders move; a leader (broker 2)
        # announces ISR changes through sequential notification znodes
        b2 = Writer(clients[2], rec)
        for rnd in range(12):
            for topic, partitions in (("orders", 3), ("audit", 2)):
                for p in range(partitions):
                    leader, _, isr, _ = ctl.state[(topic, p)]
                    follower = next(r for r in (1, 2, 3) if r != leader)
                    if rnd % 3 == 0 and follower in isr:
                        ctl.change(topic, p, isr=[r for r in isr if r != follower])
                    elif rnd % 3 == 1:
                        ctl.change(topic, p, isr=sorted({*isr, follower}))
                    else:
                        new_leader = next(r for r in isr if r != leader) if len(isr) > 1 else leader
                        ctl.change(topic, p, leader=new_leader)
            path, _ = b2.create(
                "/isr_change_notification/isr_change_",
                b'{"version":1,"partitions":[{"topic":"orders","partition":0}]}',
                sequence=True,
            )
            ctl.w.delete(path)

        # a stale controller epoch: the whole multi fails, nothing changes
        stale = ctl.w.multi(
            [
                ("check", "/controller_epoch", None, ctl.epoch_zk_version + 5),
                ("setData", "/brokers/topics/orders/partitions/0/state", b"{}", -1),
            ]
        )
        assert stale is None

        # broker 3 crashes: its session expires, the controller shrinks ISRs
        crasher.stdin.write("exit\n")
        crasher.stdin.flush()
        crasher.wait(timeout=10)
        deadline = time.monotonic() + 15
        while admin_client.exists("/brokers/ids/3") is not None:
            assert time.monotonic() < deadline, "broker 3's session did not expire"
            time.sleep(0.05)
        rec.brokers[2].end = "session_expired"
        for topic, partitions in (("orders", 3), ("audit", 2)):
            for p in range(partitions):
                leader, _, isr, _ = ctl.state[(topic, p)]
                new_isr = [r for r in isr if r != 3] or [leader]
                new_leader = leader if leader != 3 else new_isr[0]
                ctl.write_state(
                    topic, p, new_leader, ctl.state[(topic, p)][1] + (new_leader != leader), new_isr
                )

        # broker 2 restarts cleanly: closeSession, then a new registration
        _shutdown(clients.pop(2))
        rec.brokers[1].end = "session_closed"
        client = KazooClient(hosts, timeout=BROKER_TIMEOUT * 4)
        client.start()
        clients[22] = client
        _, czxid = Writer(client, rec).create(
            "/brokers/ids/2", broker_json(2, "az2"), ephemeral=True
        )
        rec.brokers.append(BrokerLife(2, _sid(client), czxid))

        # controller failover: broker 1 shuts down cleanly (its /controller and
        # /brokers/ids/1 go with its session); broker 2 takes over with epoch 3
        _shutdown(clients.pop(1))
        rec.brokers[0].end = "session_closed"
        b2 = Writer(client, rec)
        b2.create("/controller", controller_json(2), ephemeral=True)
        version = b2.set("/controller_epoch", b"3", ctl.epoch_zk_version)
        state = ctl.state
        ctl = Controller(b2, 2, 3, version)
        ctl.state = state
        for topic, partitions in (("orders", 3), ("audit", 2), ("doomed", 1)):
            for p in range(partitions):
                leader, epoch, isr, _ = ctl.state[(topic, p)]
                if leader == 1:
                    rest = [r for r in isr if r != 1] or [2]
                    ctl.write_state(topic, p, rest[0], epoch + 1, rest)

        # reassignment of audit-0 through the legacy admin znode, preferred election
        admin.create(
            "/admin/reassign_partitions",
            b'{"version":1,"partitions":[{"topic":"audit","partition":0,"replicas":[2,1]}]}',
        )
        ctl.w.set(
            "/brokers/topics/audit",
            b'{"partitions":{"0":[2,1,3],"1":[3,1,2]},"adding_replicas":{"0":[]},'
            b'"removing_replicas":{"0":[3]},"topic_id":"audit_________________","version":3}',
        )
        ctl.change("audit", 0, leader=2, isr=[2])
        ctl.w.delete("/admin/reassign_partitions")
        admin.create(
            "/admin/preferred_replica_election",
            b'{"version":1,"partitions":[{"topic":"orders","partition":1}]}',
        )
        ctl.change("orders", 1, leader=2)
        ctl.w.delete("/admin/preferred_replica_election")

        # topic deletion
        admin.create("/admin/delete_topics/doomed")
        leader, epoch, isr, _ = ctl.state[("doomed", 0)]
        ctl.write_state("doomed", 0, -1, epoch + 1, isr)
        for path in [
            "/brokers/topics/doomed/partitions/0/state",
            "/brokers/topics/doomed/partitions/0",
            "/brokers/topics/doomed/partitions",
            "/brokers/topics/doomed",
            "/admin/delete_topics/doomed",
        ]:
            ctl.w.delete(path)
        rec.deleted_topics.append("doomed")
        ctl.w.set(
            "/latest_producer_id_block",
            b'{"version":1,"broker":2,"block_start":"0","block_end":"999"}',
        )

        # the end: broker 2 shuts down, the admin reads the final tree, then leaves
        _shutdown(clients.pop(22))
        rec.brokers[-1].end = "session_closed"
        rec.final = _read_tree(admin_client)
    finally:
        if crasher.poll() is None:
            crasher.kill()
            crasher.wait()
        for c in clients.values():
            _shutdown(c)
        _shutdown(admin_client)
    return rec


def _shutdown(client: KazooClient) -> None:
    client.stop()  # sends closeSession: a clean shutdown
    client.close()


def _read_tree(client: KazooClient) -> dict[str, tuple[bytes, object]]:
    out: dict[str, tuple[bytes, object]] = {}
    todo = ["/"]
    while todo:
        path = todo.pop()
        data, stat = client.get(path)
        out[path] = (data, stat)
        for child in client.get_children(path):
            todo.append(("" if path == "/" else path) + "/" + child)
    return out
