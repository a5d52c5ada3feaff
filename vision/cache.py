"""What tilecam builds once per machine and keeps (stock letter samples, the blur estimate's
tables, a lean copy of Tesseract's language data): where it lies, and how a file of it is
written so that no reader ever sees half of one.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> write_whole(folder / "made" / "note.txt", lambda partial: partial.write_text("kept"))
>>> (folder / "made" / "note.txt").read_text(), sorted(p.name for p in (folder / "made").iterdir())
('kept', ['note.txt'])
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


def cache_dir() -> Path:
    """Where tilecam keeps what it builds once per machine: ``$TILECAM_CACHE``, else
    ``$XDG_CACHE_HOME/tilecam``, else ``~/.cache/tilecam``."""
    own = os.environ.get("TILECAM_CACHE")
    if own:
        return Path(own)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tilecam"


def write_whole(path: Path, write: Callable[[Path], object], suffix: str = "") -> None:
    """Make ``path`` (and its folder) by ``write`` into a partial file beside it, then put that
    in its place at once: another process reading ``path`` meanwhile sees the old file or the
    new one, never half of one.  ``suffix`` ends the partial file's name, for writers that
    would add their own (``np.save`` adds ``.npy`` to a name without it).  A failed write
    leaves no partial file behind; its error is raised."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial{suffix}")
    try:
        write(partial)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
