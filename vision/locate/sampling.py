"""Bilinear samples of an image at many points at once, shared by the fit to the lines, the
premium squares' colours and :func:`~vision.locate.check_corners`."""

from __future__ import annotations

import cv2
import numpy as np


def _remap_points(image: np.ndarray, points: np.ndarray, border: int) -> np.ndarray:
    """Bilinear samples of ``image`` at ``(..., 2)`` points, shaped ``(...)`` or ``(..., c)``."""
    flat = points.reshape(-1, 2).astype(np.float32)
    count = len(flat)
    # remap maps must stay below 32767 pixels a side: lay the points out in rows.
    width = 1024
    rows = -(-count // width)
    padded = np.zeros((rows * width, 2), np.float32)
    padded[:count] = flat
    padded = padded.reshape(rows, width, 2)
    values = cv2.remap(image, padded[..., 0], padded[..., 1], cv2.INTER_LINEAR, borderMode=border)
    channels = values.shape[2:] if values.ndim == 3 else ()
    return values.reshape(rows * width, *channels)[:count].reshape(*points.shape[:-1], *channels)


def _sample(field: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Bilinear samples of a single-channel float32 image at ``(..., 2)`` points (0 outside)."""
    return _remap_points(field, points, cv2.BORDER_CONSTANT)
