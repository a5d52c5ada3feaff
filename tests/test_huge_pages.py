"""The images a read makes come from memory backed by huge pages (vision.huge_pages)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")

# Images of 1 MiB each (below numpy's own 4 MiB threshold for asking for huge pages), 32 MiB
# in all, made and touched in a fresh process: the page faults of their first touch.
TOUCH = """
import resource, sys
import numpy as np
sys.path.insert(0, {root!r})
from vision.huge_pages import use_huge_pages
if {huge}:
    assert use_huge_pages()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
images = [np.ones((1024, 1024), np.uint8) for _ in range(32)]
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(huge: bool) -> int:
    root = str(Path(__file__).resolve().parents[1])
    out = subprocess.run([sys.executable, "-c", TOUCH.format(root=root, huge=huge)],
                         capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux") or not THP.exists()
                    or "[never]" in THP.read_text(),
                    reason="no transparent huge pages on this system")
def test_large_images_touch_far_fewer_pages() -> None:
    plain, huge = _faults(False), _faults(True)
    # 32 MiB in 4 KiB pages is 8,192 faults; in 2 MiB pages, 16.
    assert plain > 4000
    assert huge < plain / 4, (plain, huge)


def test_asking_again_is_harmless() -> None:
    from vision.huge_pages import use_huge_pages

    first = use_huge_pages()
    assert use_huge_pages() == first
