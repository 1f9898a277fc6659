"""The lakehouse port and its delta-rs and delta-spark implementations, Arrow types, bookkeeping."""

from __future__ import annotations
