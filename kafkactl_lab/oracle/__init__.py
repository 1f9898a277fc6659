"""Evaluation of Kafka's own test cases (``reference/oracle`` format) against the core."""

from __future__ import annotations
