"""Connected components' boxes from the runs of their pixels along the rows: as many runs as a
row crosses components, far fewer than pixels, where OpenCV's statistics visit every pixel.

>>> label, xs, ys, length = (np.array(v) for v in ([1, 2, 1], [1, 4, 0], [0, 0, 1], [2, 1, 3]))
>>> run_boxes(label, xs, ys, length, 3, (2, 6)).tolist()
[[6, 2, -6, -2], [0, 0, 3, 2], [4, 0, 1, 1]]
"""

from __future__ import annotations

import cv2
import numpy as np


def run_boxes(label: np.ndarray, xs: np.ndarray, ys: np.ndarray, length: np.ndarray,
              count: int, shape: tuple[int, int]) -> np.ndarray:
    """The boxes (count, 4) int64 of components ``0 .. count - 1`` in OpenCV's statistics'
    columns (left, top, width, height) from runs of their pixels: each run's component
    (``label``), first pixel (``xs``, ``ys``) and ``length`` along its row.  A component
    without a run is left with ``shape``'s width and height for its corner and their
    negatives for its size."""
    height, width = shape
    # One contiguous row per column while the extremes are gathered.
    boxes = np.empty((4, count), np.int64)
    for column, reduce, coordinate, start in (
        (cv2.CC_STAT_LEFT, np.minimum, xs, width), (cv2.CC_STAT_TOP, np.minimum, ys, height),
        (cv2.CC_STAT_WIDTH, np.maximum, xs + length - 1, -1),
        (cv2.CC_STAT_HEIGHT, np.maximum, ys, -1),
    ):
        boxes[column] = start
        reduce.at(boxes[column], label, coordinate)
    boxes[cv2.CC_STAT_WIDTH] -= boxes[cv2.CC_STAT_LEFT] - 1
    boxes[cv2.CC_STAT_HEIGHT] -= boxes[cv2.CC_STAT_TOP] - 1
    return boxes.T
