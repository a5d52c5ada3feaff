"""Things left lying on a board in a photo: a pen, as players keeping score on paper put it down
between turns.  Test equipment, like :mod:`sim.hands`.

:func:`paste_pen` draws a pen 4 to 7 squares long, a fifth of a square thick, in one of three
inks' colours (blue, black, red barrels), with a highlight along it and a soft shadow beside
it, lying anywhere over the playing grid at any angle, seen through the photo's perspective.

>>> import numpy as np
>>> photo = np.full((240, 320, 3), 120, np.uint8)
>>> corners = [(60, 20), (260, 20), (260, 220), (60, 220)]
>>> image, mask = paste_pen(photo, corners, np.random.default_rng(1))
>>> image.shape == photo.shape, 0 < int(mask.sum()) < 240 * 320 // 10
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from sim.hands import grid_homography

#: The pens' barrels (BGR): blue, black, red.
_BARRELS = ((150, 60, 20), (30, 30, 30), (40, 40, 190))


def paste_pen(photo: np.ndarray, grid_corners: np.ndarray | Sequence[Sequence[float]],
              rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``photo`` with a pen lying over the playing grid (its corners in the photo: top-left,
    top-right, bottom-right, bottom-left), and the mask of the pixels the pen covers."""
    corners = np.asarray(grid_corners, np.float64).reshape(4, 2)
    to_photo = grid_homography(corners)
    side = float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).mean()) / 15
    centre = rng.uniform(2.0, 13.0, 2)
    angle = float(rng.uniform(0.0, np.pi))
    length = float(rng.uniform(4.0, 7.0))
    along = 0.5 * length * np.array([np.cos(angle), np.sin(angle)])
    ends = cv2.perspectiveTransform(np.float32([[centre - along, centre + along]]), to_photo)[0]
    start, end = (tuple(int(v) for v in np.round(p)) for p in ends)
    width = max(3, round(0.22 * side))

    def stroke(offset: float, thickness: int) -> np.ndarray:
        drawn = np.zeros(photo.shape[:2], np.float32)
        shift = int(round(offset))
        cv2.line(drawn, (start[0] + shift, start[1] + shift), (end[0] + shift, end[1] + shift),
                 1.0, thickness, cv2.LINE_AA)
        return drawn

    shadow = cv2.GaussianBlur(stroke(0.12 * side, width), (0, 0), 0.15 * side)
    out = photo.astype(np.float32) * (1.0 - 0.35 * shadow[..., None])
    body = stroke(0.0, width)
    barrel = np.float32(_BARRELS[int(rng.integers(0, len(_BARRELS)))])
    out = out * (1.0 - body[..., None]) + barrel * body[..., None]
    out += 70.0 * (stroke(0.0, max(1, width // 4)) * body)[..., None]
    return np.clip(out, 0, 255).astype(np.uint8), body > 0.5
