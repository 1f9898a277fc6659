"""The pipeline's stages (one module each, with run_for_cluster), their registry and runner."""

from __future__ import annotations
