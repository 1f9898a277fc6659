"""The local session's Python worker daemon: PySpark's own, importing PySpark from its package.

Spark starts the daemon (and so every worker it forks) with ``$SPARK_HOME/python/lib/pyspark.zip``
first on ``PYTHONPATH``. Python cannot cache bytecode for a zip archive, so each process compiles
the PySpark modules it imports from source: about 1.2 s of CPU per process on this project's
tasks. When PySpark is pip-installed, ``SPARK_HOME`` is the installed package itself and the zip
is a copy of that package; this module drops such a zip from ``sys.path`` (the package's
compiled modules are then found in site-packages) and runs ``pyspark.daemon``'s manager.

A zip is dropped only when the folder three levels above it is a Python package and that
package's parent folder is on ``sys.path``: the zip then belongs to the very package that is
imported instead. A ``SPARK_HOME`` that is a Spark distribution keeps its zip.

The local session builder names this module in ``spark.python.daemon.module``; nothing here may
import PySpark before ``sys.path`` is settled.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence, Set

DAEMON_MODULE = "jobs.runtime.python_daemon"
"""The value of ``spark.python.daemon.module`` that runs this module."""


def _packaged_copy(entry: str, on_path: Set[str]) -> bool:
    """Whether ``entry`` is ``<package>/python/lib/pyspark.zip`` of a package whose parent
    folder is in ``on_path`` (absolute paths)."""
    if os.path.basename(entry) != "pyspark.zip":
        return False
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(entry))))
    parent = os.path.dirname(package)
    return os.path.isfile(os.path.join(package, "__init__.py")) and parent in on_path


def without_packaged_copies(path: Sequence[str]) -> list[str]:
    """``path`` without the ``pyspark.zip`` entries that copy an importable PySpark package.

    Args:
        path: a module search path (``sys.path``).

    Returns:
        The same entries in the same order, less those copies.
    """
    on_path = {os.path.abspath(entry) for entry in path if entry}
    return [entry for entry in path if not _packaged_copy(entry, on_path)]


def main() -> None:
    """Settle ``sys.path``, then run PySpark's daemon as ``python -m pyspark.daemon`` would."""
    sys.path[:] = without_packaged_copies(sys.path)
    import pyspark.daemon

    pyspark.daemon.manager()


if __name__ == "__main__":
    main()
