"""The driver's JIT compilers, chosen by the bytes of the inputs (``jobs.runtime.jit``)."""

from __future__ import annotations

from pathlib import Path

from jobs.runtime.config import parse_config
from jobs.runtime.jit import QUICK_JIT_MAX_BYTES, QUICK_JIT_OPTIONS, input_bytes, quick_jit
from jobs.runtime.spark_session import LocalSparkSettings, local_options


def _inputs(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    (logs / "broker-1").mkdir(parents=True)
    (logs / "broker-1" / "controller.log").write_bytes(b"x" * 100)
    (logs / "broker-1" / "server.log").write_bytes(b"x" * 30)
    (logs / "broker-2.log").write_bytes(b"x" * 7)
    return logs


def test_input_bytes_counts_files_directories_and_globs(tmp_path: Path) -> None:
    logs = _inputs(tmp_path)
    limit = 10**6
    assert input_bytes([str(logs)], limit) == 137
    assert input_bytes([str(logs / "broker-1" / "server.log")], limit) == 30
    assert input_bytes([str(logs / "*.log"), str(logs / "broker-1")], limit) == 137
    assert input_bytes([str(tmp_path / "nothing-here")], limit) == 0


def test_input_bytes_stops_once_past_the_limit(tmp_path: Path) -> None:
    logs = _inputs(tmp_path)
    assert 10 < input_bytes([str(logs)], 10) < 137
    assert quick_jit([str(logs)], 137)
    assert not quick_jit([str(logs)], 136)


def test_every_clusters_inputs_are_sized(tmp_path: Path) -> None:
    logs = _inputs(tmp_path)
    config = parse_config(
        {
            "lakehouse": {"path": str(tmp_path / "lh")},
            "clusters": [
                {"name": "a", "inputs": {"logs": [str(logs / "broker-1")]}},
                {
                    "name": "b",
                    "inputs": {"zookeeper": [str(logs / "*.log")], "kraft_metadata": [str(logs)]},
                },
            ],
        },
        "test.yaml",
    )
    assert config.input_entries() == [str(logs / "broker-1"), str(logs / "*.log"), str(logs)]
    assert input_bytes(config.input_entries(), 10**6) == 130 + 7 + 137


def _has_quick_jit(options: str) -> bool:
    words = options.split()
    present = [option in words for option in QUICK_JIT_OPTIONS]
    assert len(set(present)) == 1, f"some of the quick JIT options only: {options}"
    return present[0]


def test_only_a_run_over_small_inputs_starts_the_driver_on_c1_alone(tmp_path: Path) -> None:
    small = (str(_inputs(tmp_path)),)
    quick = local_options(LocalSparkSettings(inputs=small))
    assert _has_quick_jit(quick["spark.driver.extraJavaOptions"])
    assert not _has_quick_jit(quick["spark.executor.extraJavaOptions"])
    default = local_options(LocalSparkSettings())
    assert not _has_quick_jit(default["spark.driver.extraJavaOptions"])
    large = tmp_path / "large" / "server.log"
    large.parent.mkdir()
    with large.open("wb") as sparse:
        sparse.truncate(QUICK_JIT_MAX_BYTES + 1)
    big = local_options(LocalSparkSettings(inputs=(str(large.parent), *small)))
    assert not _has_quick_jit(big["spark.driver.extraJavaOptions"])
    mine = "-XX:TieredStopAtLevel=4"
    forced = local_options(
        LocalSparkSettings(inputs=small, extra_conf={"spark.driver.extraJavaOptions": mine})
    )["spark.driver.extraJavaOptions"].split()
    assert max(forced.index(option) for option in QUICK_JIT_OPTIONS) < forced.index(mine)
