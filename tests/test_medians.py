"""Medians and percentiles without numpy.ma: NumPy's results to the last bit, and no import."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from vision.medians import median, medians_where, percentile

REPO = Path(__file__).resolve().parents[1]


def _same(ours: object, numpys: object) -> bool:
    a, b = np.asarray(ours), np.asarray(numpys)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_median_is_numpys_to_the_last_bit(dtype):
    rng = np.random.default_rng(11)
    for _ in range(300):
        shape = tuple(rng.integers(1, 8, rng.integers(1, 4)))
        values = rng.normal(0, 100, shape).astype(dtype)
        if rng.random() < 0.3:
            values = np.round(values / 40) * 40  # ties
        for axis in [None, *range(len(shape))]:
            ours, numpys = median(values, axis=axis), np.median(values, axis=axis)
            assert _same(ours, numpys) and type(ours) is type(numpys), (shape, axis)


@pytest.mark.parametrize("q", [0, 10, 33.3, 50, 60, 100, np.float64(60), np.float32(60)])
def test_percentile_is_numpys_to_the_last_bit(q):
    rng = np.random.default_rng(12)
    for _ in range(200):
        shape = tuple(rng.integers(1, 8, rng.integers(1, 4)))
        values = rng.normal(0, 100, shape).astype(rng.choice([np.float32, np.float64]))
        for axis in range(len(shape)):
            assert _same(percentile(values, q, axis),
                         np.percentile(values, q, axis=axis, keepdims=True)), (shape, axis)


def test_nan_and_whole_numbers_are_left_to_numpy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(median(np.array([1.0, np.nan, 3.0])))
        assert np.isnan(median(np.array([[1.0, 2.0], [np.nan, 4.0]]), axis=0)[0])
        assert np.isnan(percentile(np.array([[1.0, np.nan, 2.0]]), 60, axis=1)[0, 0])
    assert median([4, 1, 3, 2]) == 2.5


def test_neither_imports_numpy_ma():
    code = ("import sys, numpy as np\n"
            f"sys.path.insert(0, {str(REPO)!r})\n"
            "from vision.medians import median, percentile\n"
            "a = np.random.default_rng(0).normal(size=(9, 20)).astype(np.float32)\n"
            "median(a); median(a, axis=1); percentile(a, 60, axis=1)\n"
            "print('numpy.ma' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_medians_where_is_numpys_median_of_each_selection():
    rng = np.random.default_rng(13)
    for _ in range(200):
        rows, count = rng.integers(1, 12), rng.integers(1, 40)
        values = rng.normal(0, 100, (rows, count, 3)).astype(np.float32)
        if rng.random() < 0.3:
            values = np.round(values / 40) * 40  # ties
        where = rng.random((rows, count)) < rng.random()
        where[:, 0] |= ~where.any(axis=1)
        ours = medians_where(values, where)
        numpys = np.stack([np.median(v[w], axis=0) for v, w in zip(values, where, strict=True)])
        assert _same(ours, numpys)


def test_a_whole_board_read_does_not_import_numpy_ma(tmp_path):
    # Any np.median or np.percentile of floats left on the read's path costs a cold read the
    # import of numpy.ma (10-17 ms, a tenth of a 1080p read's budget).
    import cv2

    from sim.render import render_board

    rows = ["." * 15] * 7 + ["....QUARTZ....."] + ["." * 15] * 7
    photo = tmp_path / "board.png"
    cv2.imwrite(str(photo), render_board(rows, seed=5).image)
    code = ("import sys\n"
            f"sys.path.insert(0, {str(REPO)!r})\n"
            "import cv2\n"
            "from scorer.tiles import TileSet\n"
            "from vision.read import read_board\n"
            f"reading = read_board(cv2.imread({str(photo)!r}), None, TileSet.named('en'))\n"
            "print(reading.board[7], 'numpy.ma' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["....QUARTZ.....", "False"]
