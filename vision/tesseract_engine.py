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

Most of an engine's start (60-70 ms of 75) is not the model: Tesseract parses its built-in
table of "universal ambiguities" (19,000 lines such as ``rn`` -> ``m``) against the language's
characters, and a line is kept only where its characters are the language's.  The table
serves the legacy engine alone, which the LSTM-only language data installed with Debian never
runs, and nothing here lets it be skipped.  So the language data is loaded from a *lean* copy
(:func:`lean_language_data`, made once per machine in the user's cache): the same file with
the letters and digits that the whitelist excludes renamed to private-use characters in the
LSTM's character set, under the same ids.  Nearly every ambiguity line then names a character
the language no longer has and is skipped.  The network, its dictionaries and the whitelisted
characters are the file's own, so pages are read exactly as before (the same hOCR, checked
on the sheets of the real game and of rendered photos); an excluded character is never
answered, whatever its name.

>>> engine = engine_for("eng", 6, "ABC")
>>> engine is None or engine is engine_for("eng", 6, "ABC")
True
"""

from __future__ import annotations

import atexit
import ctypes
import hashlib
import json
import logging
import os
import struct
import threading
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.cache import cache_dir, write_whole

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
    for name in _library_names():
        try:
            lib = _loaded(name)
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
            lib.TessBaseAPIGetDatapath.restype = ctypes.c_char_p
            lib.TessBaseAPIGetDatapath.argtypes = [ctypes.c_void_p]
        except AttributeError:
            continue  # not Tesseract's C API
        return lib
    return None


#: ``dlopen``'s flag to bind a library's functions at their first call.
_RTLD_LAZY = 1


def _loaded(name: str) -> ctypes.CDLL:
    """The library ``name`` loaded with its functions bound lazily, at their first call.

    ``ctypes.CDLL`` always loads with ``RTLD_NOW``: every function that the library and the
    fifty libraries it needs (libarchive, libcurl and theirs) call is looked up at once, 25
    million instructions (about 2 ms) of a cold read, where the engine calls a few hundred of
    them.  The same library, only bound later; ``ctypes.CDLL`` where ``dlopen`` is not to be
    had from the C library."""
    try:
        libc = ctypes.CDLL(None)
        dlopen = libc.dlopen
        dlerror = libc.dlerror
    except (OSError, AttributeError):
        return ctypes.CDLL(name)
    dlopen.restype = ctypes.c_void_p
    dlopen.argtypes = [ctypes.c_char_p, ctypes.c_int]
    dlerror.restype = ctypes.c_char_p
    dlerror.argtypes = []
    handle = dlopen(os.fsencode(name), _RTLD_LAZY)
    if not handle:
        raise OSError(f"{name}: {(dlerror() or b'cannot be loaded').decode(errors='replace')}")
    return ctypes.CDLL(name, handle=handle)


def _library_names() -> Iterator[str]:
    """The names to load the library by: the usual ones, then the one the system's library
    index gives (asked only where none of those loads: it runs ``ldconfig``, 5-7 ms)."""
    yield from LIBRARY_NAMES
    import ctypes.util  # imported here: with it comes subprocess (6 ms of a start)

    found = ctypes.util.find_library("tesseract")
    if found:
        yield found


class TesseractEngine:
    """One loaded Tesseract engine: a language, a page layout and a character whitelist."""

    def __init__(self, lib: ctypes.CDLL, language: str, psm: int, whitelist: str) -> None:
        self._lib = lib
        self._lock = threading.Lock()
        lean = _lean_folder(language, whitelist)
        handle = self._started(lib, language, lean) if lean is not None else None
        if handle is None:
            handle = self._started(lib, language, None)
            if handle is None:
                raise EngineError(f"Tesseract could not load the language data {language!r}")
            if lean is None and not _no_lean_copy(language, whitelist):
                _make_lean_copy(lib, handle, language, whitelist)
        self._handle: int | None = handle
        lib.TessBaseAPISetPageSegMode(handle, int(psm))
        for name, value in (("tessedit_char_whitelist", whitelist),
                            # Every character's box and confidence, as the program's
                            # ``-c hocr_char_boxes=1``.
                            ("hocr_char_boxes", "1")):
            if not lib.TessBaseAPISetVariable(handle, name.encode(), value.encode()):
                self.close()
                raise EngineError(f"Tesseract does not know the setting {name!r}")

    @staticmethod
    def _started(lib: ctypes.CDLL, language: str, folder: Path | None) -> int | None:
        """A new engine with ``language`` loaded from ``folder`` (None: where Tesseract keeps
        its language data), or None where it cannot be loaded."""
        handle = lib.TessBaseAPICreate()
        if not handle:
            raise EngineError("Tesseract could not make an engine")
        datapath = None if folder is None else os.fsencode(folder) + b"/"
        if lib.TessBaseAPIInit2(handle, datapath, language.encode(), _OEM_DEFAULT) != 0:
            lib.TessBaseAPIDelete(handle)
            if folder is not None:
                log.warning("Tesseract could not load the lean language data in %s; loading "
                            "its own", folder)
            return None
        return handle

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


# --------------------------------------------------------------------------- lean language data

#: Changes whenever lean language data is made differently: copies of another version are made
#: again.
LEAN_VERSION = 1
#: Where each lean copy records what it was made from (checked at every start).
_STAMP = "source.json"
#: Components of a ``.traineddata`` file (Tesseract's ``TessdataType``): the legacy engine's
#: character set, and the LSTM's model and character set.
_LEGACY_UNICHARSET, _LSTM, _LSTM_UNICHARSET = 1, 17, 21
#: Characters an LSTM character set names first (no character, joined and broken pieces).
_SPECIAL_UNICHARS = 3
#: Where private-use characters start: names that no ambiguity and no text uses.
_PRIVATE_USE = 0xE000


def _lean_folder_for(language: str, whitelist: str) -> Path:
    """The folder of the lean copy of ``language`` for ``whitelist`` (in the user's cache; one
    per language data folder that ``TESSDATA_PREFIX`` may name)."""
    key = "\0".join((str(LEAN_VERSION), language, whitelist,
                     os.environ.get("TESSDATA_PREFIX", "")))
    return cache_dir() / "tesseract" / hashlib.sha256(key.encode()).hexdigest()[:16]


def _stamp(folder: Path) -> dict | None:
    """What the folder's copy was made from, if that source is unchanged since."""
    try:
        stamp = json.loads((folder / _STAMP).read_text())
        source = os.stat(stamp["source"])
        if [stamp["size"], stamp["mtime_ns"]] == [source.st_size, source.st_mtime_ns]:
            return stamp
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _lean_folder(language: str, whitelist: str) -> Path | None:
    """The folder of the lean copy of ``language`` for ``whitelist``, if it is made and its
    source is unchanged since (a stat of two files)."""
    folder = _lean_folder_for(language, whitelist)
    stamp = _stamp(folder)
    try:
        lean = os.stat(folder / f"{language}.traineddata")
    except OSError:
        return None
    return folder if stamp is not None and stamp.get("lean_size") == lean.st_size else None


def _no_lean_copy(language: str, whitelist: str) -> bool:
    """Whether the language's data, unchanged since it was looked at, can have no lean copy
    (it is not LSTM-only data): it is not read again to find out at every start."""
    stamp = _stamp(_lean_folder_for(language, whitelist))
    return stamp is not None and stamp.get("lean_size", 0) is None


def _make_lean_copy(lib: ctypes.CDLL, handle: int, language: str, whitelist: str) -> None:
    """Make the lean copy of the language an engine has just loaded from Tesseract's own
    folder, for the next start (a few milliseconds, once per machine); a failure only logs."""
    datapath = lib.TessBaseAPIGetDatapath(handle)
    if not datapath:
        return
    source = Path(os.fsdecode(datapath)) / f"{language}.traineddata"
    folder = _lean_folder_for(language, whitelist)
    try:
        stat = source.stat()
        lean = lean_language_data(source.read_bytes(), whitelist)
        if lean is not None:  # else not LSTM-only data: the legacy engine needs the table
            write_whole(folder / f"{language}.traineddata",
                        lambda partial: partial.write_bytes(lean))
        stamp = {"source": str(source), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
                 "lean_size": None if lean is None else len(lean)}
        write_whole(folder / _STAMP, lambda partial: partial.write_text(json.dumps(stamp)))
    except (OSError, ValueError) as exc:
        log.warning("could not make lean Tesseract language data in %s (%s): each start "
                    "loads Tesseract's own, some 60 ms slower", folder, exc)


def _components(data: bytes) -> dict[int, bytes]:
    """The components of a ``.traineddata`` file by type: a count, an offset per type (-1:
    absent), then the components in the order of their types."""
    if len(data) < 4:
        raise ValueError("not Tesseract language data: too short")
    (count,) = struct.unpack_from("<i", data)
    if not 0 < count < 100 or len(data) < 4 + 8 * count:
        raise ValueError(f"not Tesseract language data: {count} components")
    offsets = struct.unpack_from(f"<{count}q", data, 4)
    present = [t for t, offset in enumerate(offsets) if offset >= 0]
    ends = [offsets[t] for t in present[1:]] + [len(data)]
    components = {}
    for t, end in zip(present, ends, strict=True):
        if not 4 + 8 * count <= offsets[t] <= end <= len(data):
            raise ValueError(f"not Tesseract language data: component {t} out of place")
        components[t] = data[offsets[t]:end]
    components[-1] = bytes([count])  # the count, to write the file again
    return components


def _joined(components: dict[int, bytes]) -> bytes:
    count = components[-1][0]
    offsets, body, at = [-1] * count, bytearray(), 4 + 8 * count
    for t in sorted(t for t in components if t >= 0):
        offsets[t] = at + len(body)
        body += components[t]
    return struct.pack(f"<i{count}q", count, *offsets) + bytes(body)


def lean_language_data(data: bytes, whitelist: str) -> bytes | None:
    """The ``.traineddata`` file ``data`` with the letters and digits not of ``whitelist``
    renamed (to private-use characters, ids unchanged) in its LSTM character set; None where
    the file is not LSTM-only data (the legacy engine, which reads the ambiguities, would
    then run).  Raises ValueError for what is not language data.

    A character's id, properties, case partner and everything that refers to it stay as they
    were; only its name changes, and a renamed character is never answered, being excluded
    by the whitelist.  Punctuation keeps its name (the dictionaries look up the hyphen, the
    apostrophe and a few others by name).

    >>> names = ["NULL 0 Common 0", "Joined 7 0 Latin 1 0 1 Joined",
    ...          "|Broken|0|1 f 0 Common 2 10 2 |Broken|0|1", "A 5 0 Latin 4 0 3 A",
    ...          "a 3 0 Latin 3 0 4 a\\t# a", "- 10 0 Common 5 10 5 -"]
    >>> unichars = "\\n".join(["6", *names, ""]).encode()
    >>> data = _joined({_LSTM: b"net", _LSTM_UNICHARSET: unichars, -1: bytes([24])})
    >>> lean = _components(lean_language_data(data, "A"))
    >>> lean[_LSTM], lean[_LSTM_UNICHARSET].decode().splitlines()[5:]
    (b'net', ['\\ue005 3 0 Latin 3 0 4 \\ue005', '- 10 0 Common 5 10 5 -'])
    """
    components = _components(data)
    if _LSTM not in components or _LSTM_UNICHARSET not in components or (
        _LEGACY_UNICHARSET in components
    ):
        return None
    allowed = set(whitelist)
    lines = components[_LSTM_UNICHARSET].decode("utf-8").split("\n")
    for i in range(1 + _SPECIAL_UNICHARS, len(lines)):
        fields = lines[i].split("\t")[0].split(" ")
        name = fields[0]
        if not name.isalnum() or set(name) <= allowed:
            continue
        renamed = chr(_PRIVATE_USE + i)
        fields[0] = renamed
        if len(fields) >= 8 and fields[7] == name:
            fields[7] = renamed  # the normalised form
        lines[i] = " ".join(fields)
    components[_LSTM_UNICHARSET] = "\n".join(lines).encode("utf-8")
    return _joined(components)


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
