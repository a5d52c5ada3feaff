"""How well grid corners fit an image (:func:`check_corners`): the share of the grid's lines seen
where the corners put them, for callers re-checking a fixed camera and for the search judging
its placements."""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import GRID_SIZE, as_corners, grid_to_image
from vision.locate.sampling import _remap_points


def _square_side(corners: np.ndarray) -> float:
    """Mean side of a grid square, in pixels, of the grid with these four corners."""
    return float(np.hypot(*(np.roll(corners, -1, axis=0) - corners).T).mean()) / GRID_SIZE


def check_corners(image: np.ndarray, corners: np.ndarray | list) -> float:
    """How well known grid corners still fit an image: 0 (no better than chance) to 1.

    Meant for a fixed camera.  Across each of the 32 grid lines, at 2 places per square, a short
    intensity profile is sampled and the position of its strongest thin ridge (dark or light) is
    found.  Printed lines, and the gaps between neighbouring tiles, put that ridge on the line
    (within 2 px, or a thirtieth of a square on large squares) when the corners are right; if the
    board or camera moved further it lands anywhere along the profile.  The score is the share of
    profiles peaking on the line, rescaled so that chance gives 0.  About a millisecond or two at
    1280x720.

    What a right fit scores depends on the board and on how many tiles hide its lines (0.99 on
    the green board with five tiles, 0.77 with ninety-seven; 0.3-0.6 on the low-contrast English
    boards photographed at a slant), so compare with :attr:`BoardLocation.quality`, the score at
    the time the grid was found, rather than with one fixed level.  Corners off by half a square
    score 0.

    >>> import numpy as np
    >>> board = np.full((200, 200, 3), 90, np.uint8)
    >>> for k in range(16):
    ...     board[20 + 10 * k, 20:171] = board[20:171, 20 + 10 * k] = 20
    >>> grid = [[20, 20], [170, 20], [170, 170], [20, 170]]
    >>> check_corners(board, grid) > 0.9
    True
    >>> check_corners(board, [[x + 4, y + 3] for x, y in grid]) < 0.2
    True
    """
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        raise TypeError("image must be a uint8 BGR or grey numpy array")
    corners = as_corners(corners)
    to_image = grid_to_image(corners)
    side = _square_side(corners)
    # Profiles 0.4 square long in steps of a sixtieth of a square (never under a pixel); the
    # ridge compares each point with the points 4 steps (about a line width) either side.
    step = max(1.0 / 60.0, 1.0 / max(side, 1e-6))
    half = max(5, int(round(0.2 / step)))
    steps = np.arange(-half - 4, half + 5) * step
    lines = np.arange(GRID_SIZE + 1, dtype=np.float64)
    ts = (np.arange(GRID_SIZE)[:, None] + np.array([0.3, 0.7])[None, :]).ravel()
    line_grid, t_grid = (a.ravel() for a in np.meshgrid(lines, ts, indexing="ij"))
    centres = np.concatenate([np.stack([line_grid, t_grid], 1), np.stack([t_grid, line_grid], 1)])
    normals = np.zeros_like(centres)
    normals[: len(line_grid), 0] = 1.0
    normals[len(line_grid) :, 1] = 1.0
    # In homogeneous coordinates a profile is linear in the step: centre + step * normal.
    base = np.hstack([centres, np.ones((len(centres), 1))]) @ to_image.T
    direction = normals @ to_image[:, :2].T
    # Coordinate by coordinate, the same products, sums and quotients: along a last axis of
    # three (or two) NumPy's loops run that short.
    x, y, w = (base[:, None, k] + steps[None, :] * direction[:, None, k] for k in range(3))
    image_points = np.stack([x / w, y / w], axis=-1)
    values = _remap_points(image, image_points, cv2.BORDER_REPLICATE).astype(np.float32)
    if image.ndim == 3:
        values = values @ np.array([0.114, 0.587, 0.299], np.float32)
    profiles = values.reshape(len(centres), len(steps))
    centre, before, after = profiles[:, 4:-4], profiles[:, :-8], profiles[:, 8:]
    # A ridge differs from both sides the same way (one side alone is just an edge).
    darker = np.minimum(before - centre, after - centre)
    lighter = np.minimum(centre - before, centre - after)
    ridge = np.maximum(darker, lighter)
    peak = np.argmax(ridge, axis=1) - half
    flat = ridge.max(axis=1) < 4.0  # no line at all here (glare, blank tile face): no vote
    hits = (np.abs(peak) <= 2) & ~flat
    votes = max(int((~flat).sum()), 1)
    chance = 5.0 / (2 * half + 1)
    share = hits.sum() / votes
    coverage = min(1.0, votes / (0.5 * len(centres)))
    return float(np.clip((share - chance) / (1 - chance), 0.0, 1.0) * coverage)
