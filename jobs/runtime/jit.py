"""Which of HotSpot's JIT compilers a local driver JVM runs, chosen by the size of the inputs.

HotSpot compiles hot code twice by default: first with C1 into profiled code, then with C2 into
fast code. On 2 cores C2's compile thread competes with the run, and the profiled code is slower
than C1's plain code, so a run of seconds pays for C2 and never gets it back. Measured on this
2-core machine (``kafkactl-audit run``, both compilers against C1 alone,
``-XX:TieredStopAtLevel=1``): the demo (0.5 MiB of logs) 30.0 s against 23.4 s (medians of 3);
a simulated 12-broker day of 59 MiB 43.1 s against 33.6 s; its 2 days of 176 MiB 66-74 s
against 63 s; its 4 days of 413 MiB 90 s against 98 s; a 30-broker day of 725 MiB 122 s against
140 s. C1 alone wins up to somewhere between 176 and 413 MiB; the limit leaves room for this
machine's drift. The test suite's one long-lived session keeps both:
C2 pays back over its minutes (15 real-capture runs in one session: 150 s with both, 162 s with
C1 alone).

The choice is made before the session starts, from the bytes the configuration's input
locations hold (every cluster's, as ``check_input_paths`` sees them): the same inputs always
start the same JVM. A user can force either with ``spark.conf``'s
``spark.driver.extraJavaOptions``, whose options come after ours (``-XX:TieredStopAtLevel=4``
turns C2 back on).

C1 alone also shrinks HotSpot's code cache from 240 MiB to 48 MiB, which Delta's Spark
connector fills within the demo's run: HotSpot then stops compiling for the rest of the run
(``CodeCache is full. Compiler has been disabled``), the run took 265 s instead of 224 s, and a
method handle that could not be compiled failed a lease heartbeat (``InternalError: Out of space
in CodeCache``). The quick options keep the 240 MiB both compilers get; it is address space
reserved, committed only as code is compiled.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable

QUICK_JIT_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m")
"""HotSpot's C1 compiler only, with the code cache both compilers get."""

QUICK_JIT_MAX_BYTES = 128 * 1024 * 1024
"""Inputs up to this size start the driver with ``QUICK_JIT_OPTIONS``."""


def input_bytes(entries: Iterable[str], limit: int) -> int:
    """The bytes of the files under ``entries`` (files, directories or globs), counted until
    they pass ``limit``: a large archive is not walked to its end.

    Args:
        entries: configured input locations; one that matches nothing counts nothing.
        limit: stop counting once the total is above this.

    Returns:
        The total, or a number above ``limit``.
    """
    total = 0
    for entry in entries:
        for match in sorted(glob.glob(os.path.expanduser(entry))):
            for path in _files(match):
                try:
                    total += os.stat(path).st_size
                except OSError:
                    continue
                if total > limit:
                    return total
    return total


def _files(path: str) -> Iterable[str]:
    if not os.path.isdir(path):
        yield path
        return
    for folder, _, names in os.walk(path):
        for name in names:
            yield os.path.join(folder, name)


def quick_jit(entries: Iterable[str], limit: int = QUICK_JIT_MAX_BYTES) -> bool:
    """Whether a run over ``entries`` is small enough for C1 alone (see the module docstring).

    Args:
        entries: every input location of the run.
        limit: the largest total that is small enough.

    Returns:
        True when the inputs hold at most ``limit`` bytes.
    """
    return input_bytes(entries, limit) <= limit
