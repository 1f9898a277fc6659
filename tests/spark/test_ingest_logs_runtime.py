"""The local session's JVM compiles huge generated methods (wide projections, such as the log
tables' 55 typed event fields, exceed HotSpot's 8000-byte JIT limit and would otherwise run
interpreted)."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from jobs.runtime.spark_session import LocalSparkSettings, local_options

pytestmark = pytest.mark.spark
FLAG = "-XX:-DontCompileHugeMethods"


def test_local_options_let_the_jit_compile_huge_methods() -> None:
    options = local_options(LocalSparkSettings())
    assert FLAG in options["spark.driver.extraJavaOptions"].split()
    assert FLAG in options["spark.executor.extraJavaOptions"].split()


def test_the_test_session_runs_with_the_flag(spark: SparkSession) -> None:
    runtime = spark._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    assert FLAG in list(runtime.getInputArguments())
