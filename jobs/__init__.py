"""The imperative shell: SparkSession, configuration, lakehouse I/O and one module per job."""

from __future__ import annotations
