"""Squares that something over the board covers in one photo: a hand still placing, an arm, a
sleeve, a rack held over the grid.

A photo alone has no earlier view to compare with (the tracker's :mod:`vision.occlusion` has),
and skin is no colour to look for: wooden tiles and many boards are skin-coloured too.  What
nothing on a board lacks is the grid: every square, empty or holding a tile, is bounded by lines
(the board's printed grid between empty squares, the gaps and edges between tiles).  A hand
held over the board hides them over a region of several squares, and it reaches in from beyond
the board, so the region runs to the grid's edge.

:func:`covered_squares` measures, for each side of each square, the strongest thin line or edge
running along it (within an eighth of a square either way: tiles lie a little off their
squares), relative to the board's typical side; a square with at most one side left is unlined.
Unlined squares joined into a region of :data:`COVERED_AT_LEAST` or more that touches the
grid's outer row or column, and whose lines are not merely faint (:data:`FAINT_LINES`), are
covered, with the squares beside them that lost two sides (a
hand's edge crosses them).

Measured on the labelled real photos (``bench/eval_real_views.py``): read in every view but
``hand`` (432 readings: as taken, tilted, steep, small, dim, askew, a bowed board ...), no square
is covered; with a hand over a fifth of the grid (view ``hand``, 18 photos), 846 squares are
covered where the hand lies on about 810, and the squares read wrong without a warning fall
from 87 to 31 (game01), 13 to 4 and 10 to 1 (jheidel): letters no longer read on the skin,
tiles under it no longer read empty as if sure.

>>> import numpy as np
>>> side, margin = 48, 16
>>> board = np.full((15 * side + 2 * margin,) * 2, 150, np.uint8)
>>> for k in range(16):
...     board[margin + k * side - 1 : margin + k * side + 2, :] = 230
...     board[:, margin + k * side - 1 : margin + k * side + 2] = 230
>>> bool(covered_squares(board, side, margin).any())
False
>>> board[margin + 10 * side - 8 :, margin + 3 * side : margin + 7 * side] = 190   # an arm
>>> hidden = covered_squares(board, side, margin)
>>> bool(hidden[12:, 3:7].all()), bool(hidden[:9].any())
(True, False)

Fingers reach further than the lines tell: a finger over a row of tiles hides a letter but
leaves most of each square's sides (the finger a third of a square wide), so a fingertip two
squares beyond the hand read as a blank, or an E whose lower bar it hid as an F, sure of
either.  :func:`reaching_further` follows the hand's own colours (:func:`own_colours`),
learnt from the squares it covers, into the squares beside them.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.medians import median

SIZE = 15

#: A side counts as shown where its strongest line is at least this share of the board's
#: median side: a gap between two tiles of one word may be faint, a hand shows none.
SIDE_SHOWN = 0.35


#: Unlined squares in one region, reaching the grid's edge, from which the region is covered
#: (a finger alone covers one or two squares, and a word's faint gaps leave a few squares of
#: a clean photo unlined; a hand over the board hides a dozen and more).
COVERED_AT_LEAST = 6


#: An unlined region whose sides are typically this share of the board's or stronger still
#: shows its lines, faint: a blur (a shaken or unfocused photo) took them, not a hand.  The
#: lines between empty squares are the board's faintest, and a full board's tile edges set the
#: typical side; blurred, such regions kept 0.24 to 0.32 of it (game01's full boards, shaken
#: or out of focus), where a hand over the board, still or caught moving, left 0.03 to 0.17
#: (the labelled real photos, ``bench/eval_real_views.py``'s views "hand" and "moving hand").
FAINT_LINES = 0.2


#: How far apart (pixels) the three samples across a line are: a line three pixels wide, or
#: an edge, answers; the shading of a face or of skin does not.
_ACROSS = 3


def side_strengths(grey: np.ndarray, square_px: int, margin: int) -> tuple[np.ndarray, np.ndarray]:
    """The strongest line along each square's sides, in grey levels: the 15 x 16 vertical sides
    (row, line to the square's left) and the 16 x 15 horizontal ones (line above, column).

    Along the middle half of each side (the corners are where lines cross), the mean absolute
    second difference across the side, at the offset within an eighth of a square where it is
    strongest."""
    kernel = np.zeros((1, 2 * _ACROSS + 1), np.float32)
    kernel[0, 0] = kernel[0, -1] = -0.5
    kernel[0, _ACROSS] = 1.0
    reach = square_px // 8
    offsets = np.arange(-reach, reach + 1)
    lines = margin + np.arange(SIZE + 1) * square_px
    along = margin + (np.arange(SIZE)[:, None] * square_px
                      + np.arange(square_px // 4, 3 * square_px // 4)[None, :])  # (15, L)
    columns = lines[:, None] + offsets[None, :]  # (16, 2r+1)
    # Only the rows (columns) along the sides' middles are filtered, not the whole picture:
    # the kernel lies along a row, so each row's response is its own (the same values), and
    # the response down the columns is the one along the rows of the turned picture (the same
    # taps in the same order, the borders mirrored alike).
    # Vertical sides: rows along the side, columns across it.
    across_x = np.abs(cv2.filter2D(grey[along.ravel()].astype(np.float32), -1, kernel))
    vertical = across_x[:, columns.ravel()].reshape(
        SIZE, along.shape[1], SIZE + 1, len(offsets)).mean(axis=1).max(axis=2)
    # Horizontal sides: laid out (line rows, along columns) as before, for the same means.
    across_y = np.abs(cv2.filter2D(grey.T[along.ravel()].astype(np.float32), -1, kernel))
    horizontal = np.ascontiguousarray(across_y[:, columns.ravel()].T).reshape(
        SIZE + 1, len(offsets), SIZE, along.shape[1]).mean(axis=3).max(axis=1)
    return vertical, horizontal


def covered_squares(grey: np.ndarray, square_px: int, margin: int) -> np.ndarray:
    """Which squares (15, 15) of a rectified grey board (squares of ``square_px``, ``margin``
    pixels around the grid) something over the board covers."""
    vertical, horizontal = side_strengths(grey, square_px, margin)
    typical = float(median(np.concatenate([vertical.ravel(), horizontal.ravel()])))
    if typical <= 0:
        return np.zeros((SIZE, SIZE), bool)
    sides = np.stack([horizontal[:-1], horizontal[1:], vertical[:, :-1], vertical[:, 1:]])
    lost = (sides < SIDE_SHOWN * typical).sum(axis=0)
    unlined = (lost >= 3).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(unlined, connectivity=4)
    edge = np.zeros((SIZE, SIZE), bool)
    edge[[0, -1], :] = edge[:, [0, -1]] = True
    covered = np.zeros((SIZE, SIZE), bool)
    for k in range(1, count):
        region = labels == k
        if (stats[k, cv2.CC_STAT_AREA] >= COVERED_AT_LEAST and (region & edge).any()
                and float(median(sides[:, region].ravel())) < FAINT_LINES * typical):
            covered |= region
    if covered.any():
        beside = cv2.dilate(covered.astype(np.uint8), np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]],
                                                               np.uint8)).astype(bool)
        covered |= beside & (lost >= 2)
    return covered


#: Pixels a square is sampled with a side for the covering thing's colour (its mean colour
#: over as many patches).
_COLOUR_PX = 8

#: Colours the covered squares are grouped into: skin lit and shaded, a sleeve, and what of
#: the board shows between the fingers.
_COLOUR_GROUPS = 4

#: A group's colour reaches this many times its pixels' root-mean-square spread in Lab, within
#: these bounds (Lab units): a hand's shading varies a little, a smooth sleeve hardly at all.
_COLOUR_REACH = 2.5
_COLOUR_REACH_BOUNDS = (6.0, 20.0)

#: A group is the covering thing's only where no square far from it (beyond the reach below)
#: has three quarters as much of its colour as a square it reaches (:data:`_REACHED`): a group
#: of the board's own colours (a DW square between two fingers, wooden tiles as pink as skin,
#: the board in the hand's shadow) is not.
_FAR_LIKE = 0.75

#: A group whose share of each channel is within this of a far pixel's, the pixel this much
#: lighter (L), could be the board there in the hand's shadow.
_SHADE_SHARES = 0.03
_SHADE_DARKER = 8.0

#: A square beside the covered ones is covered too where this share of it has the covering
#: thing's colour (a finger across a square is about a third of it) ...
_REACHED = 0.25
#: ... and so on, this many squares out from the region the lines found.
_REACH_SQUARES = 4
_FAR = _REACH_SQUARES + 1


def own_colours(bgr: np.ndarray, covered: np.ndarray, square_px: int,
                margin: int) -> np.ndarray | None:
    """How much of each square (15, 15) shows the colours of what covers ``covered`` on a
    rectified colour board (squares of ``square_px``, ``margin`` pixels around the grid), or
    None where it has none of its own.

    The colours are learnt from the covered squares (grouped by k-means in Lab); a group that
    also colours the squares far from the covered ones (or is the board's colour there, in a
    shadow) is the board's or the tiles', not the covering thing's.  None: nothing covered, or
    every group is the board's (a hand as pink as wooden tiles, or no hand at all: the lines
    between empty squares lost to a blur).
    """
    if not covered.any():
        return None
    grid = bgr[margin:margin + SIZE * square_px, margin:margin + SIZE * square_px]
    small = cv2.resize(grid, (SIZE * _COLOUR_PX, SIZE * _COLOUR_PX), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    per_pixel = np.kron(covered, np.ones((_COLOUR_PX, _COLOUR_PX), bool))
    hand = lab[per_pixel]
    far = cv2.dilate(covered.astype(np.uint8), np.ones((2 * _FAR - 1,) * 2, np.uint8)) == 0
    if len(hand) < _COLOUR_GROUPS * 4 or not far.any():
        return None
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    # Started from the pixels ranked by lightness in equal parts: the same photo, the same
    # groups, and OpenCV's random generator left alone.
    start = np.empty(len(hand), np.int32)
    ranks = np.arange(len(hand)) * _COLOUR_GROUPS // len(hand)
    start[np.argsort(hand[:, 0], kind="stable")] = ranks
    _, labels, centres = cv2.kmeans(hand, _COLOUR_GROUPS, start.reshape(-1, 1), criteria, 1,
                                    cv2.KMEANS_USE_INITIAL_LABELS)
    labels = labels.ravel()
    distance = np.linalg.norm(lab[..., None, :] - centres[None, None], axis=3)  # (H, W, K)
    spread = np.array([np.sqrt(np.mean(np.sum((hand[labels == k] - centres[k]) ** 2, axis=1)))
                       if (labels == k).any() else 0.0 for k in range(len(centres))])
    reach = np.clip(_COLOUR_REACH * spread, *_COLOUR_REACH_BOUNDS)
    within = distance <= reach[None, None, :]
    # The board in the hand's shadow is the board's colour, darker: its share of each channel
    # is the board's.  A group is compared with the far squares by those shares too, where
    # they are brighter.
    ours = small.astype(np.float32)
    ours /= np.maximum(ours.sum(axis=2, keepdims=True), 1.0)
    theirs_bgr = cv2.cvtColor(centres.reshape(1, -1, 3).clip(0, 255).astype(np.uint8),
                              cv2.COLOR_LAB2BGR).reshape(-1, 3).astype(np.float32)
    theirs_bgr /= np.maximum(theirs_bgr.sum(axis=1, keepdims=True), 1.0)
    shaded = (np.abs(ours[..., None, :] - theirs_bgr[None, None]).max(axis=3) <= _SHADE_SHARES) & (
        lab[..., None, 0] >= centres[None, None, :, 0] + _SHADE_DARKER)
    board_like = within | shaded

    def shares(coloured: np.ndarray) -> np.ndarray:
        return cv2.resize(coloured.astype(np.float32), (SIZE, SIZE),
                          interpolation=cv2.INTER_AREA)

    theirs = [k for k in range(len(centres))
              if shares(board_like[..., k])[far].max() < _FAR_LIKE * _REACHED]
    if not theirs or shares(board_like[..., theirs].any(axis=2))[far].max() >= (
            _FAR_LIKE * _REACHED):
        return None  # each, or all together, colour the board elsewhere too
    return shares(within[..., theirs].any(axis=2))


def reaching_further(covered: np.ndarray, own: np.ndarray | None) -> np.ndarray:
    """``covered`` (15, 15) grown into the squares beside it where at least :data:`_REACHED`
    of a square shows the covering thing's ``own`` colours (:func:`own_colours`; None: it has
    none, and ``covered`` is returned as it is), step by step up to :data:`_REACH_SQUARES`
    out: fingers, a sleeve's cuff.

    >>> side, margin = 16, 8
    >>> board = np.zeros((15 * side + 2 * margin,) * 2 + (3,), np.uint8)
    >>> board[:] = (60, 140, 40)                     # a green board
    >>> board[margin + 8 * side:, margin + 4 * side: margin + 8 * side] = (120, 150, 210)
    >>> board[margin + 6 * side: margin + 8 * side, margin + 5 * side: margin + 6 * side] = (
    ...     120, 150, 210)                           # an arm, and a finger reaching on
    >>> covered = np.zeros((15, 15), bool); covered[8:, 4:8] = True   # where the lines went
    >>> grown = reaching_further(covered, own_colours(board, covered, side, margin))
    >>> bool(grown[6:8, 5].all()), int(grown.sum() - covered.sum())
    (True, 2)
    >>> own_colours(board, covered, side, margin)[0, 0] == 0.0   # none on the bare board
    np.True_
    """
    if own is None:
        return covered
    reached = own >= _REACHED
    grown = covered.copy()
    ring = np.ones((3, 3), np.uint8)
    for _ in range(_REACH_SQUARES):
        step = (cv2.dilate(grown.astype(np.uint8), ring) > 0) & reached & ~grown
        if not step.any():
            break
        grown |= step
    return grown
