"""The faster forms of the reading's steps give the very results of the forms they replace."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import orientation
from vision.blanks import _distance
from vision.deblur import PATCH, REACH, structure_function
from vision.glyphs import (
    Glyph,
    _closed,
    _closing_kernel,
    _distinct,
    _mosaic,
    _mosaic_crops,
    _reached,
    _unmosaic,
)
from vision.locate.lattice import _box_stats, _label_runs, _pixel_sums
from vision.locate.line_response import _LINE_THRESHOLD, _ridges
from vision.rectified import grey_percentiles, noise_share


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


def _reached_step_by_step(seeds: np.ndarray, faint: np.ndarray, steps: int) -> np.ndarray:
    reached = seeds.copy()
    for _ in range(steps):
        reached = cv2.dilate(reached, np.ones((3, 3), np.uint8)) & faint
    return reached | seeds


@pytest.mark.parametrize("seed", range(6))
def test_faint_ink_reached_with_an_early_stop_is_every_step_taken(seed):
    rng = np.random.default_rng(seed)
    faint = (rng.random((90, 120)) < 0.55).astype(np.uint8)
    # A long thin path of faint ink, more steps long than the reach.
    faint[45, 5:115] = 1
    seeds = np.zeros_like(faint)
    seeds[45, 5] = 1
    seeds[rng.integers(0, 90, 5), rng.integers(0, 120, 5)] = 1
    for steps in (0, 1, 3, 14, 40):
        assert np.array_equal(_reached(seeds, faint, steps),
                              _reached_step_by_step(seeds, faint, steps)), steps


def test_distinct_values_are_numpys_unique():
    rng = np.random.default_rng(7)
    for size in (0, 1, 2, 50, 5000):
        values = np.repeat(rng.integers(0, 300, size), rng.integers(1, 6, size)).astype(np.int64)
        assert np.array_equal(_distinct(values), np.unique(values))


def test_mosaic_crops_are_the_unmosaicked_ones():
    rng = np.random.default_rng(8)
    for count, side, pad in ((1, 9, 1), (7, 12, 1), (30, 20, 5)):
        stack = rng.integers(0, 256, (count, side, side)).astype(np.uint8)
        mosaic, layout = _mosaic(stack, pad)
        for crops in (np.arange(count), rng.permutation(count)[: max(1, count // 2)]):
            assert np.array_equal(_mosaic_crops(mosaic, layout, crops, side),
                                  _unmosaic(mosaic, layout, count, side)[crops])


def _structure_function_per_patch(grey: np.ndarray) -> np.ndarray:
    """The structure function as it was computed before: every patch's squares transformed."""
    h, w = grey.shape
    corners = [(y, x) for y in range(0, h - PATCH + 1, PATCH)
               for x in range(0, w - PATCH + 1, PATCH)]
    n = cv2.getOptimalDFTSize(PATCH + REACH)
    padded = np.zeros((n, n), np.float32)

    def spectrum(values: np.ndarray) -> np.ndarray:
        padded[:PATCH, :PATCH] = values
        return cv2.dft(padded, flags=cv2.DFT_COMPLEX_OUTPUT, nonzeroRows=PATCH)

    ones_f = spectrum(np.ones((PATCH, PATCH), np.float32))
    squares_f = np.zeros((n, n, 2), np.float32)
    power = np.zeros((n, n, 2), np.float32)
    for y, x in corners:
        patch = grey[y : y + PATCH, x : x + PATCH].astype(np.float32)
        patch -= patch.mean()
        patch_f = spectrum(patch)
        squares_f += spectrum(patch * patch)
        power += cv2.mulSpectrums(patch_f, patch_f, 0, conjB=True)
    shifts = np.arange(-REACH, REACH + 1) % n

    def correlation(f: np.ndarray, g: np.ndarray) -> np.ndarray:
        product = cv2.mulSpectrums(g, f, 0, conjB=True)
        return cv2.idft(product, flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)[
            np.ix_(shifts, shifts)].astype(np.float64)

    spread = (correlation(ones_f, squares_f) + correlation(squares_f, ones_f)
              - 2.0 * cv2.idft(power, flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)[
                  np.ix_(shifts, shifts)].astype(np.float64))
    return spread / (len(corners) * correlation(ones_f, ones_f))


def test_structure_function_with_the_squares_summed_first_is_the_per_patch_one():
    rng = np.random.default_rng(9)
    board = np.kron(rng.integers(40, 220, (12, 14)), np.ones((40, 40))).astype(np.float32)
    grey = cv2.GaussianBlur(board, (0, 0), 1.5) + rng.normal(0, 3, board.shape).astype(np.float32)
    expected = _structure_function_per_patch(grey)
    # The same sums in another order: equal to float32's rounding.
    assert np.allclose(structure_function(grey), expected, rtol=1e-4, atol=1e-4 * expected.max())


def test_grey_percentiles_are_numpys():
    rng = np.random.default_rng(10)
    for size in (1, 2, 3, 17, 1000, 40_000):
        low, high = sorted(rng.integers(0, 256, 2))
        grey = rng.integers(low, high + 1, size).astype(np.uint8).reshape(-1, 1)
        for q in ((5, 95), (0, 100), (10, 50), (33.3, 99.9)):
            got, expected = grey_percentiles(grey, q), np.percentile(grey, list(q))
            assert got.dtype == expected.dtype and np.array_equal(got, expected), (size, q)


def test_noise_share_is_that_of_numpys_percentiles():
    rng = np.random.default_rng(11)
    board = np.kron(rng.integers(60, 200, (10, 10)), np.ones((30, 30)))
    for noise in (0.0, 2.0, 6.0):
        grey = np.clip(board + rng.normal(0, noise, board.shape), 0, 255).astype(np.uint8)
        response = np.abs(cv2.filter2D(grey.astype(np.float32), -1,
                                       np.float32([[1, -2, 1], [-2, 4, -2], [1, -2, 1]])))
        h, w = (response.shape[0] // 8) * 8, (response.shape[1] // 8) * 8
        blocks = response[:h, :w].reshape(h // 8, 8, w // 8, 8).mean(axis=(1, 3))
        deviation = float(np.percentile(blocks, 10)) * np.sqrt(np.pi / 2) / 6
        low, high = np.percentile(grey, [5, 95])
        assert noise_share(grey) == float(deviation / max(float(high - low), 1.0))


class _TurnClassifier:
    """Tells the turns apart by the corner a glyph's array shows at its top left: each glyph
    carries its similarity for every turn in its four corners."""

    stock = True

    def __init__(self) -> None:
        self.asked: list[int] = []

    def __len__(self) -> int:
        return 1

    def best_similarity(self, glyphs: np.ndarray, every: int = 1) -> np.ndarray:
        self.asked.append(len(glyphs))
        return glyphs[:, 0, 0].astype(np.float64)


def _glyph(similarity_by_turn: tuple[float, float, float, float]) -> Glyph:
    array = np.zeros((24, 24), np.float32)
    # np.rot90 by k brings these corners to the top left.
    array[0, 0], array[0, -1], array[-1, -1], array[-1, 0] = similarity_by_turn
    return Glyph(array, np.ones((10, 6), np.uint8), 0.5)


def _whole_sample_turn(glyphs: list[Glyph], count: int) -> int:
    sample = orientation._sample(glyphs, count)
    scores = [np.mean([np.rot90(g.normalised, k)[0, 0] for g in sample]) for k in range(4)]
    return int(np.argmax(scores))


def test_orientation_from_half_the_sample_where_it_is_clear():
    glyphs = [_glyph((0.9, 0.5, 0.6, 0.5)) for _ in range(60)]
    classifier = _TurnClassifier()
    assert orientation.orientation_of_glyphs(glyphs, classifier, None) == 0  # type: ignore[arg-type]
    assert classifier.asked == [4 * orientation.STOCK_ORIENTATION_GLYPHS // 2]


def test_orientation_from_the_whole_sample_where_half_is_not_clear():
    count = orientation.STOCK_ORIENTATION_GLYPHS
    glyphs = [_glyph((0.7, 0.65, 0.5, 0.5)) for _ in range(60)]
    in_half = {i for i, g in enumerate(glyphs)
               if any(g is h for h in orientation._sample(glyphs, count // 2))}
    for i in range(60):
        if i not in in_half:  # the rest of the whole sample leans the other way, strongly
            glyphs[i] = _glyph((0.5, 0.95, 0.5, 0.5))
    classifier = _TurnClassifier()
    turn = orientation.orientation_of_glyphs(glyphs, classifier, None)  # type: ignore[arg-type]
    assert turn == _whole_sample_turn(glyphs, count) == 1
    assert classifier.asked == [4 * (count // 2), 4 * count]


def _pixel_sums_by_pass(labels: np.ndarray, which: np.ndarray, count: int) -> np.ndarray:
    """The sums over the pixels of components ``which`` of 1, x, y, x*x, y*y and x*y, pixel
    by pixel."""
    chosen = np.zeros(count, bool)
    chosen[which] = True
    flat = np.flatnonzero(chosen[labels])
    lab = labels.ravel()[flat]
    ys, xs = (v.astype(np.float64) for v in np.divmod(flat, labels.shape[1]))
    return np.stack([
        np.bincount(lab, minlength=count).astype(np.float64),
        np.bincount(lab, xs, count), np.bincount(lab, ys, count),
        np.bincount(lab, xs * xs, count), np.bincount(lab, ys * ys, count),
        np.bincount(lab, xs * ys, count),
    ])


@pytest.mark.parametrize("seed", range(4))
def test_cells_summed_run_by_run_are_the_pass_over_the_picture(seed):
    rng = np.random.default_rng(seed)
    lines = (rng.random((240, 400)) < 0.45).astype(np.uint8)
    lines[::37] = 1  # a grid of lines, as the squares' enclosures
    lines[:, ::41] = 1
    count, labels = cv2.connectedComponents(1 - lines, connectivity=4, ltype=cv2.CV_32S)
    for which in (np.arange(1, count), np.sort(rng.choice(np.arange(1, count), count // 3,
                                                           replace=False))):
        assert np.array_equal(_pixel_sums(_label_runs(labels), which, count),
                              _pixel_sums_by_pass(labels, which, count))


@pytest.mark.parametrize("density", [0.0, 0.05, 0.3, 0.6, 1.0])
def test_box_stats_from_runs_are_opencvs(density):
    rng = np.random.default_rng(int(density * 100))
    for _ in range(60):
        height, width = (int(v) for v in rng.integers(1, 90, 2))
        lines = (rng.random((height, width)) < density).astype(np.uint8)
        if rng.random() < 0.5:
            lines = cv2.dilate(lines, np.ones((2, 2), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(
            1 - lines, connectivity=4, ltype=cv2.CV_32S)
        assert np.array_equal(cv2.connectedComponents(1 - lines, connectivity=4,
                                                      ltype=cv2.CV_32S)[1], labels)
        ours = _box_stats(_label_runs(labels), count, labels.shape)
        assert ours.dtype == stats.dtype and np.array_equal(ours, stats), (height, width)

