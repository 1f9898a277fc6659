"""The SparkSession: reuse the active one (Databricks, spark-submit), or build a local one.

The local session is tuned for a laptop or a 2-core CI box: few shuffle partitions, no UI, UTC,
``PYSPARK_PYTHON`` pinned to this interpreter so workers import our packages, and their daemon
``jobs.runtime.python_daemon`` (PySpark imported from its package, not recompiled from
``pyspark.zip`` in every worker) while they run this interpreter. Under spark-submit
or on a platform the session's settings belong to the platform and are left alone.

Delta's Spark extension is configured only when its classes are loadable in the JVM (a cluster
that has delta-spark, ``spark-submit --packages io.delta:...``, or a local session given the jars
``make setup`` installed: ``jobs.runtime.spark_jars``). The JVM is started first with the local
settings, then asked, so the answer reflects the classpath the session will have.

``spark-submit --py-files kafkactl_audit-*.whl`` puts the wheel on the driver's path, but PySpark
adds only ``.zip``/``.egg``/``.jar`` py-files to the Python workers' path (SPARK-6764; YARN alone
ships them by ``PYTHONPATH``): each submitted wheel is added again as a ``.zip`` (a wheel is a zip
archive) so that the tasks import the same code as the driver.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources

from pyspark import SparkConf, SparkContext, SparkFiles
from pyspark.sql import SparkSession

from jobs.runtime.class_archive import java_options as class_archive_options
from jobs.runtime.jit import QUICK_JIT_OPTIONS, quick_jit
from jobs.runtime.python_daemon import DAEMON_MODULE
from jobs.runtime.spark_jars import delta_jars

log = logging.getLogger("kafkactl_audit.runtime")

DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
_APPENDED_JAVA_OPTIONS = ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions")
"""JVM options of ``extra_conf`` come after the session's own (UTC, the log configuration)."""


@dataclass(frozen=True)
class LocalSparkSettings:
    """How to build a local session when no active one exists.

    Attributes:
        master: the Spark master, ``local[*]`` by default.
        shuffle_partitions: ``spark.sql.shuffle.partitions``; small on small machines.
        driver_memory: ``spark.driver.memory``.
        extra_conf: any other Spark settings, applied last.
        inputs: the run's input locations. When given and small, the driver JVM runs
            HotSpot's C1 compiler only (``jobs.runtime.jit``); ``None`` keeps both compilers
            (a long-lived session, e.g. the tests').
    """

    master: str = "local[*]"
    shuffle_partitions: int = 4
    driver_memory: str = "2g"
    extra_conf: Mapping[str, str] = field(default_factory=dict)
    inputs: Sequence[str] | None = None


def local_options(settings: LocalSparkSettings) -> dict[str, str]:
    """The Spark settings of a local session, with Delta's jars and the driver's class archive
    (``jobs.runtime.class_archive``) when ``make setup`` installed them.

    ``spark.jars`` of ``settings.extra_conf`` keeps Delta's jars after its own; its JVM options
    come after the session's own.
    """
    log4j = resources.files("jobs").joinpath("log4j2.properties")
    # Whole-stage code generation emits methods above HotSpot's 8000-byte JIT limit for wide
    # projections (the log grammars' 55 typed fields): without this flag they run interpreted,
    # several times slower.
    java_options = (
        f"-Duser.timezone=UTC -Dlog4j2.configurationFile=file:{log4j} -XX:-DontCompileHugeMethods"
    )
    # Only the driver's: in local mode it is the only JVM, and executors elsewhere have another
    # class path.
    # Sized only here, when a local JVM is about to start: an active or submitted session
    # never walks the inputs.
    quick = settings.inputs is not None and quick_jit(settings.inputs)
    jit = QUICK_JIT_OPTIONS if quick else ()
    driver_options = " ".join(filter(None, [java_options, *jit, class_archive_options()]))
    options = {
        "spark.master": settings.master,
        "spark.app.name": "kafkactl-audit",
        "spark.sql.shuffle.partitions": str(settings.shuffle_partitions),
        "spark.default.parallelism": str(max(2, settings.shuffle_partitions)),
        "spark.driver.memory": settings.driver_memory,
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.extraJavaOptions": driver_options,
        "spark.executor.extraJavaOptions": java_options,
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.sources.partitionColumnTypeInference.enabled": "false",
        "spark.databricks.delta.snapshotPartitions": "2",
    }
    jars = [str(jar) for jar in delta_jars()]
    if jars:
        options["spark.jars"] = ",".join(jars)
    for key, value in settings.extra_conf.items():
        if key == "spark.jars" and jars:
            value = ",".join([value, *jars])
        elif key in _APPENDED_JAVA_OPTIONS:
            value = f"{options[key]} {value}"
        options[key] = value
    return options


def delta_extension_loadable() -> bool:
    """Whether Delta's Spark extension classes can be loaded by this process's JVM.

    Starts the JVM gateway (without a SparkContext) if none is running yet.
    """
    SparkContext._ensure_initialized()
    jvm = SparkContext._jvm
    if jvm is None:
        return False
    return bool(jvm.org.apache.spark.util.Utils.classIsLoadable(DELTA_EXTENSION))


def parallelism(spark: SparkSession) -> int:
    """Tasks Spark runs at once (2 when the session cannot say, e.g. Spark Connect).

    Args:
        spark: the session.

    Returns:
        Its default parallelism, at least 1.
    """
    try:
        return max(1, int(spark.sparkContext.defaultParallelism))
    except (NotImplementedError, AttributeError):  # Spark Connect has no SparkContext
        return 2


def session_has_delta(spark: SparkSession) -> bool:
    """Whether ``spark`` was started with Delta's extension and can load it."""
    extensions = spark.conf.get("spark.sql.extensions", "") or ""
    return DELTA_EXTENSION in extensions and delta_extension_loadable()


def ship_submitted_wheels(spark: SparkSession) -> list[str]:
    """Put every wheel of ``spark.submit.pyFiles`` on the Python workers' path.

    PySpark adds a submitted py-file to the workers' ``sys.path`` only when its name ends in
    ``.zip``, ``.egg`` or ``.jar``; a ``.whl`` reaches the executors but stays off their path,
    so tasks fail with ``ModuleNotFoundError``. Each wheel's local copy (spark-submit placed it
    in the SparkFiles directory) is added again under a ``.zip`` name. Idempotent; without
    submitted wheels (a local session, Databricks) nothing is touched.

    Args:
        spark: the running session.

    Returns:
        The ``.zip`` names added by this call.
    """
    submitted = spark.conf.get("spark.submit.pyFiles", "") or ""
    wheels = [e for e in submitted.split(",") if e.lower().endswith(".whl")]
    if not wheels:
        return []
    root = SparkFiles.getRootDirectory()
    # A directory of its own: addPyFile copies the file into the SparkFiles root by name. The
    # directory belongs to this SparkContext, so a copy already there means it was added.
    staging = os.path.join(root, "kafkactl-audit-wheels")
    added: list[str] = []
    for entry in wheels:
        name = os.path.basename(entry)
        zip_name = name[: -len(".whl")] + ".zip"
        target = os.path.join(staging, zip_name)
        if os.path.exists(target):
            continue
        local = os.path.join(root, name)
        if not os.path.exists(local):
            log.warning("submitted wheel %s has no local copy; tasks may not import it", name)
            continue
        os.makedirs(staging, exist_ok=True)
        shutil.copyfile(local, target)
        spark.sparkContext.addPyFile(target)
        added.append(zip_name)
        log.debug("submitted wheel %s added to the Python workers' path as %s", name, zip_name)
    return added


def get_spark(settings: LocalSparkSettings | None = None) -> SparkSession:
    """Return the active SparkSession, or build one.

    Args:
        settings: local-session settings (defaults when None); ignored under spark-submit,
            whose command line owns the configuration.

    Returns:
        The session.
    """
    active = SparkSession.getActiveSession()
    if active is not None:
        ship_submitted_wheels(active)
        return active
    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ
    builder = SparkSession.builder
    if under_submit:
        SparkContext._ensure_initialized()
    else:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        options = local_options(settings or LocalSparkSettings())
        if os.environ["PYSPARK_PYTHON"] == sys.executable:
            # The workers run this interpreter, which imports this package: the daemon can be ours.
            options.setdefault("spark.python.daemon.module", DAEMON_MODULE)
        SparkContext._ensure_initialized(
            conf=SparkConf(loadDefaults=False).setAll(list(options.items()))
        )
        for key, value in options.items():
            builder = builder.config(key, value)
    if delta_extension_loadable():
        configured = SparkConf().get("spark.sql.extensions", "") or ""
        if DELTA_EXTENSION not in configured:
            extensions = ",".join(filter(None, [configured, DELTA_EXTENSION]))
            builder = builder.config("spark.sql.extensions", extensions)
            builder = builder.config("spark.sql.catalog.spark_catalog", DELTA_CATALOG)
    spark = builder.getOrCreate()
    if not under_submit:
        spark.sparkContext.setLogLevel("ERROR")
    ship_submitted_wheels(spark)
    return spark
