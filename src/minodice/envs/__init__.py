"""Mino Dice for game-AI research: the interfaces people train and search with.

- :mod:`minodice.envs.pettingzoo` — a PettingZoo AEC environment (3–6 players);
- :mod:`minodice.envs.openspiel` — an OpenSpiel Python game registered with ``pyspiel``;
- :mod:`minodice.envs.encoding` — the fixed-size observation vector both use.

They need the optional extra (``pip install 'minodice[research]'``); nothing else in the
package imports them. Every one wraps the engine (:mod:`minodice.core`), the one source
of the rules, and reads a seat's observation from its view (:mod:`minodice.core.view`),
so that none can show a seat what the seat may not know.
"""

from __future__ import annotations


def missing_extra(module: str, exc: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error a research interface raises when the extra it needs is not installed:
    it says what to install, where Python would name only the missing module."""
    return ModuleNotFoundError(
        f"{module} needs the research extra, which is not installed ({exc.name} is "
        "missing): pip install 'minodice[research]' (in a clone: "
        "pip install -e '.[research]', or make research-test)", name=exc.name)
