"""JVM processes of a cluster: each in a process group of its own, stopped or killed by id.

Every process is started with ``start_new_session``, so it leads its own group and a signal to
the group reaches whatever it started. ``kill`` is ``kill -9`` of the group (a crash);
``terminate`` is SIGTERM (Kafka's shutdown hook: a controlled shutdown) with a SIGKILL after a
timeout. Nothing here signals a process it did not start.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

JAVA_LOCALE = ["-Duser.language=en", "-Duser.country=US", "-Duser.timezone=UTC"]
"""Every JVM here runs in en_US and UTC, so that log and dump timestamps are UTC."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def java_executable() -> str:
    """``$JAVA_HOME/bin/java`` when set, else ``java`` on the PATH.

    Raises:
        FileNotFoundError: no Java found.
    """
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    found = shutil.which("java")
    if found is None:
        raise FileNotFoundError("java is not installed (set JAVA_HOME or put java on the PATH)")
    return found


class JavaProcess:
    """One JVM in its own process group, its stdout and stderr in a file."""

    def __init__(self, name: str, command: Sequence[str], output: Path) -> None:
        """Describe the process; ``start`` runs it.

        Args:
            name: what to call it in messages (``broker 2``, ``zookeeper``).
            command: the full command line.
            output: the file that receives stdout and stderr (appended).
        """
        self.name = name
        self.command = list(command)
        self.output = output
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def running(self) -> bool:
        """Whether the process was started and has not exited."""
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start the process (in a new session, hence a new process group)."""
        if self.running:
            raise RuntimeError(f"{self.name} is already running")
        self.output.parent.mkdir(parents=True, exist_ok=True)
        with self.output.open("ab") as out:
            self.proc = subprocess.Popen(
                self.command,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

    def _signal_group(self, sig: signal.Signals) -> None:
        # only while the leader is not reaped: a reaped pid may be someone else's by now
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)

    def kill(self) -> None:
        """``kill -9`` the process group and reap the process."""
        if self.proc is None:
            return
        self._signal_group(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def terminate(self, timeout: float = 60) -> None:
        """SIGTERM (a JVM runs its shutdown hooks), SIGKILL after ``timeout`` seconds."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self._signal_group(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._signal_group(signal.SIGKILL)
                self.proc.wait(timeout=30)

    def tail(self, chars: int = 2000) -> str:
        """The last characters of the process's output, for error messages."""
        try:
            return self.output.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return ""


def wait_for_port(process: JavaProcess, port: int, timeout: float) -> None:
    """Wait until ``port`` on 127.0.0.1 accepts connections.

    Raises:
        RuntimeError: the process exited or the port stayed closed for ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not process.running:
            raise RuntimeError(f"{process.name} exited: {process.tail()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{process.name} did not open port {port} in {timeout:.0f}s")
