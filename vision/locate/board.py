"""The entry point, :func:`locate_board`: the search, the last looks where it finds no lattice,
and the grid's corners in the photo."""

from __future__ import annotations

import numpy as np

from vision.geometry import GRID_SIZE, grid_to_image, image_to_grid, project
from vision.locate.agreed_look import _agreed_look
from vision.locate.corner_check import _square_side, check_corners
from vision.locate.lattice import _MIN_LATTICE_CELLS
from vision.locate.line_response import _grey
from vision.locate.location import BoardCutOff, BoardLocation, BoardNotFound
from vision.locate.looks import _Looks, at_working_size
from vision.locate.placement import _photo_corners, _place
from vision.locate.premium_look import _premium_look
from vision.locate.search import (
    _FAR_SHORT_OF_WINDOW,
    _best_fitting,
    _confirmed_placement,
    _farther_placement,
    _farthest_placement,
    _search,
    _second_opinion,
)


def locate_board(image: np.ndarray, quality: bool = True,
                 grey: np.ndarray | None = None) -> BoardLocation:
    """Find the corners of the 15x15 playing grid in a BGR (or grey) photo.

    ``quality``: whether to judge the fit found (:func:`check_corners`, 2-3 ms at 1920x1080),
    for :attr:`BoardLocation.quality`; without it (a caller that needs only the corners) that
    is NaN.  ``grey``: the photo's grey picture, where the caller has made it already (it is
    made here otherwise).

    Raises :class:`BoardNotFound` when the image holds no grid of squares.
    """
    grey = _grey(image) if grey is None else grey
    height, width = grey.shape
    looks = _Looks(image, grey)
    attempt, first_seen = _search(looks)
    lattice = attempt.lattice
    if len(lattice.members) >= _MIN_LATTICE_CELLS:
        placement = _place(image, attempt)
        if placement.covered <= 2 * GRID_SIZE - _FAR_SHORT_OF_WINDOW:
            placement = _farther_placement(looks, attempt, placement)
        placement = _confirmed_placement(image, grey, attempt, placement)
        placement = _second_opinion(looks, attempt, placement)
    else:
        # No look found a lattice: the last ones, on the squares that several looks agree
        # on, then farthest along strokes or on the premium squares' colours.
        agreed = _agreed_look(image, grey, first_seen)
        if agreed is None:
            # Both last looks can place a board the other cannot (the premium squares under
            # tiles, the lines smeared): the one that fits the photo better.
            agreed = _best_fitting(image, [_farthest_placement(looks), _premium_look(image)])
        if agreed is None:
            if attempt.cells_found < _MIN_LATTICE_CELLS:
                raise BoardNotFound(
                    f"no grid of squares found: {attempt.cells_found} square-like regions in a "
                    f"{width}x{height} image, and no layout of premium squares in its colours"
                    + picture_faults(grey)
                )
            raise BoardNotFound(
                f"no grid of squares found: at most {len(lattice.members)} of "
                f"{attempt.cells_found} square-like regions lie on one lattice (need "
                f"{_MIN_LATTICE_CELLS}) in a {width}x{height} image, and no layout of premium "
                f"squares in its colours" + picture_faults(grey)
            )
        placement = agreed
    corners = _photo_corners(placement)
    # A grid running out of the picture is a board cut off (or, far out, one guessed from
    # clutter): either way its squares beyond the edge would be made up, not read.
    cut_off = _cut_off(corners, width, height)
    if cut_off is not None:
        raise cut_off
    side = _square_side(corners)
    return BoardLocation(
        corners=corners,
        homography=image_to_grid(corners),
        quality=check_corners(image, corners) if quality else float("nan"),
        square_px=float(side),
    )


#: The middles of the grid's squares, in grid units.
_MIDDLES = np.stack(np.meshgrid(np.arange(GRID_SIZE) + 0.5, np.arange(GRID_SIZE) + 0.5),
                    axis=-1).reshape(-1, 2)


def _cut_off(corners: np.ndarray, width: int, height: int) -> BoardCutOff | None:
    """The error to raise where squares of the grid at ``corners`` lie beyond the picture's
    edges (their middles outside it), else None: a board read from lines extrapolated past
    the picture would be a board guessed."""
    middles = project(grid_to_image(corners), _MIDDLES)
    beyond = {
        "left": middles[:, 0] < 0, "right": middles[:, 0] > width,
        "top": middles[:, 1] < 0, "bottom": middles[:, 1] > height,
    }
    sides = tuple(side for side, outside in beyond.items() if outside.any())
    if not sides:
        return None
    count = int(np.logical_or.reduce(list(beyond.values())).sum())
    return BoardCutOff(sides, count)


#: A picture of which this share or more is clipped to white (at :data:`_WHITE` or above, at
#: the search's working size) had too much light where the board lies: every labelled real
#: photo has none; a phone's photo of a light board brightened until its squares and lines
#: clip (levels times 1.6) has 8 % of its picture so, and the grid vanishes in it.
_OVEREXPOSED_SHARE = 0.05
_WHITE = 250
#: A picture whose brightest percent lies below this level is too dark to show a grid.
_DARK = 60
#: A picture whose blur (:func:`vision.deblur.estimate_blur`, measured on the whole picture
#: at the search's working size, the board not being known) shows clearly and spreads a
#: point this far (pixels) or more: the real photos measure 1.5 to 3.1, the real game's final
#: board out of focus by a disc of a tenth of a square 10 to 12 (its grid lines gone) and
#: shaken by a fifth of a square 4.2.
_BLURRED_SMEAR = 4.0


def picture_faults(grey: np.ndarray) -> str:
    """What about a picture in which no board was found may be why, for the message: ``""``,
    or ``"; the picture ..."`` naming too much light, too little, or a blur.

    >>> picture_faults(np.full((300, 400), 255, np.uint8))  # doctest: +NORMALIZE_WHITESPACE
    '; the picture is overexposed (100 % of it white): take it with less light on the board
    (no flash, out of direct sun)'
    >>> picture_faults(np.full((300, 400), 20, np.uint8))  # doctest: +NORMALIZE_WHITESPACE
    '; the picture is very dark: take it with more light on the board'
    """
    from vision.deblur import CLEAR, DEFOCUS_AS_MOTION, estimate_blur

    work, _ = at_working_size(grey)
    white = float((work >= _WHITE).mean())
    if white >= _OVEREXPOSED_SHARE:
        return (f"; the picture is overexposed ({100 * white:.0f} % of it white): take it with "
                f"less light on the board (no flash, out of direct sun)")
    if float(np.percentile(work, 99)) < _DARK:
        return "; the picture is very dark: take it with more light on the board"
    blur = estimate_blur(work.astype(np.float32))
    if blur.clarity >= CLEAR and max(blur.length, DEFOCUS_AS_MOTION * blur.defocus) >= (
            _BLURRED_SMEAR):
        return ("; the picture looks blurred (out of focus, or the camera moved): hold it "
                "still, let it focus, and take the photo again")
    return ""
