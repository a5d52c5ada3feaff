"""Which 16 consecutive lines in each direction are the grid (step 5 of :mod:`vision.locate`):
chosen by line support, empty squares and crossing lines, then moved where the premium squares'
layout clearly asks for it."""

from __future__ import annotations

import numpy as np

from vision.geometry import GRID_SIZE
from vision.locate.line_fit import _crossing_support, _line_support
from vision.locate.premium import _premium_scores


def _lines_in_window(
    x_span: tuple[int, int], y_span: tuple[int, int], x0: int, y0: int
) -> int:
    """How many of the window's 2 x 15 steps between lines (across plus down) the spans cover."""
    across = min(x_span[1], x0 + GRID_SIZE) - max(x_span[0], x0)
    down = min(y_span[1], y0 + GRID_SIZE) - max(y_span[0], y0)
    return max(across, 0) + max(down, 0)


def _window_starts(span: tuple[int, int]) -> np.ndarray:
    """First lines of the 16-line windows that overlap ``span`` (that hold it, if shorter)."""
    low, high = span
    if high - low <= GRID_SIZE:
        return np.arange(high - GRID_SIZE, low + 1)
    return np.arange(low, high - GRID_SIZE + 1)


#: Mean share of a column's width over which the crossing lines are seen, from which on the
#: column counts as crossed (:func:`_crossing_support`): the frame's band beyond a green
#: board's grid scores 0-0.1 on blurred photos, the grid's columns 0.25 and more.
_CROSSED = 0.15


def _choose_window(
    ridges: np.ndarray,
    homography: np.ndarray,
    span: tuple[int, int],
    along: tuple[float, float],
    vertical: bool,
    floor: float,
    cell_columns: np.ndarray,
) -> int:
    """First of the 16 consecutive lines, overlapping ``span``, that best fit the grid.

    A window scores the ridge support of its 16 lines plus one point for every column (or row)
    of squares in which empty squares were found (``cell_columns``: the column of each), and
    one for every column that the crossing lines are seen to cross (:data:`_CROSSED`).  The
    columns count most: a straight edge just outside the grid (the board's border, a frame) can
    look like a grid line, but no squares lie beyond the grid, and no lines cross the band
    there.
    """
    starts = _window_starts(span)
    lines = np.arange(starts[0], starts[-1] + GRID_SIZE + 1)
    support = _line_support(ridges, homography, lines, along, vertical, floor, reach=0.12)
    occupied_columns = set(int(c) for c in cell_columns)
    totals = np.array(
        [
            support[s - lines[0] : s - lines[0] + GRID_SIZE + 1].sum()
            + sum(1 for c in range(s, s + GRID_SIZE) if c in occupied_columns)
            for s in starts
        ]
    )
    # A window moved by k lines trades k columns for k others, so the crossed columns can
    # change the choice only among windows within k points of the best: most often none.
    best = int(np.argmax(totals))
    close = totals[best] - totals <= np.abs(starts - starts[best])
    close[best] = False
    if close.any():
        crossed = _crossing_support(
            ridges, homography, (int(lines[0]), int(lines[-1])), along, vertical, floor
        ) >= _CROSSED
        totals = totals + np.array(
            [crossed[s - lines[0] : s - lines[0] + GRID_SIZE].sum() for s in starts]
        )
    return int(starts[int(np.argmax(totals))])


#: How much better (in the score's units, a share of the colour spread) a shifted window must
#: match the premium layout than any other window to replace the window chosen by the lines
#: (a full red board, its premium squares mostly under tiles, stood out by 0.10).
_PREMIUM_MARGIN = 0.08
#: The farthest shift (in lines) of the window that the premium squares may ask for, beyond the
#: windows that the lines leave open.
_PREMIUM_REACH = 2


def _premium_range(span: tuple[int, int], start: int) -> tuple[int, int]:
    """The shifts of the window starting at line ``start`` that the premium squares may ask for,
    along a direction in which the lines seen run over ``span``.

    Up to :data:`_PREMIUM_REACH` lines either way; where fewer lines than the grid's were seen
    (glare, tiles), beyond that every window that holds them is open too: the lines outside
    them, which chose among those windows, are no more than noise there.  (Asked only where
    no window within that reach stands out.)

    >>> _premium_range((0, 15), 0), _premium_range((-5, 3), -10)
    ((-2, 2), (-4, 7))
    """
    reach = _PREMIUM_REACH
    if span[1] - span[0] >= GRID_SIZE:
        return (-reach, reach)
    starts = _window_starts(span)
    return (int(starts[0]) - reach - start, int(starts[-1]) + reach - start)


def _premium_shift(
    image: np.ndarray,
    homography: np.ndarray,
    x0: int,
    y0: int,
    scale: float,
    x_range: tuple[int, int] = (-_PREMIUM_REACH, _PREMIUM_REACH),
    y_range: tuple[int, int] = (-_PREMIUM_REACH, _PREMIUM_REACH),
) -> tuple[int, int]:
    """The shift within ``x_range`` and ``y_range`` (lines, both ends included), if any, of the
    chosen 15x15 window that puts the premium squares where the board's layout has them; else
    ``(0, 0)`` (see :func:`_premium_standout`)."""
    shift = _premium_standout(image, homography, x0, y0, scale, x_range, y_range)
    return (0, 0) if shift is None else shift


def _premium_standout(
    image: np.ndarray,
    homography: np.ndarray,
    x0: int,
    y0: int,
    scale: float,
    x_range: tuple[int, int] = (-_PREMIUM_REACH, _PREMIUM_REACH),
    y_range: tuple[int, int] = (-_PREMIUM_REACH, _PREMIUM_REACH),
) -> tuple[int, int] | None:
    """The shift within ``x_range`` and ``y_range`` (lines, both ends included) of the chosen
    15x15 window whose window matches the premium squares' layout clearly better than every
    other; None where none does.

    A band of the frame just outside the grid can pass for one more row of squares, and under
    a row of tiles the grid's last lines are hard to see; the premium squares' colours settle
    which rows and columns are the grid (:func:`_premium_scores`).  A shift is taken only when
    its window stands out from every other: glare or many tiles can make all windows score
    alike, and then the lines know better.
    """
    shifts, scores = _premium_scores(image, homography, x0, y0, scale, x_range, y_range)
    order = np.argsort(-scores)
    best, runner_up = scores[order[0]], scores[order[1]]
    if best > runner_up + _PREMIUM_MARGIN:
        return shifts[int(order[0])]
    return None
