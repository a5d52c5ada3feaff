"""The stock letter classifier: letters learnt from printed typefaces, for boards whose tiles
no calibration profile has learnt.

Tesseract is trained on text, not on single capitals on tiles photographed at a slant and often
blurred: on rendered photos it misreads about one tile in thirteen (a D for an O above all) and
leaves blurred letters unread.  The stock classifier is the calibrated classifier of
:mod:`vision.letters` trained on the tile faces of many bold typefaces instead of the user's own
tiles (:mod:`calibration.fonts` renders them, once per machine, under the same blurs that
calibration learns), so that a first photo is read almost as well as a calibrated one.
Tesseract still answers where the stock classifier is unsure, and for the letters it has not
learnt (those of tile sets beyond its alphabet: Å, Ñ, Ł, ...).

The samples live in the user's cache folder (:func:`stock_path`); without them every letter
goes to Tesseract, as before.

>>> stock_path().name
'stock-letters.npz'
"""

from __future__ import annotations

import logging
import math
import struct
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

import numpy as np

from vision.cache import cache_dir, write_whole
from vision.letters import FEATURES_VERSION, LetterClassifier

log = logging.getLogger(__name__)

#: Changes whenever the samples are learnt or stored differently (3: saved in the order the
#: classifier keeps them; 4: learnt under heavier defocus too; 5: a blurred letter's weaker
#: strokes no longer taken for its digit; 6: a thin digit off the letter's corner told apart
#: though faint ink joins them): a file of another version is built again.
STOCK_VERSION = 6
STOCK_FILE = "stock-letters.npz"


class StockError(ValueError):
    """The stock samples file cannot be used (what is wrong, and where)."""


def stock_path() -> Path:
    """The stock samples file."""
    return cache_dir() / STOCK_FILE


@dataclass(frozen=True, eq=False)  # compared (and cached) by identity
class StockSamples:
    """Learnt glyph features (N, D) float32, with each one's letter, blur tag and typeface."""

    features: np.ndarray
    labels: np.ndarray  # str
    blurs: np.ndarray  # str
    fonts: tuple[str, ...]
    font_of: np.ndarray

    def save(self, path: Path) -> None:
        """Write the samples, uncompressed (about 15 MB): they are read at every cold start,
        and inflating them took longer than the rest of loading.  They are written in the
        order the classifier keeps them (by blur, then letter), so that it learns them as they
        lie in the file, with nothing copied."""
        order = np.lexsort((self.labels.astype(str), self.blurs.astype(str)))
        write_whole(path, lambda partial: np.savez(
            partial,
            features=self.features.astype(np.float32)[order],
            labels=self.labels.astype(str)[order],
            blurs=self.blurs.astype(str)[order],
            fonts=np.array(self.fonts, dtype=str),
            font_of=self.font_of.astype(np.int16)[order],
            versions=np.array([STOCK_VERSION, FEATURES_VERSION], np.int64),
        ), suffix=".npz")

    @classmethod
    def load(cls, path: Path, letters: frozenset[str] | None = None) -> StockSamples:
        """Read a file written by :meth:`save` (with ``letters``, only the samples of those
        letters, read alone from the file); :class:`StockError` if it is of another version
        or not such a file."""
        try:
            with np.load(path, allow_pickle=False) as data:
                versions = data["versions"].tolist()
                if versions != [STOCK_VERSION, FEATURES_VERSION]:
                    raise StockError(
                        f"{path}: stock samples of version {versions}, this tilecam reads "
                        f"{[STOCK_VERSION, FEATURES_VERSION]}"
                    )
                labels = _read_members(path, ("labels.npy",))["labels.npy"]
                font_of = data["font_of"].astype(np.int64)
                rows = None
                if letters is not None:
                    keep = _among(labels, letters)
                    if not keep.all():
                        rows = np.flatnonzero(keep)
                        labels, font_of = labels[rows], font_of[rows]
                read = _read_members(path, ("features.npy", "blurs.npy"), rows)
                samples = cls(
                    features=read["features.npy"],
                    labels=labels,
                    blurs=read["blurs.npy"],
                    fonts=tuple(data["fonts"].tolist()),
                    font_of=font_of,
                )
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            if isinstance(exc, StockError):
                raise
            raise StockError(f"{path}: not a stock samples file ({exc})") from None
        n = len(samples.labels)
        if samples.features.shape[0] != n or len(samples.blurs) != n or len(samples.font_of) != n:
            raise StockError(f"{path}: {samples.features.shape[0]} features for {n} labels")
        return samples


def _among(labels: np.ndarray, letters: frozenset[str]) -> np.ndarray:
    """``np.isin(labels, letters)``; labels of one code point each compared as numbers (a
    fifth of the time of comparing 20,000 strings)."""
    wanted = np.array(sorted(letters), dtype=str)
    if labels.dtype == wanted.dtype == np.dtype("<U1"):
        return np.isin(labels.view(np.uint32), wanted.view(np.uint32))
    return np.isin(labels, wanted)


def _read_members(path: Path, members: tuple[str, ...],
                  rows: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Arrays stored uncompressed in an ``.npz`` file, read straight from their place in the
    file into arrays of their own (read-only, as they are shared): reading the features
    through :mod:`zipfile` (copied in chunks, checksummed) took most of a cold start's
    loading.  Read, not mapped from the file: the classifier multiplies every glyph with the
    features, and over pages of a file's mapping that took 20 ms a time against 14 over
    memory of the process's own (and up to 100 ms the first time), where reading them costs
    5 ms once.  Read as usual where a member is compressed.

    ``rows`` (ascending indices along the first axis): only those rows, read run by run, so
    that the samples of letters a tile set has not (Ä Ö Ü for English) are neither read nor
    copied out (a copy of 15 MB, whose fresh pages cost more than reading them)."""
    arrays: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(path) as archive:
        infos = {member: archive.getinfo(member) for member in members}
        for member, info in infos.items():
            if info.compress_type != zipfile.ZIP_STORED:
                with archive.open(member) as stream:
                    array = np.lib.format.read_array(stream, allow_pickle=False)
                arrays[member] = array if rows is None else array[rows]
    with open(path, "rb") as file:
        for member, info in infos.items():
            if member in arrays:
                continue
            file.seek(info.header_offset)
            local = file.read(30)
            if local[:4] != b"PK\x03\x04":
                raise ValueError(f"no local header for {member}")
            name_length, extra_length = struct.unpack("<HH", local[26:30])
            file.seek(info.header_offset + 30 + name_length + extra_length)
            version = np.lib.format.read_magic(file)
            read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                           else np.lib.format.read_array_header_2_0)
            shape, fortran, dtype = read_header(file)
            if dtype.hasobject or fortran:
                raise ValueError(f"{member}: not a plain array")
            start = file.tell()
            end = info.header_offset + 30 + name_length + extra_length + info.file_size
            if start + math.prod(shape) * dtype.itemsize > end:
                raise ValueError(f"{member}: shorter than its header says")
            if rows is None:
                array = np.empty(shape, dtype)
                _read_into(file, array)
            else:
                array = np.empty((len(rows), *shape[1:]), dtype)
                row_bytes = math.prod(shape[1:]) * dtype.itemsize
                # Runs of consecutive rows, each read in one piece.
                breaks = np.flatnonzero(np.diff(rows) != 1) + 1
                runs = zip(np.r_[0, breaks].tolist(), np.r_[breaks, len(rows)].tolist(),
                           strict=True) if len(rows) else ()
                for first, last in runs:
                    file.seek(start + int(rows[first]) * row_bytes)
                    _read_into(file, array[first:last])
            array.flags.writeable = False
            arrays[member] = array
    return arrays


def _read_into(file: BinaryIO, array: np.ndarray) -> None:
    """Fill a contiguous array from the file's bytes at its position."""
    if file.readinto(memoryview(array).cast("B")) != array.nbytes:
        raise ValueError("the file ends early")


@lru_cache(maxsize=1)
def _load_cached(path: str, mtime: float) -> StockSamples | None:
    try:
        return StockSamples.load(Path(path))
    except FileNotFoundError:
        return None
    except StockError as exc:
        log.warning("%s; letters go to Tesseract until `tilecam learn-fonts` runs", exc)
        return None


def stock_samples() -> StockSamples | None:
    """The stock samples of this machine, or None (with a warning) when not built."""
    path = stock_path()
    try:
        mtime = path.stat().st_mtime
    except OSError:
        _warn_missing(str(path))
        return None
    return _load_cached(str(path), mtime)


@lru_cache(maxsize=4)
def _warn_missing(path: str) -> None:
    log.warning("no stock letter samples at %s: letters are read by Tesseract alone "
                "(`tilecam learn-fonts` learns them)", path)


def stock_classifier(letters: frozenset[str] | set[str]) -> LetterClassifier | None:
    """A classifier of the stock samples of ``letters`` (a tile set's letters), or None when
    the samples are not built or hold none of them."""
    path = stock_path()
    try:
        mtime = path.stat().st_mtime
    except OSError:
        _warn_missing(str(path))
        return None
    return _classifier_of(str(path), mtime, frozenset(letters))


@lru_cache(maxsize=8)
def _classifier_of(path: str, mtime: float, letters: frozenset[str]) -> LetterClassifier | None:
    # Only the samples of these letters are read from the file (see _read_members).
    try:
        samples = StockSamples.load(Path(path), letters)
    except FileNotFoundError:
        return None
    except StockError as exc:
        log.warning("%s; letters go to Tesseract until `tilecam learn-fonts` runs", exc)
        return None
    if len(samples.labels) == 0:
        return None
    classifier = LetterClassifier()
    classifier.stock = True
    classifier.fit(None, samples.labels, samples.blurs, samples.features)  # as read: no copy
    return classifier


def stock_for_unseen(
    classifier: LetterClassifier | None, letters: frozenset[str] | set[str]
) -> Callable[[], LetterClassifier | None] | None:
    """What gives the stock classifier (loaded only when called), to name the ``letters`` of a
    tile set that a calibrated ``classifier`` has not learnt yet; None when it has learnt them
    all, or is itself the stock classifier, or there is none."""
    if classifier is None or classifier.stock or set(letters) <= classifier.letters:
        return None
    wanted = frozenset(letters)
    return lambda: stock_classifier(wanted)
