"""Lane 1: the pure core and the adapters, no JVM."""

from __future__ import annotations

import pytest

# plain asserts in a shared check module report their operands as a test module's do
pytest.register_assert_rewrite("tests.core.metadata_log_check")
