"""Collection rules for the whole repository (tests, doctests of src, the README).

The research interfaces (``minodice.envs``, ``minodice.vector``) import the optional
``research`` extra at the top: without it their doctests cannot even be collected, so
they are left out here, and ``tests/research`` says why it skips (``make research-test``
installs the extra and runs them all).
"""

from __future__ import annotations

import importlib.util

RESEARCH_MODULES = ("numpy", "gymnasium", "pettingzoo", "pyspiel", "ray")

collect_ignore_glob: list[str] = []
if any(importlib.util.find_spec(name) is None for name in RESEARCH_MODULES):
    collect_ignore_glob += ["src/minodice/envs/*.py", "src/minodice/vector/*.py"]
