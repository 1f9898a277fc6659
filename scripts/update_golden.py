"""Regenerate the golden report files under ``tests/golden/`` (run from the repository root).

``python scripts/update_golden.py`` re-runs the pure-Python replay on ``samples/demo``, stores
its gold rows as the case's inputs, and rewrites the expected report files and tables computed
from them. ``--outputs-only`` keeps the stored inputs and rewrites only the outputs (after a
change of the report code). Review the diff before committing it.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    """Write the golden files; print what changed."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--outputs-only", action="store_true", help="keep the stored inputs")
    args = parser.parse_args(argv)
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    cases = importlib.import_module("tests.golden.cases")
    case = cases.GOLDEN / "demo"
    inputs = cases.load_inputs() if args.outputs_only else cases.replay_demo()
    files = {f"input/{name}.jsonl": inputs[name] for name in cases.INPUTS}
    files.update(cases.outputs(inputs))
    for old in sorted(case.rglob("*")) if case.exists() else []:
        if old.is_file() and str(old.relative_to(case)) not in files:
            old.unlink()
            print(f"removed {old.relative_to(case)}")
    for relative, text in sorted(files.items()):
        path = case / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {relative}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
