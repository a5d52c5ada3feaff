"""Transparent huge pages for the images a read makes (Linux with glibc; elsewhere nothing).

A read of a 1920x1080 frame makes and drops some 40 MB of images (grey pictures, rectified
boards, the deblurring's planes, the glyph finder's masks), most of them between 128 KiB and
4 MiB.  glibc's allocator hands out blocks of that size as fresh mappings and returns them
on ``free``, so every 4 KiB page of every image is first touched through a page fault: some
9,600 faults, a tenth of a cold read's time.  The kernel backs memory with 2 MiB pages, one
fault each, only where asked (``madvise``) under its usual setting (``madvise`` in
``/sys/kernel/mm/transparent_hugepage/enabled``); numpy asks only for arrays of 4 MiB and
more, OpenCV never.

:func:`use_huge_pages` does in a running process what glibc's tunable
``glibc.malloc.hugetlb=1`` does from a process's start (which a process cannot set for
itself): large blocks come from the allocator's heap, which is kept rather than returned,
grown in steps of :data:`HEAP_STEP` and advised for huge pages.  Measured on one core, a cold
read of a 1080p frame: 9,614 page faults to 1,565, its time 0.91 of what it was.  The price
is memory kept: the heap does not shrink below its largest size (about 10 MB more resident
memory for that read).
"""

from __future__ import annotations

import ctypes
import logging
import sys
import threading
from functools import lru_cache

log = logging.getLogger(__name__)

#: ``mallopt`` parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD = -1
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3
#: ``madvise``'s advice to back a range with transparent huge pages (Linux).
_MADV_HUGEPAGE = 14
_HUGE_PAGE = 2 << 20

#: How much the heap grows at a time: a 1080p read's images fit in one step.
HEAP_STEP = 64 << 20
#: Blocks up to this size come from the heap (glibc's largest allowed threshold).
MMAP_THRESHOLD = 32 << 20
#: Free memory at the heap's top kept up to this much rather than returned.
TRIM_THRESHOLD = 512 << 20

_lock = threading.Lock()
_state: dict[str, int] = {}


@lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    """The C library with the functions used, where it is glibc on Linux; else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.gnu_get_libc_version.restype = ctypes.c_char_p
        libc.gnu_get_libc_version()
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.mallopt.restype = ctypes.c_int
        libc.sbrk.argtypes = [ctypes.c_ssize_t]
        libc.sbrk.restype = ctypes.c_void_p
        libc.malloc.argtypes = [ctypes.c_size_t]
        libc.malloc.restype = ctypes.c_void_p
        libc.free.argtypes = [ctypes.c_void_p]
        libc.free.restype = None
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        libc.madvise.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


def use_huge_pages() -> bool:
    """Arrange (once per process) for large blocks to come from a heap backed by huge pages,
    and advise any part the heap has grown by since the last call; whether that is in effect
    (False where the C library is not glibc on Linux, or it refused).  Cheap after the first
    call (one system call).

    >>> use_huge_pages() in (True, False)
    True
    """
    with _lock:
        if _state.get("off"):
            return False
        libc = _libc()
        if libc is None:
            _state["off"] = 1
            return False
        if "start" not in _state:
            if not (libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                    and libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
                    and libc.mallopt(_M_TOP_PAD, HEAP_STEP)):
                _state["off"] = 1
                return False
            _state["start"] = int(libc.sbrk(0) or 0)
            _state["advised"] = _state["start"]
            # A block larger than the heap's free space grows it by a whole step, kept once
            # freed.
            block = libc.malloc(4 << 20)
            libc.free(block)
        end = int(libc.sbrk(0) or 0)
        low = -(-_state["advised"] // _HUGE_PAGE) * _HUGE_PAGE
        high = end // _HUGE_PAGE * _HUGE_PAGE
        if high > low:
            if libc.madvise(low, high - low, _MADV_HUGEPAGE) != 0:
                # Kernels built without transparent huge pages: the heap still serves.
                log.debug("madvise(MADV_HUGEPAGE) refused: errno %d", ctypes.get_errno())
            _state["advised"] = high
        return True
