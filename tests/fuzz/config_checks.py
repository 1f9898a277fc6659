"""The check run on each fuzzed configuration file: ``load_config`` gives a configuration or a
``ConfigError`` of one bounded line naming the file, never another exception."""

from __future__ import annotations

import tempfile
from pathlib import Path

from jobs.runtime.config import AppConfig, ConfigError, load_config

MESSAGE_CHARS = 2000
"""The longest error line allowed: a message quotes a value, never a whole document."""


def check_config(data: bytes) -> None:
    """Load ``data`` as a configuration file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "conf.yaml"
        path.write_bytes(data)
        try:
            config = load_config(path)
        except ConfigError as exc:
            message = str(exc)
            assert message.startswith(f"{path}: "), message
            assert "\n" not in message and len(message) < MESSAGE_CHARS, message[:300]
            return
    assert isinstance(config, AppConfig)
