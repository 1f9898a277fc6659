"""Kafka's ZooKeeper-mode controller, re-implemented: elections, state machines, controller flows.

``ZkController`` (``controller.py``) is the scenario engine, built in layers: the stored state
and plumbing (``controller_state.py``), topics (``topic_lifecycle.py``), ISR changes and
reassignments (``reassignments.py``), broker events (``broker_events.py``) and election requests
(``election_requests.py``). The other modules hold the pieces it orders: election rules
(``election.py``), the ISR-removal rule (``isr.py``), the valid-transition tables (``states.py``)
and the two state machines.
"""

from __future__ import annotations
