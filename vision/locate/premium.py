"""The premium squares' layout and colours, and how well a 15x15 window on a lattice matches them:
the contrast of its premium squares' colours (:func:`_premium_scores`) and the red and blue they
show (:func:`_premium_families`)."""

from __future__ import annotations

import cv2
import numpy as np

from scorer.squares import PREMIUM_LAYOUT
from vision.geometry import GRID_SIZE, project
from vision.locate.sampling import _remap_points
from vision.medians import median

#: The premium squares (every kind but plain) of the board, as the grid lies (symmetric under
#: turns and reflections, so the way the board lies in the picture does not matter).
_PREMIUM = np.array([[kind != "." for kind in row] for row in PREMIUM_LAYOUT])
#: Squares of the layout in the red family (word premiums and the centre).
_RED_LAYOUT = np.array([[kind in ("TW", "DW", "*") for kind in row] for row in PREMIUM_LAYOUT])
#: Hues (OpenCV's 0-180), least saturation and brightness of the premium squares' two families
#: of colour on every edition: blue (triple and double letter, dark and light), hues 95-130,
#: and red (triple and double word, red and pink), hues from 160 round to 8.  Plain squares are
#: green, beige, grey or charcoal; the red board's frame is red too, but a band, not a square.
_BLUE_HUES = (95, 130)
_RED_HUES = (160, 8)
_LEAST_SATURATION = 50
_LEAST_BRIGHTNESS = 40
#: Where in a square its colour is sampled (its middle and four points around it).
_SQUARE_POINTS = np.array([[0.5, 0.5], [0.3, 0.3], [0.7, 0.3], [0.3, 0.7], [0.7, 0.7]])


def _colour_families(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which BGR colours (any shape, last axis the channels) are of the premium squares' blue
    family, and which of their red family."""
    hsv = cv2.cvtColor(bgr.reshape(-1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2HSV)
    hue, saturation, value = (hsv[:, 0, k].reshape(bgr.shape[:-1]) for k in range(3))
    vivid = (saturation >= _LEAST_SATURATION) & (value >= _LEAST_BRIGHTNESS)
    blue = vivid & (hue >= _BLUE_HUES[0]) & (hue <= _BLUE_HUES[1])
    red = vivid & ((hue >= _RED_HUES[0]) | (hue <= _RED_HUES[1]))
    return blue, red


def _square_samples(
    image: np.ndarray,
    homography: np.ndarray,
    columns: tuple[int, int],
    rows: tuple[int, int],
    scale: float,
) -> np.ndarray:
    """The photo's colours at :data:`_SQUARE_POINTS` of each lattice square in ``columns`` and
    ``rows`` (first included, last not), shaped (rows, columns, points, channels).

    ``homography`` maps the lattice (grid lines at integers) to the work image of ``scale``.
    """
    cols, rows_ = np.meshgrid(np.arange(*columns), np.arange(*rows))
    lattice = np.stack([cols, rows_], axis=-1)[:, :, None, :] + _SQUARE_POINTS
    work = project(homography, lattice.reshape(-1, 2))
    points = ((work + 0.5) / scale - 0.5).reshape(*cols.shape, len(_SQUARE_POINTS), 2)
    return _remap_points(image, points, cv2.BORDER_REPLICATE)


def _premium_scores(
    image: np.ndarray,
    homography: np.ndarray,
    x0: int,
    y0: int,
    scale: float,
    x_range: tuple[int, int] = (0, 0),
    y_range: tuple[int, int] = (0, 0),
) -> tuple[list[tuple[int, int]], np.ndarray]:
    """How well each shift within ``x_range`` and ``y_range`` (lines, both ends included) of the
    15x15 window starting at lines ``x0``, ``y0`` matches the premium squares' layout: the
    shifts and their scores (see :func:`_premium_standout`).

    Each square's colour is sampled at five points near its middle; a square is the more
    premium-like the farther its colour lies from the window's typical (plain) square colour.
    A score is the premium squares' mean distance less the plain squares', in units of the
    window's spread of colours: about 1-2 on a grid placed right on a well lit board, 0.3 on
    the dark deluxe board, near 0 or below where the window's squares are not the grid's.
    """
    (x_low, x_high), (y_low, y_high) = x_range, y_range
    samples = _square_samples(image, homography, (x0 + x_low, x0 + GRID_SIZE + x_high),
                              (y0 + y_low, y0 + GRID_SIZE + y_high), scale)
    colours = median(samples.astype(np.float32), axis=2)  # a letter's ink does not move a median
    shifts = [(dx, dy) for dy in range(y_low, y_high + 1) for dx in range(x_low, x_high + 1)]
    # Every shift's window at once (each one's medians, norms and means are those it has
    # alone, computed along the same axes).
    windows = np.stack([
        colours[dy - y_low : dy - y_low + GRID_SIZE, dx - x_low : dx - x_low + GRID_SIZE]
        for dx, dy in shifts])
    plain = median(windows[:, ~_PREMIUM], axis=1)
    distance = np.linalg.norm(windows - plain[:, None, None, :], axis=-1)
    flat = distance.reshape(len(shifts), -1)
    spread = median(flat, axis=1).astype(np.float64) + 1.0

    def means(rows: np.ndarray) -> np.ndarray:
        # Row by row: a mean along an axis of a 2-D array may be summed in another order.
        return np.array([row.mean() for row in rows])

    contrast = means(distance[:, _PREMIUM]) - means(distance[:, ~_PREMIUM])
    return shifts, contrast.astype(np.float64) / (spread + means(flat).astype(np.float64))


def _premium_families(
    image: np.ndarray, homography: np.ndarray, x0: int, y0: int, scale: float
) -> int:
    """How many squares of the 15x15 window starting at lines ``x0``, ``y0`` show the colour
    family (red or blue) that the premium layout gives them, less those showing one it does
    not (a plain square, or the other family).

    A square shows a family where most of five points near its middle are of it.  Unlike
    :func:`_premium_scores`, this asks for the colours themselves, not only for squares that
    differ from the window's typical one: glare, tiles and a table beside the board differ
    too.  Where tiles cover most premium squares, or noise pales their colours, few show, and
    a window a line or two off can count more of them (on the premium squares' diagonals): of
    83 moves of the window on 4,800 rendered photos, all right, one lowered this count (from
    13 to 2), while the move two squares off a deluxe board under glare lowered it from 19 to 0.
    """
    samples = _square_samples(image, homography, (x0, x0 + GRID_SIZE), (y0, y0 + GRID_SIZE),
                              scale)
    blue, red = _colour_families(samples)
    blue = blue.sum(axis=-1) > len(_SQUARE_POINTS) // 2
    red = red.sum(axis=-1) > len(_SQUARE_POINTS) // 2
    want_red = _PREMIUM & _RED_LAYOUT
    want_blue = _PREMIUM & ~_RED_LAYOUT
    agree = (want_red & red).sum() + (want_blue & blue).sum()
    disagree = (~_PREMIUM & (red | blue)).sum() + (want_red & blue).sum() + (want_blue & red).sum()
    return int(agree - disagree)
