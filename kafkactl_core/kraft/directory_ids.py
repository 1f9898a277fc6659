"""Log directory ids (KIP-858): the reserved sentinels and the online-directory test.

Kafka prints a directory id as its ``Uuid.toString()``: URL-safe base64 of the 16 bytes without
padding. Three reserved ids have meanings of their own (``DirectoryId.java``): MIGRATING (the
partition predates directory assignment), UNASSIGNED (the broker will pick) and LOST.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence

MIGRATING = "AAAAAAAAAAAAAAAAAAAAAA"
"""``DirectoryId.MIGRATING``: directory unknown, the partition predates KIP-858."""

UNASSIGNED = "AAAAAAAAAAAAAAAAAAAAAQ"
"""``DirectoryId.UNASSIGNED``: not yet assigned; the broker chooses."""

LOST = "AAAAAAAAAAAAAAAAAAAAAg"
"""``DirectoryId.LOST``: the directory that held the replica is gone."""

SENTINEL_NAMES: dict[str, str] = {MIGRATING: "MIGRATING", UNASSIGNED: "UNASSIGNED", LOST: "LOST"}
"""Base64 sentinel id -> its name."""

SENTINELS_BY_NAME: dict[str, str] = {name: uid for uid, name in SENTINEL_NAMES.items()}
"""Sentinel name -> its base64 id."""


def from_text(text: str) -> str:
    """A directory id from its base64 form or a sentinel name (``UNASSIGNED``)."""
    return SENTINELS_BY_NAME.get(text, text)


def to_text(directory: str) -> str:
    """A directory id for display: the sentinel's name, or the base64 id itself."""
    return SENTINEL_NAMES.get(directory, directory)


def is_reserved(directory: str) -> bool:
    """``DirectoryId.reserved``: the high 64 bits are zero and the low 64 bits are below 100."""
    raw = _decode(directory)
    if raw is None:
        return False
    return raw[:8] == b"\0" * 8 and int.from_bytes(raw[8:], "big") < 100


def is_online(directory: str, online_dirs: Sequence[str]) -> bool:
    """``DirectoryId.isOnline``: whether a replica in ``directory`` is on an online directory.

    UNASSIGNED and MIGRATING count as online, LOST never; a broker that registered no
    directories (MV before ``3.7-IV2``) has all its directories online.

    Args:
        directory: the replica's directory id.
        online_dirs: the broker's online directories.

    Returns:
        Whether the replica's directory is online.
    """
    if directory in (UNASSIGNED, MIGRATING):
        return True
    if directory == LOST:
        return False
    if not online_dirs:
        return True
    return directory in online_dirs


def _decode(directory: str) -> bytes | None:
    try:
        raw = base64.urlsafe_b64decode(directory + "=" * (-len(directory) % 4))
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 16 else None
