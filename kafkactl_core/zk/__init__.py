"""ZooKeeper dataDir decoding for kafkactl-audit: jute on-disk formats and Kafka's znodes.

Submodules: ``jute`` (records, op codes, bounded reader), ``snapshot`` and ``txnlog``
(streaming decoders of ``snapshot.<zxid>`` and ``log.<zxid>``), ``snappy`` (snappy-java
streams), ``files`` (dataDir names), ``znodes`` (Kafka znode payloads as typed records),
``state`` (Kafka state as of a snapshot, change stream from the logs, broker liveness),
``textdump`` (ZooKeeper's ``SnapshotFormatter``/``TxnLogToolkit`` text output) and ``encode``
(a jute encoder that writes valid files, for fixtures and benchmarks). Pure Python: stdlib only.
"""

from __future__ import annotations
