"""The test bed beside the audit core: tools that make evidence, never imported by the core.

``kafkactl_lab.real_cluster`` runs real Kafka clusters through scenarios and records what they
wrote; ``kafkactl_lab.simulate`` simulates a cluster's logs, ZooKeeper history and ground truth
(``kafkactl-audit simulate``); ``kafkactl_lab.oracle`` evaluates Kafka's own test cases against
the core (``kafkactl-audit oracle``); ``kafkactl_lab.zk_encode`` writes ZooKeeper snapshot and
transaction-log bytes for fixtures and benchmarks, ``kafkactl_lab.metadata_log_encode`` KRaft
metadata log batches and records from the decoder's own schema tables. The audit core
(``kafkactl_core``) must not import anything from here (``tests/core/test_purity.py``).
"""

from __future__ import annotations
