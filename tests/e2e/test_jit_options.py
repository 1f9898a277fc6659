"""The quick JIT options as the JVM Spark's launcher runs reads them (``jobs.runtime.jit``)."""

from __future__ import annotations

import os
import re
import subprocess

from jobs.runtime.class_archive import launcher_java
from jobs.runtime.jit import QUICK_JIT_OPTIONS


def _code_cache_bytes(java: str, options: tuple[str, ...]) -> int:
    printed = subprocess.run(
        [java, *options, "-XX:+PrintFlagsFinal", "-version"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = re.search(r"\bReservedCodeCacheSize\s*=\s*(\d+)", printed)
    assert found, printed[-2000:]
    return int(found.group(1))


def test_c1_alone_keeps_the_code_cache_both_compilers_get() -> None:
    """C1 alone gets a 48 MiB code cache by default, which Delta's connector fills in a demo run."""
    java = launcher_java(os.environ)
    assert java is not None, "no java for Spark's launcher"
    both = _code_cache_bytes(java, ())
    assert _code_cache_bytes(java, ("-XX:TieredStopAtLevel=1",)) < both
    assert _code_cache_bytes(java, QUICK_JIT_OPTIONS) >= both
