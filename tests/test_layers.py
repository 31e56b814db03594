"""The package's layering, as the contract in ``pyproject.toml`` states it, holds.

The contract (import-linter's ``[tool.importlinter]``) says which package may import which
(``__main__ > cli > client > server | tui > play > bots > text > i18n > core | files``),
that no package's modules import each other in a circle, and that the core uses no front
end, network, storage or terminal library. A new upward import or circle fails here with
import-linter's report, which names the importing line.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import minodice

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(minodice.__file__).resolve().parent

# import-linter's command-line entry point, run by the interpreter running the tests, so
# that it finds the same installed `minodice` as they do.
LINT_IMPORTS = ("import sys; from importlinter.cli import lint_imports_command; "
                "sys.exit(lint_imports_command())")


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    contracts: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def test_the_import_contracts_hold() -> None:
    result = subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, str(ROOT / "pyproject.toml"), "--no-cache",
         "--no-logo"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert f"Contracts: {len(_contracts())} kept, 0 broken." in report, report


def test_every_part_of_the_package_has_a_layer() -> None:
    """A new top-level package or module outside the layers would be checked by nothing."""
    (layers,) = [c for c in _contracts() if c.get("id") == "layers"]
    layer_lines = layers["layers"]
    assert isinstance(layer_lines, list)
    named = {name.strip() for line in layer_lines for name in str(line).replace(":", "|")
             .split("|")}
    parts = {p.stem for p in PACKAGE.iterdir()
             if (p.is_dir() and (p / "__init__.py").exists())
             or (p.suffix == ".py" and p.name != "__init__.py")}
    assert parts, PACKAGE
    assert parts <= named, f"not in any layer: {sorted(parts - named)}"
    assert named <= parts, f"layers that are no part of the package: {sorted(named - parts)}"
