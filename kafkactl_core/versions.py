"""Kafka release numbers: parsing and ordering.

Behaviour switches by version (the ``KafkaVersion`` profile) build on this ordering.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_VERSION = re.compile(r"^\s*(\d+)\.(\d+)(?:\.(\d+))?(?:[.-]?(?:rc|RC)?\d*)?\s*$")


@dataclass(frozen=True, slots=True, order=True)
class KafkaRelease:
    """A Kafka release ``major.minor.patch``; 0.x feature releases use three parts (``0.10.2``)."""

    major: int
    minor: int
    patch: int = 0

    @classmethod
    def parse(cls, text: str) -> KafkaRelease:
        """Parse ``3.8``, ``0.10.2``, ``2.4.1`` or ``3.9.0-rc3``.

        Raises:
            ValueError: when ``text`` is not a Kafka version.
        """
        match = _VERSION.match(text)
        if match is None:
            raise ValueError(f"not a Kafka version: {text!r} (expected e.g. 2.8 or 0.10.2)")
        major, minor, patch = match.groups()
        return cls(int(major), int(minor), int(patch or 0))

    def __str__(self) -> str:
        if self.major == 0 or self.patch:
            return f"{self.major}.{self.minor}.{self.patch}"
        return f"{self.major}.{self.minor}"

    def at_least(self, text: str) -> bool:
        """Whether this release is ``text`` or newer."""
        return self >= KafkaRelease.parse(text)
