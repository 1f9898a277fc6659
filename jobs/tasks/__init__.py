"""Functions that run inside Spark tasks (Arrow or pandas batches in and out) for the stages."""

from __future__ import annotations
