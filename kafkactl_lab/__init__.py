"""The test bed beside the audit core: tools that make evidence, never imported by the core.

``kafkactl_lab.real_cluster`` runs real Kafka clusters through scenarios and records what they
wrote. The audit core (``kafkactl_core``) must not import anything from here.
"""

from __future__ import annotations
