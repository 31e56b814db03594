"""Collection rules for the whole repository (tests, doctests of src, the README).

The research interfaces (``minodice.envs``, ``minodice.vector``) import the optional
``research`` extra at the top: without it their doctests cannot even be collected, so
they are left out here, and ``tests/research`` says why it skips (``make research-test``
installs the extra and runs them all).
"""

from __future__ import annotations

import importlib.util


def _missing(*modules: str) -> bool:
    return any(importlib.util.find_spec(name) is None for name in modules)


collect_ignore_glob: list[str] = []
if _missing("numpy", "gymnasium", "pettingzoo", "pyspiel"):
    collect_ignore_glob.append("src/minodice/envs/*.py")
if _missing("numpy"):
    collect_ignore_glob.append("src/minodice/vector/*.py")
