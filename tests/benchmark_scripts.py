"""The benchmarks are scripts, not a package: tests that check a benchmark's own logic load
its file as a module through this one helper."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str) -> Any:
    """``benchmarks/NAME.py`` as a module, registered under ``minodice_bench_NAME``."""
    spec = importlib.util.spec_from_file_location(f"minodice_bench_{name}",
                                                  BENCHMARKS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module
