"""The research interfaces without their extra: importing one says what to install, where
Python would name only the module it missed (a user of the base install meets this)."""

from __future__ import annotations

import importlib
import sys

import pytest


@pytest.mark.parametrize(("module", "needs"), [
    ("minodice.envs.pettingzoo", "gymnasium"), ("minodice.envs.openspiel", "pyspiel"),
])
def test_a_research_interface_without_its_extra_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch, module: str, needs: str) -> None:
    monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setitem(sys.modules, needs, None)  # as if not installed: its import fails
    with pytest.raises(ModuleNotFoundError) as missing:
        importlib.import_module(module)
    assert f"{module} needs the research extra" in str(missing.value)
    assert "pip install 'minodice[research]'" in str(missing.value)
    assert missing.value.name == needs
