"""Reading a person's text file, with one plain sentence for whatever goes wrong."""

from __future__ import annotations

from pathlib import Path


def read_text(path: Path) -> str:
    """The file's UTF-8 text; ``ValueError`` with a one-line reason if it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"cannot read {path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"cannot read {path}: it is a folder") from None
    except UnicodeDecodeError:
        raise ValueError(f"cannot read {path}: not UTF-8 text") from None
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
