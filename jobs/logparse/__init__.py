"""Kafka log files into parsed rows: inputs, the reader, candidates, the Arrow grammar executor."""

from __future__ import annotations
