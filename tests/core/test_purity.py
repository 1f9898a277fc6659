"""kafkactl_core is pure: importing every module loads neither pyspark nor pandas, nor the test
bed beside it (``kafkactl_lab``)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import kafkactl_core

PROBE = """
import importlib, json, pkgutil, sys
import kafkactl_core
names = [m.name for m in pkgutil.walk_packages(kafkactl_core.__path__, "kafkactl_core.")]
for name in names:
    importlib.import_module(name)
heavy = ("pyspark", "pandas", "py4j", "numpy", "pyarrow", "kafkactl_lab")
loaded = sorted(m for m in sys.modules if m.split(".")[0] in heavy)
print(json.dumps({"modules": names, "loaded": loaded}))
"""


def test_core_imports_without_spark_or_pandas() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True
    )
    probe = json.loads(result.stdout)
    assert "kafkactl_core.model" in probe["modules"], "the probe must import the core's modules"
    assert probe["loaded"] == [], f"kafkactl_core loaded {probe['loaded']}"


def test_core_source_never_imports_the_lab() -> None:
    """Also the imports a module makes only inside a function, which the probe above misses."""
    core = Path(kafkactl_core.__file__).parent
    importers = []
    for path in sorted(core.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            if any(name.split(".")[0] == "kafkactl_lab" for name in names):
                importers.append(f"{path.relative_to(core)}:{node.lineno}")
    assert importers == [], f"kafkactl_core imports kafkactl_lab at {importers}"
