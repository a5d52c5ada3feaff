"""Plane geometry shared by board location and rectification.

Coordinates are ``(x, y)`` pixels with ``y`` pointing down.  *Grid units* place the 15x15
playing grid at ``(0, 0)``-``(15, 15)``: square ``(row, col)`` covers ``col <= x <= col + 1`` and
``row <= y <= row + 1``.

>>> corners = np.array([[10, 20], [160, 20], [160, 170], [10, 170]], np.float32)
>>> to_grid = image_to_grid(corners)
>>> project(to_grid, [[85, 95]]).round(3).tolist()  # the middle of the centre square
[[7.5, 7.5]]
>>> order_corners(corners[[2, 0, 3, 1]]).tolist() == corners.tolist()
True
"""

from __future__ import annotations

import numpy as np

GRID_SIZE = 15

#: The grid's corners in grid units, in the order top-left, top-right, bottom-right, bottom-left.
GRID_CORNERS = np.array(
    [[0, 0], [GRID_SIZE, 0], [GRID_SIZE, GRID_SIZE], [0, GRID_SIZE]], dtype=np.float64
)


def as_corners(corners: np.ndarray | list) -> np.ndarray:
    """Check and convert four corners to a float32 ``(4, 2)`` array.

    >>> as_corners([[0, 0], [1, 0], [1, 1], [0, 1]]).dtype
    dtype('float32')
    >>> as_corners([[0, 0], [1, 0]])
    Traceback (most recent call last):
    ...
    ValueError: corners must be 4 (x, y) points, got shape (2, 2)
    """
    array = np.asarray(corners, dtype=np.float32)
    if array.shape != (4, 2):
        raise ValueError(f"corners must be 4 (x, y) points, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"corners must be finite, got {array.tolist()}")
    return array


def homography_from_points(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The exact homography taking four ``source`` points to four ``target`` points (DLT)."""
    src = np.asarray(source, dtype=np.float64).reshape(4, 2)
    dst = np.asarray(target, dtype=np.float64).reshape(4, 2)
    rows = []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    _, singular, vt = np.linalg.svd(np.array(rows))
    if singular[-2] < 1e-9 * singular[0]:
        raise ValueError("degenerate points: three or more of them are collinear")
    matrix = vt[-1].reshape(3, 3)
    return matrix / matrix[2, 2]


def image_to_grid(corners: np.ndarray | list) -> np.ndarray:
    """Homography from image pixels to grid units for grid corners TL, TR, BR, BL."""
    return homography_from_points(as_corners(corners), GRID_CORNERS)


def grid_to_image(corners: np.ndarray | list) -> np.ndarray:
    """Homography from grid units to image pixels (the inverse of :func:`image_to_grid`)."""
    return homography_from_points(GRID_CORNERS, as_corners(corners))


def scaled(homography_to_grid: np.ndarray, square_px: float, margin: float = 0) -> np.ndarray:
    """Turn an image-to-grid homography into one onto a canonical image.

    The canonical image has ``square_px`` pixels per square and ``margin`` pixels around the grid.
    Pixel ``u`` covers grid units ``[(u - margin) / square_px, (u + 1 - margin) / square_px)``,
    so its centre (where OpenCV samples) is half a pixel in; a quarter turn of the grid is then
    exactly a quarter turn of the pixel array.

    >>> scaled(np.eye(3), 40, 8)
    array([[40. ,  0. ,  7.5],
           [ 0. , 40. ,  7.5],
           [ 0. ,  0. ,  1. ]])
    """
    offset = margin - 0.5
    to_pixels = np.array([[square_px, 0, offset], [0, square_px, offset], [0, 0, 1]], float)
    return to_pixels @ homography_to_grid


def project(homography: np.ndarray, points: np.ndarray | list) -> np.ndarray:
    """Apply a homography to ``(n, 2)`` points (vectorised)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    mapped = pts @ homography[:, :2].T
    # Column by column, the same sums and quotients: along rows of three (or two) NumPy's
    # loops run that short, and took three times as long over many points.
    for axis in range(3):
        mapped[:, axis] += homography[axis, 2]
    projected = np.empty((len(mapped), 2), mapped.dtype)
    for axis in range(2):
        np.divide(mapped[:, axis], mapped[:, 2], out=projected[:, axis])
    return projected


def order_corners(corners: np.ndarray | list) -> np.ndarray:
    """Order four corners of a convex quadrilateral top-left, top-right, bottom-right, bottom-left.

    The order is clockwise on screen, starting at the corner whose edge to the next corner points
    most nearly to the right (so a square turned by less than 45 degrees keeps its natural order).
    """
    pts = as_corners(corners).astype(np.float64)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    # With y down, increasing atan2 angle runs clockwise on screen.
    clockwise = pts[np.argsort(angles)]
    edges = np.roll(clockwise, -1, axis=0) - clockwise
    rightness = edges[:, 0] / np.maximum(np.hypot(edges[:, 0], edges[:, 1]), 1e-12)
    start = int(np.argmax(rightness))
    return np.roll(clockwise, -start, axis=0).astype(np.float32)


def rotate_corners(corners: np.ndarray | list, quarter_turns: int) -> np.ndarray:
    """Relabel corners so the rectified board turns ``quarter_turns`` times counter-clockwise.

    ``rectify(image, rotate_corners(c, k))`` equals ``np.rot90(rectify(image, c), k)`` (the same
    pixels are sampled): use it once the letters show which side of the board is up.

    >>> c = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    >>> rotate_corners(c, 1).tolist()  # the old top-right corner becomes the top-left
    [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]
    >>> rotate_corners(c, 4).tolist() == c.tolist()
    True
    """
    return np.roll(as_corners(corners), -int(quarter_turns), axis=0)
