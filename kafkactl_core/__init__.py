"""Pure-Python core of kafkactl-audit: Kafka controller semantics, grammars, ZooKeeper decoding.

Nothing in this package imports pyspark or pandas (a test proves it), so it runs in unit tests
without a JVM, inside ``mapInArrow`` workers, and in the ``oracle`` command alike.
"""

from __future__ import annotations

__version__ = "0.1.0"
