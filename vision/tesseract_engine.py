"""Tesseract kept loaded in this process, through the C API of the installed library.

Each run of the ``tesseract`` program loads its language model again: about 80 ms of the
100-120 ms that reading one sheet of glyphs costs.  The library that the program is built on
(``libtesseract``, installed with it) keeps the model loaded in an engine that reads a sheet
in a few milliseconds.  The engine is bound here with :mod:`ctypes` to the seven C functions
it needs, so the same installed Tesseract reads (the same version, language data and results
as the program) with nothing to build; where the library cannot be loaded, the reader falls
back to the program through :mod:`pytesseract`.

Engines are made once per language, page layout and whitelist, and shared; a lock makes each
safe to use from several threads (the tracker and the web server's requests).

>>> engine = engine_for("eng", 6, "ABC")
>>> engine is None or engine is engine_for("eng", 6, "ABC")
True
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import logging
import os
import threading
from functools import lru_cache

import numpy as np

log = logging.getLogger(__name__)

#: Names the library goes by (the Debian package's first).
LIBRARY_NAMES = ("libtesseract.so.5", "libtesseract.so.4", "libtesseract.so")
#: Engine mode 3: whichever engines the language data holds, as the program without ``--oem``.
_OEM_DEFAULT = 3


class EngineError(RuntimeError):
    """The Tesseract library failed to start or to read a page."""


@lru_cache(maxsize=1)
def _library() -> ctypes.CDLL | None:
    """The Tesseract C library with the argument types of the functions used, or None."""
    if os.environ.get("TILECAM_TESSERACT_PROGRAM"):
        return None  # asked to run the program (to compare the two, or to work around a fault)
    names = list(LIBRARY_NAMES)
    found = ctypes.util.find_library("tesseract")
    if found:
        names.append(found)
    for name in names:
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        try:
            lib.TessBaseAPICreate.restype = ctypes.c_void_p
            lib.TessBaseAPICreate.argtypes = []
            lib.TessBaseAPIInit2.restype = ctypes.c_int
            lib.TessBaseAPIInit2.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                             ctypes.c_char_p, ctypes.c_int]
            lib.TessBaseAPISetPageSegMode.argtypes = [ctypes.c_void_p, ctypes.c_int]
            lib.TessBaseAPISetVariable.restype = ctypes.c_int
            lib.TessBaseAPISetVariable.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                   ctypes.c_char_p]
            lib.TessBaseAPISetImage.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                                                ctypes.c_int, ctypes.c_int, ctypes.c_int]
            lib.TessBaseAPIGetHOCRText.restype = ctypes.c_void_p
            lib.TessBaseAPIGetHOCRText.argtypes = [ctypes.c_void_p, ctypes.c_int]
            lib.TessDeleteText.argtypes = [ctypes.c_void_p]
            lib.TessBaseAPIDelete.argtypes = [ctypes.c_void_p]
        except AttributeError:
            continue  # not Tesseract's C API
        return lib
    return None


class TesseractEngine:
    """One loaded Tesseract engine: a language, a page layout and a character whitelist."""

    def __init__(self, lib: ctypes.CDLL, language: str, psm: int, whitelist: str) -> None:
        self._lib = lib
        self._lock = threading.Lock()
        handle = lib.TessBaseAPICreate()
        if not handle:
            raise EngineError("Tesseract could not make an engine")
        if lib.TessBaseAPIInit2(handle, None, language.encode(), _OEM_DEFAULT) != 0:
            lib.TessBaseAPIDelete(handle)
            raise EngineError(f"Tesseract could not load the language data {language!r}")
        self._handle: int | None = handle
        lib.TessBaseAPISetPageSegMode(handle, int(psm))
        for name, value in (("tessedit_char_whitelist", whitelist),
                            # Every character's box and confidence, as the program's
                            # ``-c hocr_char_boxes=1``.
                            ("hocr_char_boxes", "1")):
            if not lib.TessBaseAPISetVariable(handle, name.encode(), value.encode()):
                self.close()
                raise EngineError(f"Tesseract does not know the setting {name!r}")

    def hocr(self, page: np.ndarray) -> str:
        """Tesseract's hOCR of a grey page (uint8, 2-D)."""
        if page.dtype != np.uint8 or page.ndim != 2:
            raise ValueError(f"a page is a 2-D uint8 image, not {page.dtype} {page.shape}")
        page = np.ascontiguousarray(page)
        with self._lock:
            if self._handle is None:
                raise EngineError("the engine is closed")
            self._lib.TessBaseAPISetImage(self._handle, page.ctypes.data, page.shape[1],
                                          page.shape[0], 1, page.strides[0])
            text = self._lib.TessBaseAPIGetHOCRText(self._handle, 0)
            if not text:
                raise EngineError("Tesseract read nothing from the page")
            try:
                return ctypes.string_at(text).decode("utf-8")
            finally:
                self._lib.TessDeleteText(text)

    def close(self) -> None:
        """Free the engine (its model stays loaded until then)."""
        with self._lock:
            if self._handle is not None:
                self._lib.TessBaseAPIDelete(self._handle)
                self._handle = None


_engines: dict[tuple[str, int, str], TesseractEngine] = {}
_engines_lock = threading.Lock()


def engine_for(language: str, psm: int, whitelist: str) -> TesseractEngine | None:
    """The shared engine for these settings, loaded on first use; None where the Tesseract
    library cannot be loaded (the program is then run instead).

    Raises :class:`EngineError` where the library loads but cannot start the language.
    """
    lib = _library()
    if lib is None:
        return None
    key = (language, int(psm), whitelist)
    with _engines_lock:
        engine = _engines.get(key)
        if engine is None:
            engine = _engines[key] = TesseractEngine(lib, language, psm, whitelist)
        return engine


@atexit.register
def _close_all() -> None:
    # The library warns of leaked objects at exit for every engine not deleted.
    with _engines_lock:
        for engine in _engines.values():
            engine.close()
        _engines.clear()
