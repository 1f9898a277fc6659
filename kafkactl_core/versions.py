"""Kafka release numbers: parsing and ordering.

Behaviour switches by version (the ``KafkaVersion`` profile) build on this ordering.
"""

from __future__ import annotations

import functools
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
        return self >= _parsed(text)


@functools.cache
def _parsed(text: str) -> KafkaRelease:
    """``KafkaRelease.parse`` once per text: the rules ask ``at_least`` of every row they
    derive (a release is immutable, so one instance serves every caller)."""
    return KafkaRelease.parse(text)


FEATURE_RELEASES: tuple[KafkaRelease, ...] = tuple(
    KafkaRelease(major, minor, patch)
    for major, minor, patch in (
        *(
            (0, minor, patch)
            for minor, patches in ((8, 3), (9, 1), (10, 3), (11, 1))
            for patch in range(patches)
        ),
        *((1, minor, 0) for minor in range(2)),
        *((2, minor, 0) for minor in range(9)),
        *((3, minor, 0) for minor in range(10)),
        *((4, minor, 0) for minor in range(2)),
    )
)
"""Kafka's feature releases, oldest first: the releases a replay's rules can be those of."""

LAST_ZOOKEEPER_RELEASE = KafkaRelease(3, 9)
"""The last release with ZooKeeper mode (4.0 removed it)."""

_PROTOCOL = re.compile(r"^\s*(\d+)\.(\d+)(?:\.(\d+))?(?:-?IV(\d+))?\s*$", re.IGNORECASE)

_LATEST_IV = 1 << 16
"""Stands for "the newest IV of that release" when a protocol version names no IV."""


@dataclass(frozen=True, slots=True, order=True)
class ProtocolVersion:
    """An ``inter.broker.protocol.version`` or KRaft metadata version, e.g. ``3.2-IV0``.

    A version without an ``-IVn`` suffix (``3.2``) means the newest IV of that release, as
    Kafka's ``MetadataVersion.fromVersionString`` resolves it; it orders after every explicit IV
    of the release.
    """

    release: KafkaRelease
    iv: int = _LATEST_IV

    @classmethod
    def parse(cls, text: str) -> ProtocolVersion:
        """Parse ``3.2-IV0``, ``2.8-IV1``, ``0.10.1-IV2``, ``3.8`` or ``0.8.2``.

        Args:
            text: the version string as configured.

        Returns:
            The version.

        Raises:
            ValueError: when ``text`` is not a protocol version.
        """
        match = _PROTOCOL.match(text)
        if match is None:
            raise ValueError(f"not a protocol version: {text!r} (expected e.g. 3.2-IV0 or 2.8)")
        major, minor, patch, iv = match.groups()
        release = KafkaRelease(int(major), int(minor), int(patch or 0))
        return cls(release, _LATEST_IV if iv is None else int(iv))

    @classmethod
    def latest_of(cls, release: KafkaRelease) -> ProtocolVersion:
        """The newest protocol version a release speaks (its default IBP)."""
        if release.major == 0:
            return cls(release)
        return cls(KafkaRelease(release.major, release.minor))

    def __str__(self) -> str:
        if self.iv == _LATEST_IV:
            return str(self.release)
        return f"{self.release}-IV{self.iv}"

    def at_least(self, text: str) -> bool:
        """Whether this version is ``text`` or newer."""
        return self >= ProtocolVersion.parse(text)
