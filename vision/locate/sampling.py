"""Bilinear samples of an image at many points at once, shared by the fit to the lines, the
premium squares' colours and :func:`~vision.locate.check_corners`."""

from __future__ import annotations

import cv2
import numpy as np


def _remap_points(image: np.ndarray, points: np.ndarray, border: int) -> np.ndarray:
    """Bilinear samples of ``image`` at ``(..., 2)`` points, shaped ``(...)`` or ``(..., c)``."""
    flat = points.reshape(-1, 2)
    count = len(flat)
    # remap maps must stay below 32767 pixels a side: lay the points out in rows.  Each
    # coordinate in a map of its own, rounded to float32 as it is copied in (OpenCV would
    # copy maps strided through the points into such maps itself).
    width = 1024
    rows = -(-count // width)
    maps = np.zeros((2, rows * width), np.float32)
    maps[:, :count] = flat.T
    values = cv2.remap(image, maps[0].reshape(rows, width), maps[1].reshape(rows, width),
                       cv2.INTER_LINEAR, borderMode=border)
    channels = values.shape[2:] if values.ndim == 3 else ()
    return values.reshape(rows * width, *channels)[:count].reshape(*points.shape[:-1], *channels)


def _sample(field: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Bilinear samples of a single-channel float32 image at ``(..., 2)`` points (0 outside)."""
    return _remap_points(field, points, cv2.BORDER_CONSTANT)
