"""The faster forms of the reading's steps give the very results of the forms they replace."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.blanks import _distance
from vision.glyphs import _closed, _closing_kernel
from vision.locate.line_response import _LINE_THRESHOLD, _ridges


@pytest.mark.parametrize("square_px", [8, 16, 24, 30, 40, 48, 64, 96])
def test_closing_by_rectangles_is_the_ellipses(square_px):
    rng = np.random.default_rng(square_px)
    for _ in range(4):
        height, width = rng.integers(5, 160, 2)
        grey = rng.integers(0, 256, (height, width)).astype(np.uint8)
        mask = (rng.random((height, width)) < 0.6).astype(np.uint8)
        for image in (grey, mask):
            expected = cv2.morphologyEx(image, cv2.MORPH_CLOSE, _closing_kernel(square_px))
            assert np.array_equal(_closed(image, square_px), expected)


def test_line_threshold_is_the_two_level_rule():
    ridges, local_max = np.meshgrid(np.arange(256), np.arange(256))
    ridges, local_max = ridges.astype(np.uint8), local_max.astype(np.uint8)
    rule = (ridges > 6) | ((ridges > 4)
                           & (ridges.astype(np.uint16) * 20 > local_max.astype(np.uint16) * 7))
    assert np.array_equal(ridges > cv2.LUT(local_max, _LINE_THRESHOLD), rule)


def test_colour_ridges_are_the_strongest_channels():
    rng = np.random.default_rng(3)
    work = rng.integers(0, 256, (60, 80, 3)).astype(np.uint8)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (7, 7))
    for dark, operation in ((True, cv2.MORPH_BLACKHAT), (False, cv2.MORPH_TOPHAT)):
        expected = cv2.morphologyEx(work, operation, kernel).max(axis=2)
        assert np.array_equal(_ridges(work, dark), expected)


def test_colour_distance_is_numpys_norm():
    rng = np.random.default_rng(4)
    colours = rng.normal(0, 60, (40, 300, 3)).astype(np.float32)
    to = rng.normal(0, 60, (40, 1, 3)).astype(np.float32)
    assert np.array_equal(_distance(colours, to), np.linalg.norm(colours - to, axis=2))
