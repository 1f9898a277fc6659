"""What every command needs, built once at the entry point and passed down.

Tests build a context around their own session and lakehouse directory with ``replace``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from pyspark.sql import SparkSession

from jobs.lakehouse.port import Lakehouse, open_lakehouse
from jobs.runtime.config import AppConfig
from jobs.runtime.spark_session import LocalSparkSettings, get_spark


def new_run_id() -> str:
    """A sortable, unique run id: UTC time plus a random suffix."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{uuid.uuid4().hex[:8]}"


def spark_for(config: AppConfig) -> SparkSession:
    """The session for ``config``: the active one, or a local one from its ``spark`` settings,
    its driver on C1 alone when the inputs are small (``jobs.runtime.jit``)."""
    settings = config.spark
    return get_spark(
        LocalSparkSettings(
            master=settings.master,
            shuffle_partitions=settings.shuffle_partitions,
            driver_memory=settings.driver_memory,
            extra_conf=dict(settings.conf),
            inputs=config.input_entries(),
        )
    )


@dataclass
class JobContext:
    """Configuration, run id, and the session and lakehouse, created on first use.

    Attributes:
        config: the validated configuration.
        run_id: this run's id, recorded with everything it writes.
        verbose: whether errors show their stack trace.
        spark_factory: builds the session when a command first needs it.
    """

    config: AppConfig
    run_id: str = field(default_factory=new_run_id)
    verbose: bool = False
    spark_factory: Callable[[AppConfig], SparkSession] = spark_for
    _spark: SparkSession | None = field(default=None, repr=False)
    _lakehouse: Lakehouse | None = field(default=None, repr=False)

    @property
    def spark(self) -> SparkSession:
        """The SparkSession (started on first use)."""
        if self._spark is None:
            self._spark = self.spark_factory(self.config)
        return self._spark

    @property
    def lakehouse(self) -> Lakehouse:
        """The lakehouse on the configured engine."""
        if self._lakehouse is None:
            self._lakehouse = open_lakehouse(self.config, self.spark)
        return self._lakehouse
