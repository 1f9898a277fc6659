"""Kafka's ZooKeeper-mode controller, re-implemented: elections, state machines, controller flows.

``ZkController`` (``controller.py``) is the scenario engine; the other modules hold the pieces it
orders: election rules (``election.py``), the ISR-removal rule (``isr.py``), the valid-transition
tables (``states.py``) and the two state machines.
"""

from __future__ import annotations
