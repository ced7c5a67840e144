"""Run every ``benchmarks/bench_*.py`` module's ``main()`` (or the ones named).

    .venv/bin/python -m benchmarks            # all of them
    .venv/bin/python -m benchmarks ocr audit  # bench_ocr.py and bench_audit.py

Each benchmark runs with its own defaults (``sys.argv`` is reset so a benchmark that
parses arguments does not see the runner's). A failing benchmark is reported and the
others still run; the exit status is 1 if any failed.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import traceback
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent


def discover(names: list[str]) -> list[Path]:
    """The benchmark files, all or those whose name (with or without ``bench_``) is given."""
    found = sorted(BENCH_DIR.glob("bench_*.py"))
    if not names:
        return found
    wanted = {n.removeprefix("bench_").removesuffix(".py") for n in names}
    unknown = wanted - {p.stem.removeprefix("bench_") for p in found}
    if unknown:
        raise SystemExit(f"no benchmark named {sorted(unknown)} in {BENCH_DIR}")
    return [p for p in found if p.stem.removeprefix("bench_") in wanted]


def run(path: Path) -> bool:
    """Import one benchmark file and call its ``main()``; True when it finished."""
    spec = importlib.util.spec_from_file_location(f"benchmarks.{path.stem}", path)
    if spec is None or spec.loader is None:
        print(f"{path}: cannot be imported", file=sys.stderr)
        return False
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # worker processes (spawn) import it by this name
    saved_argv = sys.argv
    sys.argv = [str(path)]
    start = time.perf_counter()
    try:
        spec.loader.exec_module(module)
        main = getattr(module, "main", None)
        if main is None:
            print(f"{path}: has no main()", file=sys.stderr)
            return False
        main()
        return True
    except Exception:
        traceback.print_exc()
        print(f"{path.name}: FAILED", file=sys.stderr)
        return False
    finally:
        sys.argv = saved_argv
        print(f"-- {path.name} done in {time.perf_counter() - start:.1f}s\n", flush=True)


def main() -> int:
    """Run the benchmarks named on the command line (all when none); return the exit code."""
    results = {}
    for path in discover(sys.argv[1:]):
        print(f"== {path.name}", flush=True)
        results[path.name] = run(path)
    failed = [name for name, ok in results.items() if not ok]
    print(f"{len(results) - len(failed)} of {len(results)} benchmarks finished"
          + (f"; failed: {', '.join(failed)}" if failed else ""))  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
