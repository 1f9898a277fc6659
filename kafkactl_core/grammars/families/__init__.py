"""Grammar entries, one module per group of message families (ordered by ``registry``)."""

from __future__ import annotations
