"""Coverage-guided fuzzing of one target with atheris (libFuzzer): ``make fuzz`` runs each.

Usage: ``python -m tests.fuzz.atheris_main TARGET [libFuzzer options]`` (``--list`` prints the
targets). The corpus lives in ``build/fuzz/<target>``, seeded from the repository's fixtures on
first use. A crash leaves its input as ``build/fuzz/crash-<target>-<hash>`` and exits non-zero;
a fixed crash's input goes to ``tests/fuzz/regressions/<target>/`` (``test_regressions``).
libFuzzer's last line, ``Done N runs in S second(s)``, says how many inputs ran.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["kafkactl_core", "jobs.logparse", "jobs.runtime"]):
    from tests.fuzz.targets import TARGETS

from tests.conftest import REPO
from tests.fuzz.corpus import binary_seeds, real_lines

BUILD = REPO / "build" / "fuzz"


def _seeds(target: str) -> tuple[bytes, ...]:
    if target in ("logs", "gzip"):
        lines = real_lines()
        return tuple(b"".join(lines[start : start + 20]) for start in range(0, len(lines), 20))
    patterns = {
        "zk-snapshot": "zk/real-3.8/snapshot.[0-9a-f]*[0-9a-f]",
        "zk-txnlog": "zk/real-3.8/log.[0-9a-f]*[0-9a-f]",
        "zk-dump": "zk/**/*.txt",
        "kraft": "kraft-codecs/*/*.log",
    }
    if target == "config":
        return tuple(path.read_bytes() for path in sorted((REPO / "conf").glob("*.yaml")))
    return binary_seeds(patterns[target]) if target in patterns else ()


def _corpus(target: str) -> Path:
    corpus = BUILD / target
    if not corpus.exists():
        corpus.mkdir(parents=True)
        for number, seed in enumerate(_seeds(target)):
            (corpus / f"seed-{number}").write_bytes(seed)
    return corpus


def main(argv: list[str]) -> None:
    """Fuzz the target named by ``argv[1]`` with libFuzzer's options after it."""
    if len(argv) < 2 or argv[1] not in TARGETS:
        print("\n".join(TARGETS) if argv[1:] == ["--list"] else f"targets: {', '.join(TARGETS)}")
        sys.exit(0 if argv[1:] == ["--list"] else 2)
    target = argv[1]
    check = TARGETS[target]
    corpus = _corpus(target)
    options = [*argv[2:], f"-artifact_prefix={BUILD}/crash-{target}-", str(corpus)]
    atheris.Setup([argv[0], *options], check)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
