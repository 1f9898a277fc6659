"""The driver's runtime: SparkSession, Delta's jars, configuration, job context, output."""

from __future__ import annotations
