"""What locating a board gives: where the grid lies in the image (:class:`BoardLocation`), or
:class:`BoardNotFound`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.geometry import scaled


class BoardNotFound(Exception):
    """No 15x15 grid could be found in the image (the message says what was missing)."""


class BoardCutOff(BoardNotFound):
    """The grid found runs out of the picture: only part of the board is in view, and the
    squares beyond the picture's edge cannot be read (nor guessed).

    ``sides`` name the picture's edges the board is cut off at (``"left"``, ``"right"``,
    ``"top"``, ``"bottom"``, as the picture is shown); ``squares_outside`` counts the squares
    whose middle lies beyond them.

    >>> print(BoardCutOff(("right", "bottom"), 40))
    only part of the board is in the picture: it is cut off at the right and bottom edges (40 of
    its 225 squares lie outside); take the photo with the whole board in view
    """

    def __init__(self, sides: tuple[str, ...], squares_outside: int) -> None:
        self.sides = sides
        self.squares_outside = squares_outside
        edges = " and ".join(sides) + (" edges" if len(sides) > 1 else " edge")
        super().__init__(
            f"only part of the board is in the picture: it is cut off at the {edges} "
            f"({squares_outside} of its 225 squares lie outside); take the photo with the whole "
            "board in view"
        )


@dataclass(frozen=True)
class BoardLocation:
    """Where the playing grid is in one image.

    ``corners`` are the outer corners of the 15x15 squares in image pixels, float32 ``(4, 2)``,
    ordered top-left, top-right, bottom-right, bottom-left as seen in the image.
    ``homography`` maps image pixels to grid units (the grid spans ``(0, 0)``-``(15, 15)``); use
    :meth:`homography_to` for a canonical image of a given size.  ``quality`` is
    :func:`check_corners` of the result, 0..1 (a reference for later re-checks, not a verdict:
    right fits on low-contrast boards score 0.3; NaN where not asked for, see
    :func:`locate_board`).  ``square_px`` is the mean side of a square in
    the image, in pixels.
    """

    corners: np.ndarray
    homography: np.ndarray
    quality: float
    square_px: float

    def homography_to(self, square_px: int = 40, margin: int = 0) -> np.ndarray:
        """Homography from the image onto a canonical image (``square_px`` per square)."""
        return scaled(self.homography, square_px, margin)


# Known by the package's name, where callers import them (and as tracebacks and pickles named
# them before the package was split into modules).
BoardNotFound.__module__ = BoardCutOff.__module__ = BoardLocation.__module__ = "vision.locate"
