"""A top-down view of the playing grid, and its squares as one array.

The rectified image has ``square_px`` pixels per square: row 0 is the grid's top edge as given by
the corners (top-left, top-right, bottom-right, bottom-left; pixel centres at integer
coordinates, as everywhere in OpenCV), with ``margin`` extra pixels of the photo kept on every
side.

>>> import numpy as np
>>> photo = np.zeros((100, 100, 3), np.uint8)
>>> photo[10:20, 10:20] = 255  # the top-left square of a grid drawn 10 px a square
>>> # Pixel centres are at integer coordinates, so that square's outer corner is at 9.5.
>>> top_down = rectify(photo, [[9.5, 9.5], [159.5, 9.5], [159.5, 159.5], [9.5, 159.5]], 8)
>>> top_down.shape
(120, 120, 3)
>>> crops = square_crops(top_down, 8)
>>> crops.shape, int(crops[0, 0].mean()), int(crops[0, 1].mean())
((15, 15, 8, 8, 3), 255, 0)
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import GRID_SIZE, image_to_grid, scaled


def rectify(
    image: np.ndarray,
    corners: np.ndarray | list,
    square_px: int = 40,
    margin: int = 0,
) -> np.ndarray:
    """Warp the grid given by its four corners to a square image ``15 * square_px + 2 * margin``.

    Pixels outside the photo are black.  Bilinear interpolation: a square of a 1280x720 frame
    at ``square_px=40`` warps in about a millisecond.
    """
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        raise TypeError("image must be a uint8 BGR or grey numpy array")
    if square_px < 1 or margin < 0:
        raise ValueError(f"need square_px >= 1 and margin >= 0, got {square_px} and {margin}")
    side = GRID_SIZE * int(square_px) + 2 * int(margin)
    homography = scaled(image_to_grid(corners), square_px, margin)
    return cv2.warpPerspective(
        image, homography, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )


def square_crops(rectified: np.ndarray, square_px: int) -> np.ndarray:
    """The 225 squares of a rectified image as a ``(15, 15, square_px, square_px[, 3])`` view.

    ``crops[row, col]`` is square ``(row, col)``.  A margin around the grid (as left by
    :func:`rectify`) is recognised from the image size and skipped.  No copy is made: writing to
    the crops writes to ``rectified``.
    """
    grid = GRID_SIZE * int(square_px)
    height, width = rectified.shape[:2]
    if height != width or height < grid or (height - grid) % 2:
        raise ValueError(
            f"a {width}x{height} image is not a rectified grid of {square_px} px squares "
            f"(expected {grid} px plus an even margin, square)"
        )
    margin = (height - grid) // 2
    inner = rectified[margin : margin + grid, margin : margin + grid]
    channels = inner.shape[2:]
    blocks = inner.reshape(GRID_SIZE, square_px, GRID_SIZE, square_px, *channels)
    return blocks.swapaxes(1, 2)
