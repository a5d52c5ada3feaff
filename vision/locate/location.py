"""What locating a board gives: where the grid lies in the image (:class:`BoardLocation`), or
:class:`BoardNotFound`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.geometry import scaled


class BoardNotFound(Exception):
    """No 15x15 grid could be found in the image (the message says what was missing)."""


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
BoardNotFound.__module__ = BoardLocation.__module__ = "vision.locate"
