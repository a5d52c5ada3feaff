"""One look at a photo for a lattice of empty squares (:func:`_attempt`: one working resolution,
grey or colour, both line polarities, plain or along strokes), the looks made so far
(:class:`_Looks`), and the resolutions and counts of squares the search works with."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.locate.lattice import _best_lattice, _Cells, _find_cells, _Lattice
from vision.locate.line_response import _STROKE_GAINS, _along_strokes, _line_mask, _ridges

#: Long side of the reduced image the search runs on first.
WORK_LONG_SIDE = 1024
#: Working resolution of the second look at a blurred photo, relative to the first.
_FARTHER = 0.6
#: ... and of the last look along strokes, where every nearer look found no board: a camera
#: moved by a fifth of a square while the shutter was open smears a line over eight to ten
#: pixels at the first resolution, wider than the hat filter picks out; at a third of it the
#: smear is three, and the squares still twenty pixels a side on a board filling the photo.
_FARTHEST = 0.35
#: A lattice of this many empty squares needs no second try without noise specks, nor a second
#: look in colour.
_ENOUGH_CELLS = 24
#: Squares smaller than this (pixels a side) at the first resolution call for a closer look.
_MIN_WORK_SQUARE_PX = 16


@dataclass(frozen=True)
class _MaskCells:
    """The cells one line mask gave, and the lines' polarity (dark or light) in that mask."""

    cells: _Cells
    dark_lines: bool


@dataclass
class _Attempt:
    lattice: _Lattice
    ridges: np.ndarray
    scale: float
    cells_found: int
    #: The cells of every line mask tried, for the last look (:func:`_agreed_look`).
    seen: tuple[_MaskCells, ...] = ()
    #: How the photo was looked at: in colour (each channel) or grey, and along strokes.
    in_colour: bool = False
    along_strokes: bool = False

    @property
    def look(self) -> tuple[bool, float, bool]:
        """What tells two looks apart: colour or grey, the working scale, strokes or not."""
        return (self.in_colour, self.scale, self.along_strokes)

    @property
    def square_px(self) -> float:
        """Side of a square near the lattice's origin, in working pixels (0 without one)."""
        if len(self.lattice.members) == 0:
            return 0.0
        return float(np.sqrt(abs(np.linalg.det(self.lattice.homography[:2, :2]))))


def at_working_size(image: np.ndarray, long_side: int = WORK_LONG_SIDE
                    ) -> tuple[np.ndarray, float]:
    """``image`` shrunk (``INTER_AREA``) so that its longer side is at most ``long_side``, and
    the scale it was shrunk by (1: left as it is).

    >>> work, scale = at_working_size(np.zeros((300, 2048), np.uint8))
    >>> work.shape, scale
    ((150, 1024), 0.5)
    """
    scale = min(1.0, long_side / max(image.shape[:2]))
    if scale >= 1.0:
        return image, scale
    return cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), scale


def _attempt(image: np.ndarray, long_side: int, along_strokes: bool = False) -> _Attempt:
    """Search for a lattice of cells at one working resolution, both line polarities.

    ``image`` is grey, or BGR to look for the lines in each colour channel.  ``along_strokes``:
    the squares are told apart by the line response averaged along strokes
    (:func:`_along_strokes`) at each of :data:`_STROKE_GAINS`, instead of by the response
    itself with and without noise specks; the lattice is refined against the response itself.
    """
    work, scale = at_working_size(image, long_side)
    work = cv2.GaussianBlur(work, (3, 3), 0)
    best: _Attempt | None = None
    seen: list[_MaskCells] = []
    lines = {dark_lines: _ridges(work, dark_lines) for dark_lines in (True, False)}
    stroked_of = {dark_lines: _along_strokes(ridges) if along_strokes else None
                  for dark_lines, ridges in lines.items()}
    # Each polarity's first try, then the second tries (without noise specks, at a higher
    # gain), only while no try has found enough squares: a board's lines have one polarity,
    # and the second tries of the other were made for nothing (the real phone photos' dark
    # lines find at most two squares on a lattice, their light lines a hundred and more).
    for trial in range(len(_STROKE_GAINS) if along_strokes else 2):
        for dark_lines in (True, False):
            if trial and best is not None and len(best.lattice.members) >= _ENOUGH_CELLS:
                break
            ridges, stroked = lines[dark_lines], stroked_of[dark_lines]
            if stroked is None:
                mask = _line_mask(ridges, despeckle=trial == 1)
            else:
                mask = _line_mask(np.clip(stroked * _STROKE_GAINS[trial], 0, 255)
                                  .astype(np.uint8))
            cells = _find_cells(mask)
            seen.append(_MaskCells(cells, dark_lines))
            lattice = _best_lattice(cells)
            if lattice is None:
                lattice = _Lattice(np.eye(3), np.zeros((0, 2), int), np.zeros(0, int))
            if best is None or len(lattice.members) > len(best.lattice.members):
                best = _Attempt(lattice, ridges, scale, len(cells.areas))
    assert best is not None
    best.seen = tuple(seen)
    best.in_colour, best.along_strokes = image.ndim == 3, along_strokes
    return best


class _Looks:
    """The looks at one photo (:func:`_attempt`) made so far, so that none is made twice."""

    def __init__(self, image: np.ndarray, grey: np.ndarray) -> None:
        self.image, self.grey = image, grey
        self.made: dict[tuple[bool, float, bool], _Attempt] = {}

    def attempt(self, in_colour: bool, long_side: int, along_strokes: bool = False) -> _Attempt:
        """The look in colour (each channel) or grey at ``long_side``, made once."""
        key = (in_colour, min(1.0, long_side / max(self.grey.shape)), along_strokes)
        if key not in self.made:
            look = self.image if in_colour else self.grey
            self.made[key] = _attempt(look, long_side, along_strokes)
        return self.made[key]
