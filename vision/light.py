"""The light over the board evened out: a shadow across part of the board (a player's arm or
body between the lamp and the table, the photographer's own) darkens tiles and empty squares
alike, and colour, ink and lightness then tell a shaded tile from a lit empty square no
better than guessing.

The board's own surfaces measure the light: every empty square of a premium type, and every
tile face, has one colour wherever it lies, so what is left of a square's brightness once its
surface's level is taken off is the light falling on it.  Measured on half squares (a shadow's
edge runs through squares, not along them) and taken from the neighbours of each square
(never from the square itself, which may be a tile taken for an empty square), the light is
divided out of the picture where it is darker than the lit board.
"""

from __future__ import annotations

import cv2
import numpy as np

from scorer.squares import PREMIUM_LAYOUT
from vision.glyphs import crop_margin_px
from vision.medians import median
from vision.occupancy import WASHED_LEVEL

#: Parts of a square, each way, that the light is measured on.
PARTS = 2

#: The light is evened where some part of the board lies at least this far (natural log)
#: below the lit board: a third darker.  On the 36 labelled real photos as taken (phone
#: photos' vignetting, a lamp's fall-off) the darkest part lies 0.08 to 0.37 below; under the
#: shadow of ``bench/eval_real_views.py`` (0.45 of the light taken) 33 of the 36 reach this,
#: down to 0.94.  In the other three the shade is flatter than the lit part (a lamp's pool
#: falling off), and taken for the board's commonest light; measured against a higher share
#: of the board instead, glare's pool set the level (game01 under glare: 2 squares wrong
#: became 8).  Evened from 0.2, the photos as taken read the same, square for square.
UNEVEN_FROM = 0.4

#: How far the neighbours the light of a part is taken from reach (a Gaussian's sigma, in parts).
_REACH = 1.5

#: Width of the bins (natural log) in which the light of most of the board is sought: the
#: level the parts in shadow are brought up to (glare above it is left alone: glare adds
#: white, it does not multiply).
_BIN = 0.05

#: Turns of finding the surfaces' levels and the light from each other.
_ROUNDS = 3

#: Squares of the board, each way.
SIZE = 15
_SURFACES = sorted({kind for row in PREMIUM_LAYOUT for kind in row})
_SURFACE_OF = np.array([[_SURFACES.index(kind) for kind in row] for row in PREMIUM_LAYOUT])
_TILE = len(_SURFACES)


def _kernels() -> list[np.ndarray]:
    """Gaussian weights of a part's neighbours, one kernel for each position of a part within
    its square: the parts of the same square weigh nothing."""
    radius = 3
    base = cv2.getGaussianKernel(2 * radius + 1, _REACH) @ cv2.getGaussianKernel(
        2 * radius + 1, _REACH).T
    kernels = []
    for row in range(PARTS):
        for col in range(PARTS):
            kernel = base.copy()
            kernel[radius - row:radius - row + PARTS, radius - col:radius - col + PARTS] = 0.0
            kernels.append(kernel)
    return kernels


_KERNELS = _kernels()


def light_over_board(grid: np.ndarray, occupied: np.ndarray,
                     unseen: np.ndarray | None = None) -> np.ndarray:
    """The light falling on each part of the board (``PARTS`` x ``PARTS`` per square; natural
    log, 0 for the lit board, negative in shadow) of the margin-free rectified ``grid`` (BGR,
    squares of a multiple of ``PARTS`` pixels: :func:`vision.rectified.occupancy_grid`'s)
    whose squares ``occupied`` (15, 15) hold tiles; ``unseen`` squares (a hand over them) tell
    nothing of it.

    >>> board = np.full((15 * 16, 15 * 16, 3), 200, np.uint8)
    >>> board[8 * 16:] //= 2  # a shadow over the lower half
    >>> light = light_over_board(board, np.zeros((15, 15), bool))
    >>> light.shape, round(abs(float(light[0, 0])), 2), round(float(light[-1, -1]), 2)
    ((30, 30), 0.0, -0.69)
    """
    count = SIZE * PARTS
    # Each part's mean, then the mean of its pixels brighter than that (a letter's ink is
    # darker): the part's background, every part at once.
    grey = cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY).astype(np.float32)
    means = cv2.resize(grey, (count, count), interpolation=cv2.INTER_AREA)
    brighter = (grey >= cv2.resize(means, grey.shape[::-1], interpolation=cv2.INTER_NEAREST)
                ).astype(np.float32)
    background = (cv2.resize(grey * brighter, (count, count), interpolation=cv2.INTER_AREA)
                  / np.maximum(cv2.resize(brighter, (count, count),
                                          interpolation=cv2.INTER_AREA), 1e-6))
    level = np.log(np.maximum(background, 1.0)).astype(np.float64)
    darkest = np.minimum(np.minimum(grid[..., 0], grid[..., 1]), grid[..., 2])
    # A part washed out by glare in a quarter of its pixels tells nothing of the light.
    washed = (darkest >= WASHED_LEVEL).astype(np.float32)
    usable = cv2.resize(washed, (count, count), interpolation=cv2.INTER_AREA) <= 0.25
    if unseen is not None:
        usable &= ~np.kron(unseen, np.ones((PARTS, PARTS), bool))
    surface = np.kron(np.where(occupied, _TILE, _SURFACE_OF), np.ones((PARTS, PARTS), int))
    weight = usable.astype(np.float64)
    flat_surface = surface.ravel()
    seen_of_kind = [(kind, np.flatnonzero((flat_surface == kind) & usable.ravel()))
                    for kind in range(_TILE + 1)]
    # How much of each part's neighbourhood is seen, for each position of a part in its square.
    seen_around = [cv2.filter2D(weight, -1, kernel, borderType=cv2.BORDER_CONSTANT)
                   for kernel in _KERNELS]
    light = np.zeros_like(level)
    # Each surface's level and the light, found in turns: a premium type with most of its few
    # squares in the shadow would otherwise take the shadow for its own colour.
    for _ in range(_ROUNDS):
        unlit = (level - light).ravel()
        own = np.zeros(_TILE + 1)
        for kind, seen in seen_of_kind:
            if len(seen):
                own[kind] = float(median(unlit[seen]))
        left = level - own[surface]
        # A part far off its surface's level is not its light alone (a dark pen, a misjudged
        # tile).
        left = np.clip(left, -1.0, 1.0)
        for index, (kernel, weights) in enumerate(zip(_KERNELS, seen_around, strict=True)):
            row, col = divmod(index, PARTS)
            total = cv2.filter2D(left * weight, -1, kernel, borderType=cv2.BORDER_CONSTANT)
            light[row::PARTS, col::PARTS] = np.where(
                weights > 1e-3, total / np.maximum(weights, 1e-3), 0.0)[row::PARTS, col::PARTS]
    return light - _commonest(light[usable] if usable.any() else light.ravel())


def _commonest(values: np.ndarray) -> float:
    """The commonest of ``values`` (the light of most of the board): the middle of those
    within :data:`_BIN` of the fullest bin of their histogram (bins ``_BIN`` wide, each
    counted with its neighbours).  Neither a high share (glare over a tenth of the board would
    set it) nor the median (a shadow over nearly half of it would pull it down).

    >>> round(_commonest(np.r_[np.zeros(50), np.full(45, -0.6), np.linspace(0.1, 0.8, 30)]), 2)
    0.0
    """
    low = float(values.min())
    bins = max(1, int(np.ceil((float(values.max()) - low) / _BIN)) + 1)
    counts = np.bincount(((values - low) / _BIN).astype(np.int64), minlength=bins).astype(float)
    counts = np.convolve(counts, [1.0, 2.0, 1.0], mode="same")
    peak = low + (int(np.argmax(counts)) + 0.5) * _BIN
    near = values[np.abs(values - peak) <= _BIN]
    return float(median(near)) if len(near) else peak


def uneven(light: np.ndarray) -> bool:
    """Whether some part of the board lies in a shadow worth evening (:data:`UNEVEN_FROM`)."""
    return bool(light.min() <= -UNEVEN_FROM)


def shade_field(light: np.ndarray, square_px: int) -> np.ndarray:
    """The shade of ``light`` (:func:`light_over_board`; natural log, 0 where the board is lit
    or brighter) at every pixel of a straightened board with crop margin
    (:func:`vision.rectified.rectify_with_margin`), smooth between the parts' centres; the
    margin takes the shade of the grid's edge."""
    side = SIZE * square_px
    field = cv2.resize(np.minimum(light, 0.0).astype(np.float32), (side, side),
                       interpolation=cv2.INTER_LINEAR)
    margin = crop_margin_px(square_px)
    return cv2.copyMakeBorder(field, margin, margin, margin, margin, cv2.BORDER_REPLICATE)


def lifted(picture: np.ndarray, shade: np.ndarray) -> np.ndarray:
    """``picture`` (grey or BGR, uint8) brought up by its ``shade`` (natural log, per pixel)."""
    gain = np.exp(-shade)
    if picture.ndim == 3:
        gain = gain[..., None]
    return np.clip(picture.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def evened(rectified: np.ndarray, light: np.ndarray, square_px: int) -> np.ndarray:
    """``rectified`` (from :func:`vision.rectified.rectify_with_margin`) brought up to the lit
    board's light where ``light`` (:func:`light_over_board`) is darker."""
    return lifted(rectified, shade_field(light, square_px))

