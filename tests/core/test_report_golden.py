"""Golden report: the report files and tables computed from the stored demo inputs must equal the
committed ones byte for byte (regenerate with ``python scripts/update_golden.py`` and review the
diff), and computing them twice gives the same bytes (reports regenerate idempotently).
"""

from __future__ import annotations

import pytest

from tests.golden.cases import expected, load_inputs, outputs


@pytest.fixture(scope="module")
def computed():
    return outputs(load_inputs())


def test_same_files_as_committed(computed):
    assert sorted(computed) == sorted(expected())


@pytest.mark.parametrize("name", sorted(expected()))
def test_file_matches_golden(computed, name):
    assert computed[name] == expected()[name], (
        f"{name} differs from tests/golden/demo/{name}: run `python scripts/update_golden.py "
        "--outputs-only` and review the diff"
    )


def test_regenerates_identically(computed):
    assert outputs(load_inputs()) == computed
