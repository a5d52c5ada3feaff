"""Board reading on every labelled real photo, each set on its own.

Real photos decide; rendered ones (``bench/eval_rendered.py``) only help.  The photos are read
from ``../shared/data/photos/`` beside the repository (the run says so and stops, with status
0, when that folder is absent):

``scrabscrap-game01``
    ``scrabscrap-game01/image-1.jpg`` ... ``image-27.jpg``, one photo after each move of a real
    German game (tile set ``de``) from a fixed camera; boards in ``boards_after_each_move.txt``
    (sections ``## after move N``; lower case is a blank standing for that letter).
``jheidel-20141025``
    The seven ``jheidel/IMG_20141025_*.jpg`` labelled in ``jheidel/boards.txt`` (English set;
    ``?`` a blank tile): a test layout of random letters in two stages, not a game, taken by
    hand; 164048 is strongly motion-blurred.
``jheidel-20151016``
    The two ``jheidel/IMG_20151016_*.jpg``, labelled in the project's own
    ``bench/labels/jheidel-20151016.txt``: a real casual English game (it holds non-words),
    taken by hand, the first photo with the board turned a quarter.

A known board is compared with the reading as the reader writes it: a blank (``?`` or a lower
case letter in the labels) is right when read ``?``.

Each photo is read four ways (``--ways``):

- ``uncalibrated``: ``read_board(image, None, tileset)``, what ``tilecam read`` does without a
  profile and with ``--no-dictionary``;
- ``uncalibrated + words``: that reading after ``check_reading(reading, Lexicon.default(),
  tileset)``, what ``tilecam read`` does by default;
- ``calibrated``: ``read_board(image, profile)`` with a leave-one-out profile: a fresh
  ``Profile(tileset=...)`` extended (:meth:`Profile.extend`) with every OTHER photo of the same
  set and its known board, in the set's order (move order, or file name order = time);
- ``calibrated + words``: that reading after the word check.

The uncalibrated reading and each calibrated reading are made once; the word check runs on
them (its time is added to the read time, as ``tilecam read`` counts it).  There is no German
word list bundled, so for ``scrabscrap-game01`` the ``+ words`` ways are reported as n/a.

How the leave-one-out profiles are built (``--loo``), since 27 x 26 extensions of the game's
photos would take too long (an extension costs 0.3 s early in the game to 2 s late on one core;
late photos hold more tiles, each learnt under every blur):

- ``halving`` (default): the photos 0..N-1 of a set (in the set's order) are halved
  recursively; a profile that is to read the photos of a range ``lo..hi`` holds every photo
  outside it; it is deep-copied, the copy extended with the second half (in order) reads the
  first half, and the profile itself extended with the first half reads the second half,
  down to ranges of one photo.  Each left-out photo is thus read by a profile extended once
  with every other photo (and only those), built once and shared with its neighbours' as far
  as they agree, at about N log2 N extensions (about 130 for the game instead of 702).  The
  order of extension differs from a fresh profile's: at each halving the far half comes
  first, so the photos nearest the left-out one (in the set's order) are added last
  (:func:`outside_in` gives the order).  Since a profile keeps the newest samples of a letter
  beyond 60 and refits occupancy on its 12 newest photos, the profile is not identical to a
  fresh one extended in photo order, but it learnt from exactly the same photos.
- ``exact``: the photos are extended in order into one running *prefix* profile; before photo
  i is added to it, a deep copy of the prefix (photos 0..i-1) is extended with photos
  i+1..N-1 in order and reads photo i: identical to a fresh profile extended with the other
  photos in order (checked sample for sample), at (N-1) + N(N-1)/2 extensions (377 for the
  game; about 10 minutes on 2 busy cores).

With ``--jobs 2`` (default) a set of more than 8 photos is split into two tasks (the halving's
two halves, or for ``exact`` two contiguous runs of about equal count of extensions, each with
its own prefix) run in two processes, with the sets' uncalibrated readings; the results do not
depend on ``--jobs``.  Read times are then measured with the other core busy.  A photo in
which :meth:`Profile.extend` finds no board (``BoardNotFound``) is left out of every profile
and listed.  Note that the game's neighbouring frames show the same tiles from the same camera,
so its leave-one-out profile has seen nearly every tile of the left-out frame (only its last
move is new): an optimistic score next to ``bench/eval_scrabscrap.py``'s frames-1..N-1
protocol.

Scored like ``bench/eval_rendered.py`` (chesscog's categories; true grid corners are unknown for
real photos, so a grid found wrong shows up as squares wrong): per set and way the squares
wrong / squares (per-square error), how many of those the reading did not flag as unsure
(*unflagged*: confidence at least ``vision.read.UNSURE_SHOWN``; a letter invented where the
reading should have said it could not tell), the boards perfect, and the squares wrong by
kind: a photo in which no board is found (``BoardNotFound``: all 225 squares wrong, and
listed), a tile read as empty, an empty square read as a tile, a letter read as another letter,
and a blank error
(a blank read as a letter, or a letter as a blank).  A reading that matches the known board far
better when turned is listed as *turned* (orientation wrong).  Also per set: the photos whose
reading carries the motion-blur warning (``reading.warnings()``, with ``reading.motion_blur`` in
squares), the median wall time of a read (``time.perf_counter`` around the read and check), and
a line comparing the word check on vs off: squares it made right, squares it made wrong (and
wrong squares it changed to another wrong letter).  ``--show-errors`` lists every wrong square
per photo as ``H8 C->D 0.43``: column A-O, row 1-15 from the top as GCG names squares (of the
upright board), the true and the read square, and the reader's confidence.

``--json FILE`` saves every photo's results (board read, wrong squares, times, warnings) for
later comparison.  ``--save-readings FILE`` keeps every reading before the word check, and
``--replay FILE`` scores the word check again on them as it now stands, in seconds, without
reading a photo (the readings as read stay as they were).

Usage: ``.venv/bin/python bench/eval_real.py [--sets game01,jheidel-20141025,jheidel-20151016]
[--ways uncalibrated,uncalibrated+words,calibrated,calibrated+words] [--show-errors]
[--json FILE] [--loo halving|exact] [--jobs 2] [--save-readings FILE | --replay FILE]``
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import pickle
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from calibration.profile import Profile  # noqa: E402
from scorer.lexicon import Lexicon  # noqa: E402
from scorer.tiles import TileSet  # noqa: E402
from vision.locate import BoardNotFound  # noqa: E402
from vision.read import UNSURE_SHOWN, BoardReading, read_board  # noqa: E402
from vision.rectified import UNSURE, UnreadableImage  # noqa: E402
from vision.wordcheck import check_reading  # noqa: E402

PHOTOS = REPO.parent / "shared" / "data" / "photos"
LABELS = REPO / "bench" / "labels"
SIZE = 15
EMPTY = "."
BLANK = "?"
WAYS = ("uncalibrated", "uncalibrated + words", "calibrated", "calibrated + words")
#: Kinds of wrong squares, in the table's order.
KINDS = ("not_found", "tile_as_empty", "empty_as_tile", "letter", "blank")
KIND_HEADINGS = ("no board", "tile->empty", "empty->tile", "letter", "blank")


# ------------------------------------------------------------------------------ the sets


@dataclass(frozen=True)
class PhotoSet:
    """One set of labelled real photos."""

    name: str
    folder: Path
    tileset: str
    camera: str
    #: Photo file name -> known board (15 rows), in the set's order.
    boards: dict[str, list[str]]
    note: str = ""


def parse_sections(text: str) -> list[tuple[str, list[str]]]:
    """Sections of a label file: ``## HEADER`` followed by 15 rows of 15 squares; other lines
    starting with ``#`` are comments, blank lines are skipped.

    >>> parse_sections("# note\\n## a.jpg (x)\\n" + "...............\\n" * 15)[0][0]
    'a.jpg (x)'
    """
    sections: list[tuple[str, list[str]]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("## "):
            sections.append((line[3:].strip(), []))
        elif not line or line.startswith("#"):
            continue
        elif not sections:
            raise ValueError(f"line {number}: a board row before any '## ' header")
        else:
            sections[-1][1].append(line)
    for header, rows in sections:
        if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
            raise ValueError(f"section {header!r}: expected {SIZE} rows of {SIZE} squares, got "
                             f"{[len(row) for row in rows]}")
    return sections


def game_boards(text: str) -> dict[str, list[str]]:
    """``boards_after_each_move.txt``: photo name (``image-N.jpg``) -> board after move N, in
    move order."""
    boards: dict[tuple[int, str], list[str]] = {}
    for header, rows in parse_sections(text):
        move = re.match(r"after move (\d+)", header)
        if move is None:
            raise ValueError(f"unexpected section {header!r}")
        expected = re.search(r"expected (\S+\.jpg)", header)
        name = expected.group(1) if expected else f"image-{move.group(1)}.jpg"
        if name != f"image-{move.group(1)}.jpg":
            raise ValueError(f"section {header!r}: photo {name} does not match move")
        boards[int(move.group(1)), name] = rows
    return {name: rows for (_, name), rows in sorted(boards.items())}


def named_boards(text: str, prefix: str = "") -> dict[str, list[str]]:
    """A ``## FILENAME ...`` label file: file name -> board, those starting with ``prefix``,
    sorted by name (the phones' names are times)."""
    boards = {header.split()[0]: rows for header, rows in parse_sections(text)}
    return {name: boards[name] for name in sorted(boards) if name.startswith(prefix)}


def photo_sets(photos: Path = PHOTOS, labels: Path = LABELS) -> dict[str, PhotoSet | str]:
    """The sets by name; a set whose photos or labels are missing is a string saying so."""
    out: dict[str, PhotoSet | str] = {}
    game = photos / "scrabscrap-game01"
    labels_game = game / "boards_after_each_move.txt"
    out["scrabscrap-game01"] = PhotoSet(
        "scrabscrap-game01", game, "de", "fixed camera",
        game_boards(labels_game.read_text(encoding="utf-8")),
        "a real German game, one photo after each move",
    ) if labels_game.is_file() else f"labels not found: {labels_game}"
    jheidel = photos / "jheidel"
    labels_14 = jheidel / "boards.txt"
    out["jheidel-20141025"] = PhotoSet(
        "jheidel-20141025", jheidel, "en", "handheld",
        named_boards(labels_14.read_text(encoding="utf-8"), "IMG_20141025_"),
        "a test layout of random letters in two stages, not a game",
    ) if labels_14.is_file() else f"labels not found: {labels_14}"
    labels_15 = labels / "jheidel-20151016.txt"
    out["jheidel-20151016"] = PhotoSet(
        "jheidel-20151016", jheidel, "en", "handheld",
        named_boards(labels_15.read_text(encoding="utf-8"), "IMG_20151016_"),
        "a real casual English game (holds non-words)",
    ) if labels_15.is_file() else f"labels not found: {labels_15}"
    for name, found in out.items():
        if isinstance(found, PhotoSet):
            missing = [p for p in found.boards if not (found.folder / p).is_file()]
            if missing:
                out[name] = f"photos not found in {found.folder}: {', '.join(missing)}"
    return out


SET_ALIASES = {"game01": "scrabscrap-game01"}


# ------------------------------------------------------------------------------ scoring


@dataclass(frozen=True)
class Wrong:
    """One square read wrong: ``want`` the known square as read (``?`` a blank), ``got`` the
    square read (``""`` when no board was found)."""

    row: int
    col: int
    want: str
    got: str
    kind: str
    confidence: float | None = None

    @property
    def unflagged(self) -> bool:
        """Read wrong without the reading saying it is unsure of the square (its confidence
        at least :data:`vision.read.UNSURE_SHOWN`; a tile read empty is warned of where its
        square is among :meth:`BoardReading.maybe_tiles`): a mistake nobody is warned of."""
        if self.kind == "not_found" or self.confidence is None:
            return self.kind != "not_found"
        if self.got == EMPTY:
            # A square read empty is named among the squares that may hold a tile.
            return self.confidence > UNSURE
        return self.confidence >= UNSURE_SHOWN

    @property
    def square(self) -> str:
        return square_name(self.row, self.col)

    def __str__(self) -> str:
        text = f"{self.square} {self.want}->{self.got or '_'}"
        return text if self.confidence is None else f"{text} {self.confidence:.2f}"


def square_name(row: int, col: int) -> str:
    """GCG's name of a square: column letter A-O, then row 1-15 from the top.

    >>> square_name(7, 7), square_name(0, 14)
    ('H8', 'O1')
    """
    return f"{chr(ord('A') + col)}{row + 1}"


def as_read(rows: Sequence[str]) -> list[str]:
    """A known board as the reader writes it: a blank (lower case letter) is ``?``."""
    return ["".join(BLANK if ch.islower() else ch for ch in row) for row in rows]


def kind_of(want: str, got: str) -> str:
    """The kind of error of a square known as ``want`` read as ``got`` (not equal)."""
    if want != EMPTY and got == EMPTY:
        return "tile_as_empty"
    if want == EMPTY and got != EMPTY:
        return "empty_as_tile"
    if BLANK in (want, got):
        return "blank"
    return "letter"


def score(read: Sequence[str] | None, known: Sequence[str],
          confidence: np.ndarray | None = None) -> list[Wrong]:
    """The squares of ``read`` (15 rows; None: no board found) that differ from ``known``
    (lower case: a blank), row by row; with the reader's ``confidence`` (15, 15) when given."""
    want_rows = as_read(known)
    wrong: list[Wrong] = []
    for r in range(SIZE):
        for c in range(SIZE):
            want = want_rows[r][c]
            if read is None:
                wrong.append(Wrong(r, c, want, "", "not_found"))
                continue
            got = read[r][c]
            if got != want:
                conf = None if confidence is None else float(confidence[r][c])
                wrong.append(Wrong(r, c, want, got, kind_of(want, got), conf))
    return wrong


def counts(wrong: Iterable[Wrong]) -> Counter[str]:
    """Wrong squares by kind."""
    return Counter(w.kind for w in wrong)


def turned_better(read: Sequence[str] | None, known: Sequence[str]) -> tuple[int, int] | None:
    """``(quarter turns, squares wrong)`` when the reading turned counter-clockwise by some
    quarter turns matches the known board better than as read (orientation wrong), else None."""
    if read is None:
        return None
    grid = np.array([list(row) for row in read])
    want = np.array([list(row) for row in as_read(known)])
    wrong = [int((np.rot90(grid, k) != want).sum()) for k in range(4)]
    best = min(range(1, 4), key=lambda k: wrong[k])
    return (best, wrong[best]) if wrong[best] < wrong[0] // 2 else None


def word_check_effect(off: Sequence[Wrong], on: Sequence[Wrong]) -> tuple[int, int, int]:
    """Squares the word check made right, made wrong, and changed from one wrong to another,
    from the wrong squares of one photo without (``off``) and with (``on``) it."""
    before = {(w.row, w.col): w.got for w in off}
    after = {(w.row, w.col): w.got for w in on}
    made_right = sum(1 for sq in before if sq not in after)
    made_wrong = sum(1 for sq in after if sq not in before)
    still = sum(1 for sq, got in after.items() if sq in before and before[sq] != got)
    return made_right, made_wrong, still


# ------------------------------------------------------------------------------ reading


@dataclass
class Result:
    """One photo read one way."""

    photo: str
    way: str
    board: list[str] | None
    seconds: float
    wrong: list[Wrong]
    motion_blur: float = 0.0
    warnings: list[str] = field(default_factory=list)
    orientation: int | None = None
    error: str = ""
    #: Set when the photo could not be read this way at all (no calibration photo).
    skipped: str = ""
    #: The reading itself, before the word check (kept for ``--save-readings``).
    reading: BoardReading | None = field(default=None, repr=False)

    @property
    def blur_warned(self) -> bool:
        return any("blurred" in w for w in self.warnings)


@lru_cache(maxsize=8)
def _image(path: str) -> np.ndarray:
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        raise UnreadableImage(f"cannot decode {path}")
    return image


@lru_cache(maxsize=2)
def _lexicon(tileset: str) -> Lexicon | None:
    """The word list the word check uses: the bundled one for English, none otherwise."""
    return Lexicon.default() if TileSet.named(tileset).code == "en" else None


def _read_ways(photos: PhotoSet, name: str, profile: Profile | None,
               base: str) -> list[Result]:
    """Read one photo with ``profile`` (``base`` is ``uncalibrated`` or ``calibrated``), and
    after the word check when the set has a word list."""
    known = photos.boards[name]
    image = _image(str(photos.folder / name))
    started = time.perf_counter()
    try:
        reading = read_board(image, profile, photos.tileset)
    except BoardNotFound as exc:
        seconds = time.perf_counter() - started
        missing = [Result(name, base, None, seconds, score(None, known), error=str(exc))]
        if _lexicon(photos.tileset) is not None:
            missing.append(Result(name, f"{base} + words", None, seconds, score(None, known),
                                  error=str(exc)))
        return missing
    return results_of(reading, time.perf_counter() - started, name, known, photos.tileset, base)


def results_of(reading: BoardReading, seconds: float, name: str, known: list[str],
               tileset: str, base: str) -> list[Result]:
    """A reading scored as read, and after the word check where the set has a word list."""
    results = [Result(name, base, list(reading.board), seconds,
                      score(reading.board, known, reading.confidence),
                      reading.motion_blur, reading.warnings(), reading.orientation,
                      reading=reading)]
    lexicon = _lexicon(tileset)
    if lexicon is not None:
        started = time.perf_counter()
        checked = check_reading(reading, lexicon, TileSet.named(tileset))
        check_seconds = time.perf_counter() - started
        results.append(Result(name, f"{base} + words", list(checked.board),
                              seconds + check_seconds,
                              score(checked.board, known, checked.confidence),
                              checked.motion_blur, checked.warnings(), checked.orientation))
    return results


def save_readings(path: Path, results: dict[str, dict[str, list[Result]]],
                  sets: Sequence[PhotoSet]) -> None:
    """Every reading before the word check, with its set, photo, way and known board."""
    by_name = {photos.name: photos for photos in sets}
    saved = [{"set": set_name, "tileset": by_name[set_name].tileset, "photo": r.photo,
              "way": r.way, "reading": r.reading, "seconds": r.seconds,
              "known": by_name[set_name].boards[r.photo]}
             for set_name, by_way in results.items() for rs in by_way.values() for r in rs
             if r.reading is not None]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        pickle.dump({"kind": "tilecam real readings", "readings": saved}, out)


def replayed(path: Path) -> dict[str, dict[str, list[Result]]]:
    """The results of readings kept by ``--save-readings``, the word check run again on them
    as it now stands (no photo is read)."""
    with path.open("rb") as source:
        try:
            saved = pickle.load(source)
        except Exception as exc:  # noqa: BLE001 - any unpickling failure says the same
            raise SystemExit(f"{path}: not readings saved by --save-readings ({exc})") from exc
    if not isinstance(saved, dict) or saved.get("kind") != "tilecam real readings":
        raise SystemExit(f"{path}: not readings saved by --save-readings")
    results: dict[str, dict[str, list[Result]]] = {}
    for item in saved["readings"]:
        for r in results_of(item["reading"], item["seconds"], item["photo"], item["known"],
                            item["tileset"], item["way"]):
            results.setdefault(item["set"], {}).setdefault(r.way, []).append(r)
    return results


def read_uncalibrated(photos: PhotoSet) -> list[Result]:
    """Every photo of the set read without a profile (and after the word check)."""
    results: list[Result] = []
    for name in photos.boards:
        results.extend(_read_ways(photos, name, None, "uncalibrated"))
    return results


def _extend(profile: Profile, photos: PhotoSet, name: str, skipped: dict[str, str]) -> bool:
    """Extend ``profile`` with one photo and its board; a photo without a board found is
    noted in ``skipped`` and left out (then and later)."""
    if name in skipped:
        return False
    try:
        profile.extend(_image(str(photos.folder / name)), photos.boards[name])
    except BoardNotFound as exc:
        skipped[name] = str(exc)
        return False
    return True


def read_calibrated(photos: PhotoSet, first: int, last: int) -> tuple[list[Result], dict]:
    """Photos ``first..last`` (0-based, inclusive, in the set's order) each read with a profile
    of every other photo of the set (see the module's docstring for how the profiles are
    built); also the photos left out of calibration and the extensions made."""
    names = list(photos.boards)
    skipped: dict[str, str] = {}
    prefix = Profile(tileset=photos.tileset)
    learnt_prefix = 0
    extensions = 0
    for name in names[:first]:
        learnt_prefix += _extend(prefix, photos, name, skipped)
        extensions += 1
    results: list[Result] = []
    for i in range(first, last + 1):
        profile = copy.deepcopy(prefix)
        learnt = learnt_prefix
        for name in names[i + 1:]:
            learnt += _extend(profile, photos, name, skipped)
            extensions += 1
        if learnt == 0:
            ways = ("calibrated", "calibrated + words") if _lexicon(photos.tileset) else (
                "calibrated",)
            for way in ways:
                results.append(Result(names[i], way, None, 0.0, [],
                                      skipped="no other photo to calibrate with"))
        else:
            results.extend(_read_ways(photos, names[i], profile, "calibrated"))
        if i < last:
            learnt_prefix += _extend(prefix, photos, names[i], skipped)
            extensions += 1
    return results, {"skipped": skipped, "extensions": extensions}


def split_runs(count: int, runs: int) -> list[tuple[int, int]]:
    """Contiguous runs of the left-out photos ``0..count-1`` of about equal cost in
    extensions (a run from ``a`` builds a prefix of ``a`` photos, then leaves each of its photos
    out with the ``count - 1 - i`` photos after it added).

    >>> split_runs(27, 1)
    [(0, 26)]
    >>> split_runs(27, 2)
    [(0, 7), (8, 26)]
    """
    if runs <= 1 or count <= 2:
        return [(0, count - 1)]

    def cost(a: int, b: int) -> int:
        return a + sum(count - 1 - i for i in range(a, b + 1)) + (b - a)

    best: list[tuple[int, int]] = [(0, count - 1)]
    best_cost = cost(0, count - 1)
    # Two runs (what 2 cores use); more runs are cut the same way, greedily.
    for cut in range(1, count):
        worst = max(cost(0, cut - 1), cost(cut, count - 1))
        if worst < best_cost:
            best, best_cost = [(0, cut - 1), (cut, count - 1)], worst
    if runs > 2 and len(best) == 2:
        tail = split_runs(count - best[1][0], runs - 1)
        best = [best[0]] + [(a + best[1][0], b + best[1][0]) for a, b in tail]
    return best


def halves(lo: int, hi: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two halves the photos ``lo..hi`` are split into (the first one the longer)."""
    mid = (lo + hi) // 2
    return (lo, mid), (mid + 1, hi)


def outside_in(count: int, lo: int, hi: int) -> list[int]:
    """The photos (of ``0..count-1``) outside ``lo..hi`` in the order the halving scheme adds
    them to the profile that reads ``lo..hi``: from the whole range down to ``lo..hi``, at each
    split the half not holding ``lo..hi`` is added, in photo order.

    >>> outside_in(8, 0, 0)
    [4, 5, 6, 7, 2, 3, 1]
    >>> outside_in(8, 5, 5)
    [0, 1, 2, 3, 6, 7, 4]
    """
    order: list[int] = []
    a, b = 0, count - 1
    while (a, b) != (lo, hi):
        first, second = halves(a, b)
        if first[0] <= lo and hi <= first[1]:
            order.extend(range(second[0], second[1] + 1))
            a, b = first
        elif second[0] <= lo and hi <= second[1]:
            order.extend(range(first[0], first[1] + 1))
            a, b = second
        else:
            raise ValueError(f"{lo}..{hi} is not a range of the halving of 0..{count - 1}")
    return order


def subtrees(count: int, jobs: int) -> list[tuple[int, int]]:
    """Ranges of the halving, split until there are at least ``jobs`` (each a worker's task).

    >>> subtrees(27, 1), subtrees(27, 2)
    ([(0, 26)], [(0, 13), (14, 26)])
    """
    ranges = [(0, count - 1)]
    while len(ranges) < jobs and any(a < b for a, b in ranges):
        ranges = [half for a, b in ranges for half in (halves(a, b) if a < b else ((a, b),))]
    return ranges


def read_calibrated_halving(photos: PhotoSet, lo: int, hi: int) -> tuple[list[Result], dict]:
    """Photos ``lo..hi`` each read with a profile of every other photo of the set, built by
    halving (see the module's docstring); also the photos left out of calibration and the
    extensions made."""
    names = list(photos.boards)
    skipped: dict[str, str] = {}
    info = {"skipped": skipped, "extensions": 0}
    results: list[Result] = []

    def extend(profile: Profile, indices: Iterable[int]) -> int:
        learnt = 0
        for i in indices:
            learnt += _extend(profile, photos, names[i], skipped)
            info["extensions"] += 1
        return learnt

    def solve(profile: Profile, learnt: int, a: int, b: int) -> None:
        if a == b:
            if learnt == 0:
                ways = ("calibrated", "calibrated + words") if _lexicon(photos.tileset) else (
                    "calibrated",)
                results.extend(Result(names[a], way, None, 0.0, [],
                                      skipped="no other photo to calibrate with")
                               for way in ways)
            else:
                results.extend(_read_ways(photos, names[a], profile, "calibrated"))
            return
        first, second = halves(a, b)
        left = copy.deepcopy(profile)
        solve(left, learnt + extend(left, range(second[0], second[1] + 1)), *first)
        del left
        solve(profile, learnt + extend(profile, range(first[0], first[1] + 1)), *second)

    profile = Profile(tileset=photos.tileset)
    solve(profile, extend(profile, outside_in(len(names), lo, hi)), lo, hi)
    return results, info


def _task(kind: str, photos: PhotoSet, first: int = 0, last: int = 0) -> tuple[str, str, Any]:
    """One unit of work for a worker process: ``kind`` is ``uncalibrated``, or ``exact`` or
    ``halving`` (calibrated, photos ``first..last`` left out in turn)."""
    cv2.setNumThreads(1)
    if kind == "uncalibrated":
        return photos.name, kind, read_uncalibrated(photos)
    if kind == "exact":
        return photos.name, kind, read_calibrated(photos, first, last)
    return photos.name, kind, read_calibrated_halving(photos, first, last)


# ------------------------------------------------------------------------------ report


def table_header() -> str:
    kinds = " ".join(f"{k:>11s}" for k in KIND_HEADINGS)
    return (f"  {'way':<22s} {'photos':>6s} {'wrong/squares':>14s} {'err %':>7s} "
            f"{'unflagged':>9s} {'perfect':>8s} {kinds} {'median s':>8s}")


def table_row(way: str, results: Sequence[Result]) -> str:
    done = [r for r in results if not r.skipped]
    if not done:
        return f"  {way:<22s} {'-':>6s}  no photo read this way"
    wrong = sum(len(r.wrong) for r in done)
    squares = SIZE * SIZE * len(done)
    perfect = sum(1 for r in done if not r.wrong)
    kinds: Counter[str] = Counter()
    for r in done:
        kinds.update(counts(r.wrong))
    cells = " ".join(f"{kinds[k]:>11d}" for k in KINDS)
    median = statistics.median(r.seconds for r in done)
    unflagged = sum(w.unflagged for r in done for w in r.wrong)
    return (f"  {way:<22s} {len(done):>6d} {f'{wrong}/{squares}':>14s} "
            f"{100 * wrong / squares:>7.3f} {unflagged:>9d} {f'{perfect}/{len(done)}':>8s} "
            f"{cells} {median:>8.2f}")


def report_set(photos: PhotoSet, results: dict[str, list[Result]], info: dict,
               ways: Sequence[str], show_errors: bool) -> list[str]:
    """The lines reporting one set."""
    has_words = _lexicon(photos.tileset) is not None
    lines = [f"\n== {photos.name}: {len(photos.boards)} photos, tile set {photos.tileset}, "
             f"{photos.camera}; {photos.note}"]
    lines.append(table_header())
    for way in ways:
        if way.endswith("+ words") and not has_words:
            lines.append(f"  {way:<22s} {'n/a':>6s}  no word list for tile set "
                         f"{photos.tileset!r} is bundled: the word check has nothing to check")
        elif way in results:
            lines.append(table_row(way, results[way]))
    read_ways = [w for w in ways if w in results]
    if any(w.startswith("calibrated") for w in read_ways):
        skipped = info.get("skipped", {})
        lines.append(f"  calibration: leave-one-out, {info.get('extensions', 0)} profile "
                     f"extensions; photos left out of calibration (no board found): "
                     + (", ".join(f"{n} ({msg})" for n, msg in skipped.items()) or "none"))
        no_profile = [r.photo for w in read_ways for r in results[w] if r.skipped]
        if no_profile:
            lines.append(f"  not read calibrated (no other photo): {', '.join(no_profile)}")
    not_found = sorted({f"{r.photo} ({r.way})" for w in read_ways for r in results[w]
                        if r.board is None and not r.skipped})
    lines.append("  no board found: " + (", ".join(not_found) or "none"))
    blurred: dict[str, list[str]] = {}
    blur_of: dict[str, float] = {}
    for way in read_ways:
        for r in results[way]:
            if r.blur_warned:
                blurred.setdefault(r.photo, []).append(way)
                blur_of[r.photo] = max(blur_of.get(r.photo, 0.0), r.motion_blur)
    lines.append("  motion-blur warning: " + (", ".join(
        f"{p} (smear {blur_of[p]:.2f} of a square; {', '.join(w)})"
        for p, w in blurred.items()) or "none"))
    turned = []
    for way in read_ways:
        for r in results[way]:
            better = turned_better(r.board, photos.boards[r.photo])
            if better is not None:
                turned.append(f"{r.photo} ({way}: {len(r.wrong)} wrong as read, {better[1]} if "
                              f"turned {better[0]} quarter(s) counter-clockwise)")
    lines.append("  reading turned (orientation wrong): " + (", ".join(turned) or "none"))
    for way in read_ways:
        confusions = Counter((w.want, w.got) for r in results[way] for w in r.wrong
                             if w.kind != "not_found")
        if confusions:
            lines.append(f"  most common confusions, {way} (true->read): " + ", ".join(
                f"{a}->{b} x{n}" for (a, b), n in confusions.most_common(10)))
    if has_words:
        for base in ("uncalibrated", "calibrated"):
            if base in results and f"{base} + words" in results:
                on = {r.photo: r for r in results[f"{base} + words"]}
                made_right = made_wrong = still = 0
                for r in results[base]:
                    if r.skipped or r.photo not in on:
                        continue
                    a, b, c = word_check_effect(r.wrong, on[r.photo].wrong)
                    made_right, made_wrong, still = made_right + a, made_wrong + b, still + c
                lines.append(f"  word check on vs off, {base}: made right {made_right}, made "
                             f"wrong {made_wrong}, changed one wrong letter for another {still}")
    else:
        lines.append("  word check on vs off: n/a (no word list for this tile set)")
    if show_errors:
        for name in photos.boards:
            for way in read_ways:
                for r in results[way]:
                    if r.photo != name or not (r.wrong or r.skipped):
                        continue
                    if r.skipped:
                        text = f"not read: {r.skipped}"
                    elif r.board is None:
                        text = f"no board found: {r.error}"
                    else:
                        text = ", ".join(str(w) for w in r.wrong)
                    lines.append(f"    {name} {way}: {len(r.wrong)} wrong: {text}")
    return lines


def as_json(results: dict[str, dict[str, list[Result]]], infos: dict[str, dict]) -> dict:
    """Every photo's results as plain JSON types."""
    out: dict[str, Any] = {}
    for set_name, by_way in results.items():
        photos: dict[str, dict[str, Any]] = {}
        for way, rs in by_way.items():
            for r in rs:
                photos.setdefault(r.photo, {})[way] = {
                    "board": r.board,
                    "seconds": round(r.seconds, 4),
                    "wrong": [{"square": w.square, "true": w.want, "read": w.got,
                               "kind": w.kind, "confidence": w.confidence} for w in r.wrong],
                    "errors": dict(counts(r.wrong)),
                    "motion_blur": round(r.motion_blur, 4),
                    "warnings": r.warnings,
                    "orientation": r.orientation,
                    "error": r.error,
                    "skipped": r.skipped,
                }
        out[set_name] = {"photos": photos, "calibration": infos.get(set_name, {})}
    return out


# ------------------------------------------------------------------------------ main


def parse_ways(text: str) -> list[str]:
    """``--ways``: way names with or without spaces around ``+``, or short ``uncal``/``cal``.

    >>> parse_ways("cal+words,uncalibrated")
    ['uncalibrated', 'calibrated + words']
    """
    wanted = set()
    for item in text.split(","):
        base, plus, rest = item.replace(" ", "").partition("+")
        base = {"uncal": "uncalibrated", "cal": "calibrated"}.get(base, base)
        key = f"{base} + {rest}" if plus else base
        if key not in WAYS:
            raise argparse.ArgumentTypeError(f"unknown way {item!r}; ways: {', '.join(WAYS)}")
        wanted.add(key)
    return [w for w in WAYS if w in wanted]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="game01,jheidel-20141025,jheidel-20151016",
                        help="sets to read, comma separated (default: all)")
    parser.add_argument("--ways", type=parse_ways, default=list(WAYS),
                        help="ways to read, comma separated: " + ", ".join(WAYS))
    parser.add_argument("--show-errors", action="store_true",
                        help="list every wrong square of every photo")
    parser.add_argument("--json", type=Path, metavar="FILE",
                        help="save every photo's results to FILE")
    parser.add_argument("--loo", choices=("halving", "exact"), default="halving",
                        help="how the leave-one-out profiles are built (see the docstring)")
    parser.add_argument("--save-readings", type=Path, metavar="FILE",
                        help="keep every reading before the word check in FILE")
    parser.add_argument("--replay", type=Path, metavar="FILE",
                        help="score the word check again on readings kept in FILE "
                             "(no photo is read)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="worker processes (default 2; 1 reads in this process)")
    args = parser.parse_args()
    if not PHOTOS.is_dir():
        print(f"real photos not found: {PHOTOS} (the shared data folder beside the repository)"
              "; nothing to evaluate")
        return 0
    available = photo_sets()
    chosen: list[PhotoSet] = []
    for item in args.sets.split(","):
        name = SET_ALIASES.get(item.strip(), item.strip())
        if not name:
            continue
        if name not in available:
            parser.error(f"unknown set {item!r}; sets: game01, {', '.join(available)}")
        found = available[name]
        if isinstance(found, str):
            print(f"{name}: skipped, {found}")
        else:
            chosen.append(found)
    if not chosen:
        print("no set to evaluate")
        return 0
    started = time.perf_counter()
    ways: list[str] = args.ways
    uncalibrated = any(w.startswith("uncalibrated") for w in ways)
    calibrated = any(w.startswith("calibrated") for w in ways)
    results: dict[str, dict[str, list[Result]]] = {p.name: {} for p in chosen}
    infos: dict[str, dict] = {p.name: {"skipped": {}, "extensions": 0} for p in chosen}
    if args.replay is not None:
        for set_name, by_way in replayed(args.replay).items():
            if set_name in results:
                results[set_name] = by_way
    else:
        tasks: list[tuple[str, PhotoSet, int, int]] = []
        # Calibrated tasks first: they are the long ones.
        for photos in chosen:
            count = len(photos.boards)
            if calibrated and args.loo == "exact":
                tasks.extend(("exact", photos, a, b)
                             for a, b in split_runs(count, args.jobs if count > 8 else 1))
            elif calibrated:
                tasks.extend(("halving", photos, a, b)
                             for a, b in subtrees(count, args.jobs if count > 8 else 1))
        if uncalibrated:
            tasks.extend(("uncalibrated", photos, 0, 0) for photos in chosen)
        if args.jobs > 1:
            # Tesseract's own threads would only compete with the other worker.
            os.environ.setdefault("OMP_THREAD_LIMIT", "1")
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                done = list(pool.map(_task, *zip(*tasks, strict=True)))
        else:
            done = [_task(*task) for task in tasks]
        for set_name, kind, payload in done:
            found = payload if kind == "uncalibrated" else payload[0]
            if kind != "uncalibrated":
                infos[set_name]["skipped"].update(payload[1]["skipped"])
                infos[set_name]["extensions"] += payload[1]["extensions"]
            for r in found:
                results[set_name].setdefault(r.way, []).append(r)
    order = {p.name: list(p.boards) for p in chosen}
    for set_name, by_way in results.items():
        for way in list(by_way):
            if way not in ways:
                del by_way[way]
            else:
                by_way[way].sort(key=lambda r, s=set_name: order[s].index(r.photo))
    elapsed = time.perf_counter() - started
    if args.save_readings is not None:
        save_readings(args.save_readings, results, chosen)
    print(f"Board reading on labelled real photos ({PHOTOS}); ways: {', '.join(ways)}; "
          f"leave-one-out profiles by {args.loo}; {args.jobs} worker process(es)")
    for photos in chosen:
        print("\n".join(report_set(photos, results[photos.name], infos[photos.name], ways,
                                   args.show_errors)))
    print("\n== summary (per-square error %, boards perfect)")
    for photos in chosen:
        has_words = _lexicon(photos.tileset) is not None
        cells = []
        for way in ways:
            rs = [r for r in results[photos.name].get(way, []) if not r.skipped]
            if way.endswith("+ words") and not has_words:
                cells.append(f"{way}: n/a")
            elif rs:
                wrong = sum(len(r.wrong) for r in rs)
                perfect = sum(1 for r in rs if not r.wrong)
                cells.append(f"{way}: {100 * wrong / (SIZE * SIZE * len(rs)):.3f} % "
                             f"{perfect}/{len(rs)}")
        print(f"  {photos.name:<18s} " + "; ".join(cells))
    print(f"\n{elapsed:.0f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"ways": ways, "seconds": round(elapsed, 1),
                                         "sets": as_json(results, infos)},
                                        ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
