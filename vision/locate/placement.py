"""Placing the grid on a lattice (steps 4-6 of :mod:`vision.locate`): the lattice refined to the
lines, the 15x15 window chosen on it and the lattice fitted again within that window; and the
placement's corners in the photo."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import GRID_SIZE, order_corners, project
from vision.locate.lattice import _MIN_LATTICE_CELLS, _Lattice
from vision.locate.line_fit import _CENTRE_TO_LINES, _EmptySquares, _fit_lines, _refine
from vision.locate.location import BoardNotFound
from vision.locate.looks import _ENOUGH_CELLS, _Attempt
from vision.locate.premium import _premium_families
from vision.locate.window import (
    _PREMIUM_REACH,
    _choose_window,
    _lines_in_window,
    _premium_range,
    _premium_shift,
)


def _within_one_board(lattice: _Lattice) -> _Lattice:
    """The members inside the 15x15 block of sites that holds most of them, where that block
    holds more than half of them (and at least :data:`_MIN_LATTICE_CELLS`); else ``lattice``.

    Once a lattice is accurate, specks of a textured floor far from the board can land on its
    distant sites by chance (within :data:`_SITE_TOLERANCE`), stretching it over many times
    the board: those few lie far apart, while the board's squares crowd into one block.  A
    repeating pattern spreads its squares evenly over every block instead.

    >>> block = [[x, y] for x in range(4) for y in range(3)]
    >>> sites = np.array(block + [[40, 3], [2, -30]])
    >>> kept = _within_one_board(_Lattice(np.eye(3), sites, np.arange(len(sites))))
    >>> len(kept.members), int(kept.sites[:, 0].max()), int(kept.sites[:, 1].min())
    (12, 3, 0)
    """
    sites = lattice.sites - lattice.sites.min(axis=0)
    width, height = (sites.max(axis=0) + 1).tolist()
    counts = np.zeros((height + GRID_SIZE, width + GRID_SIZE), np.int32)
    np.add.at(counts, (sites[:, 1] + GRID_SIZE, sites[:, 0] + GRID_SIZE), 1)
    # Summed over every block of 15x15 sites: the block ending at (x, y) holds members from
    # x - 14 to x.
    blocks = cv2.boxFilter(
        counts.astype(np.float32), -1, (GRID_SIZE, GRID_SIZE), anchor=(GRID_SIZE - 1,) * 2,
        normalize=False, borderType=cv2.BORDER_CONSTANT,
    )
    y_end, x_end = np.unravel_index(int(np.argmax(blocks)), blocks.shape)
    inside = (
        (sites[:, 0] > x_end - 2 * GRID_SIZE) & (sites[:, 0] <= x_end - GRID_SIZE)
        & (sites[:, 1] > y_end - 2 * GRID_SIZE) & (sites[:, 1] <= y_end - GRID_SIZE)
    )
    kept = int(inside.sum())
    if kept < _MIN_LATTICE_CELLS or 2 * kept <= len(sites):
        return lattice
    return _Lattice(lattice.homography, lattice.sites[inside], lattice.members[inside])


@dataclass(frozen=True)
class _Placement:
    """A lattice refined to the lines and the 15x15 window on it chosen as the grid."""

    homography: np.ndarray  # lattice (grid lines at integers) -> work image
    x0: int
    y0: int
    #: How many of the window's 2 x 15 steps between lines the lines seen span.
    covered: int
    scale: float  # of the work image, relative to the photo


def _place(image: np.ndarray, attempt: _Attempt) -> _Placement:
    """Refine ``attempt``'s lattice to the lines and choose the window that is the grid."""
    lattice = attempt.lattice
    ridges = attempt.ridges.astype(np.float32)
    if np.ptp(lattice.sites, axis=0).max() >= 2 * GRID_SIZE:
        lattice = _within_one_board(lattice)
    homography = lattice.homography @ _CENTRE_TO_LINES
    x_span = (int(lattice.sites[:, 0].min()), int(lattice.sites[:, 0].max()) + 1)
    y_span = (int(lattice.sites[:, 1].min()), int(lattice.sites[:, 1].max()) + 1)
    if max(x_span[1] - x_span[0], y_span[1] - y_span[0]) > 2 * GRID_SIZE:
        raise BoardNotFound(
            f"the squares found span {x_span[1] - x_span[0]}x{y_span[1] - y_span[0]} "
            "lattice steps: a repeating pattern, not a 15x15 board"
        )
    # A dozen or so empty squares bunched together say too little of the board's far side: there
    # the lines, tiles' edges and all, know better.
    empty = (
        _EmptySquares(lattice.sites, project(lattice.homography, lattice.sites.astype(float)))
        if len(lattice.members) >= _ENOUGH_CELLS else None
    )
    cell_homography, cell_spans = homography, (x_span, y_span)
    homography, x_span, y_span, floor = _fit_lines(ridges, homography, x_span, y_span, empty)

    columns, rows = lattice.sites[:, 0], lattice.sites[:, 1]
    x0 = _choose_window(ridges, homography, x_span, y_span, True, floor, columns)
    y0 = _choose_window(ridges, homography, y_span, (x0, x0 + GRID_SIZE), False, floor, rows)
    x0 = _choose_window(ridges, homography, x_span, (y0, y0 + GRID_SIZE), True, floor, columns)
    if image.ndim == 3:
        dx, dy = _premium_shift(image, homography, x0, y0, attempt.scale)
        # The nearest windows first: among more, some shifts of the layout match it in part
        # and can leave no window standing out.
        farther = (_premium_range(x_span, x0), _premium_range(y_span, y0))
        if (dx, dy) == (0, 0) and farther != ((-_PREMIUM_REACH, _PREMIUM_REACH),) * 2:
            dx, dy = _premium_shift(image, homography, x0, y0, attempt.scale, *farther)
        # Glare and tiles can make a window half off the board stand out: the move is undone
        # where the premium squares' colours themselves (red and blue) disagree with it, no
        # more of the moved window's squares showing the colour its layout asks for than
        # showing another, and fewer than before the move.
        if (dx, dy) != (0, 0):
            moved = _premium_families(image, homography, x0 + dx, y0 + dy, attempt.scale)
            if moved <= 0 and moved < _premium_families(
                image, homography, x0, y0, attempt.scale
            ):
                dx, dy = 0, 0
        x0, y0 = x0 + dx, y0 + dy
    # Where glare or tiles stopped the lines short of the window, the lattice there is the fit
    # to the lines between empty squares, extrapolated (see _refine's ``seen``).  Now
    # that the window is known, fit and grow again admitting the lines near the lattice from
    # the start, stepping over single hidden lines inside the window; keep that lattice if it
    # reaches over more of the window.
    seen = None
    covered = _lines_in_window(x_span, y_span, x0, y0)
    if empty is not None and covered < 2 * GRID_SIZE:
        window = ((x0, x0 + GRID_SIZE), (y0, y0 + GRID_SIZE))
        inside = [(max(low, first), min(high, last))
                  for (low, high), (first, last) in zip(cell_spans, window, strict=True)]
        if all(high > low for low, high in inside):
            regrown, x_seen, y_seen, _ = _fit_lines(
                ridges, cell_homography, inside[0], inside[1], empty,
                admit_from_start=True, window=window,
            )
            if _lines_in_window(x_seen, y_seen, x0, y0) > covered:
                homography, seen = regrown, (x_seen, y_seen)
                covered = _lines_in_window(x_seen, y_seen, x0, y0)
    homography = _refine(
        ridges, homography, (x0, x0 + GRID_SIZE), (y0, y0 + GRID_SIZE), reach=0.2, empty=empty,
        seen=seen,
    )
    return _Placement(homography, x0, y0, covered, attempt.scale)


def _photo_corners(placement: _Placement) -> np.ndarray:
    """The corners of ``placement``'s window in the photo, in image order."""
    x0, y0 = placement.x0, placement.y0
    lattice_corners = np.array(
        [[x0, y0], [x0 + GRID_SIZE, y0], [x0 + GRID_SIZE, y0 + GRID_SIZE], [x0, y0 + GRID_SIZE]],
        float,
    )
    # Pixel centres: resize maps original x to (x + 0.5) * scale - 0.5.
    work_corners = project(placement.homography, lattice_corners)
    return order_corners((work_corners + 0.5) / placement.scale - 0.5)
