"""How much fuzzing a run does: the hypothesis settings of every property in ``tests/fuzz``.

``make test`` runs the ``ci`` budget (a few dozen examples per property, the whole folder well
under a minute); ``make fuzz`` sets ``KAFKACTL_FUZZ=fuzz`` for thousands per property (and
``KAFKACTL_FUZZ_EXAMPLES`` to choose how many).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_EXAMPLES = {"ci": 40, "fuzz": 10_000}
PROFILE = os.environ.get("KAFKACTL_FUZZ", "ci")
EXAMPLES = int(os.environ.get("KAFKACTL_FUZZ_EXAMPLES", _EXAMPLES[PROFILE]))
DEADLINE_MS = 30_000
"""Per example: inputs are at most tens of kilobytes, decoded in milliseconds; thirty seconds
leaves room for a loaded machine while still failing on a hang (a loop that never ends)."""

settings.register_profile(
    "kafkactl-fuzz",
    max_examples=EXAMPLES,
    deadline=DEADLINE_MS,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=PROFILE == "ci",
    print_blob=True,
)
FUZZ = settings.get_profile("kafkactl-fuzz")
"""The settings of a property whose example costs about a millisecond."""


def scaled(fraction: float) -> settings:
    """``FUZZ`` with a fraction of its examples, for properties whose example costs more.

    Args:
        fraction: the share of ``EXAMPLES`` to run (at least one example).

    Returns:
        The settings.
    """
    return settings(FUZZ, max_examples=max(1, int(EXAMPLES * fraction)))
