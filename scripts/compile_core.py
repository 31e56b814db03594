"""Build the optional compiled engine: the typed core compiled with mypyc, beside the source.

    python scripts/compile_core.py                 # build build/compiled (unless current)
    python scripts/compile_core.py --force         # build it again anyway
    python scripts/compile_core.py --out DIR       # build into DIR instead
    python scripts/compile_core.py --check         # exit 0 if it is current, 1 (why) if not

The default install (``pip install .``) is pure Python and needs no compiler; this is an
extra for speed (``make compiled``). It copies ``src/minodice`` to ``build/compiled`` and
compiles the engine's modules there with mypyc (shipped with mypy) and the C compiler;
run anything with ``PYTHONPATH=build/compiled`` to use it, for instance
``PYTHONPATH=build/compiled .venv/bin/minodice simulate --games 10000``. The copy is a
snapshot: ``--check`` (and the benchmark and ``tests/test_compiled.py``) compare it with
the source, so an edit is never shadowed by an old build.

Compiled are the modules of the engine's hot path: ``state`` (which includes
``GameConfig`` and ``Phase``), ``tables`` and ``roundlog``. The value objects (dice,
faces, hands, actions) and the views stay Python: they are pickled to bots' processes,
which mypyc's classes would not allow as they are. Results are the same games as the
pure engine's (``tests/test_compiled.py``); a compiled ``GameState`` cannot be pickled
(nothing here pickles one) and has no ``__slots__`` attribute.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src" / "minodice"
DEFAULT_OUT = ROOT / "build" / "compiled"
MODULES = ("minodice/core/state.py", "minodice/core/tables.py", "minodice/core/roundlog.py")
STAMP = "COMPILED.json"


def source_digest() -> str:
    """sha256 of every file of the package (the build is a copy of all of it)."""
    h = hashlib.sha256()
    for path in sorted(SOURCE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and not path.name.endswith(
                (".so", ".pyd")):
            h.update(path.relative_to(SOURCE).as_posix().encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def stale_reason(out: Path) -> str | None:
    """None if ``out`` holds a build of the current source for this Python, else why not."""
    try:
        stamp = json.loads((out / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"no compiled core in {out} (make compiled)"
    if stamp.get("python") != sys.implementation.cache_tag:
        return f"{out} was built for {stamp.get('python')}, not {sys.implementation.cache_tag}"
    if stamp.get("source") != source_digest():
        return f"{out} is older than src/minodice (make compiled)"
    return None


def missing_tools() -> str | None:
    """Why mypyc cannot build here (no mypyc, no C compiler), or None."""
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed (it comes with mypy: pip install -e '.[dev]')"
    if importlib.util.find_spec("setuptools") is None:
        return "mypyc needs setuptools (pip install setuptools)"
    compiler = (os.environ.get("CC") or str(sysconfig.get_config_var("CC") or "cc")).split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler}; on Debian: apt-get install build-essential)"
    return None


def build(out: Path) -> None:
    """Copy the package to a fresh folder beside ``out``, compile there, then swap it in."""
    digest = source_digest()
    staging = out.with_name(f"{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(SOURCE, staging / "minodice",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    proc = subprocess.run([sys.executable, "-m", "mypyc", *MODULES], cwd=staging,
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise SystemExit(f"mypyc failed:\n{proc.stdout}{proc.stderr}")
    shutil.rmtree(staging / "build")  # mypyc's C sources and objects
    env = dict(os.environ, PYTHONPATH=str(staging))
    where = subprocess.run([sys.executable, "-c", "import minodice.core.state as s; "
                            "print(s.__file__)"], env=env, cwd=staging, capture_output=True,
                           text=True, check=True).stdout.strip()
    if where.endswith(".py"):
        shutil.rmtree(staging, ignore_errors=True)
        raise SystemExit(f"the build did not give a compiled engine: {where}")
    (staging / STAMP).write_text(json.dumps({
        "source": digest, "python": sys.implementation.cache_tag, "modules": MODULES,
    }, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to build")
    parser.add_argument("--force", action="store_true", help="build even if current")
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    args = parser.parse_args()
    out: Path = args.out.resolve()
    reason = stale_reason(out)
    if args.check:
        print(reason or f"{out} is current")
        return 1 if reason else 0
    if reason is None and not args.force:
        print(f"{out} is current")
        return 0
    tools = missing_tools()
    if tools:
        print(f"cannot build the compiled core: {tools}", file=sys.stderr)
        return 1
    build(out)
    print(f"built the compiled core in {out}: use it with PYTHONPATH={out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
