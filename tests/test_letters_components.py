"""The glyph finder's own labelling of sparse masks: OpenCV's labels, statistics and centres."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.glyphs import _components_with_stats


@pytest.mark.parametrize("density", [0.0, 0.01, 0.05, 0.12, 0.2, 0.3, 1.0])
def test_components_are_opencvs(density):
    rng = np.random.default_rng(int(density * 100))
    for _ in range(150):
        height, width = (int(v) for v in rng.integers(1, 70, 2))
        mask = (rng.random((height, width)) < density).astype(np.uint8)
        if rng.random() < 0.5:
            mask = cv2.dilate(mask, np.ones((2, 2), np.uint8))  # blobs, not specks
        if rng.random() < 0.5:
            mask = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
        ours = _components_with_stats(mask, np.flatnonzero(mask))
        theirs = cv2.connectedComponentsWithStats(mask, connectivity=8)
        assert ours[0] == theirs[0]
        for a, b in zip(ours[1:], theirs[1:], strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), mask.shape
