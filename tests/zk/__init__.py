"""Tests against a real ZooKeeper server (Debian's zookeeper package)."""

from __future__ import annotations
