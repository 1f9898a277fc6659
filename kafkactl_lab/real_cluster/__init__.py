"""Real Kafka clusters on loopback, driven through a scenario, their evidence captured.

``python -m kafkactl_lab.real_cluster --kafka 3.9.1 --mode zk --scenario FILE --out DIR``:

* ``release``: the Kafka release's jars (``org.apache.kafka:kafka_2.13:<v>`` and the release's
  tools, with their runtime dependencies) installed once into the jar cache of
  ``jobs.runtime.spark_jars``, and the logging configuration Kafka ships with that release;
* ``processes``: JVMs in process groups of their own, free loopback ports;
* ``cluster``: one ZooKeeper and N brokers (ZooKeeper mode);
* ``scenario``: the YAML scenario format (a strict pydantic model);
* ``zk_view``: what ZooKeeper says about the cluster (kazoo reads), for wait conditions;
* ``admin``: Kafka's own command-line tools run as Java classes;
* ``runner``: runs a scenario's steps against a cluster;
* ``capture``: the capture directory, with ZooKeeper's own ``TxnLogToolkit`` dump as truth.
"""

from __future__ import annotations
