"""Medians and percentiles of floating-point arrays, as NumPy computes them, without its import
of :mod:`numpy.ma`.

``np.median`` of a float array checks its result for NaN through ``np.ma.isMaskedArray``, and
``np.percentile`` (like ``np.unique`` without its extra outputs) asks ``np.ma.is_masked``: the
first such call in a process imports :mod:`numpy.ma`, 8-11 ms, as much as a tenth of a cold
board read's own work.  These functions take the same steps as NumPy's (a partition at the
same positions, the same mean or interpolation), so their results are NumPy's to the last bit;
an array holding NaN is handed to NumPy itself, for its answer and warning.

>>> values = np.array([3.0, 1.0, 4.0, 1.5], np.float32)
>>> bool(median(values) == np.median(values)), median(values).dtype
(True, dtype('float32'))
>>> grid = np.arange(12.0).reshape(3, 4)
>>> median(grid, axis=0).tolist(), median(grid, axis=1).tolist()
([4.0, 5.0, 6.0, 7.0], [1.5, 5.5, 9.5])
>>> percentile(grid, 60, axis=1).round(6).tolist()
[[1.8], [5.8], [9.8]]
"""

from __future__ import annotations

import numpy as np


def median(values: np.ndarray, axis: int | None = None) -> np.ndarray:
    """``np.median(values, axis)`` (``axis`` None: of all values).

    >>> float(median(np.array([5, 1, 2])))
    2.0
    """
    a = np.asanyarray(values)
    if not np.issubdtype(a.dtype, np.inexact) or a.size == 0 or a.ndim == 0:
        return np.median(a, axis=axis)  # no NaN check (whole numbers), or nothing to partition
    if axis is None:
        a, axis = a.ravel(), 0
    axis = axis % a.ndim
    size = a.shape[axis]
    half = size // 2
    kth = [half - 1, half, -1] if size % 2 == 0 else [(size - 1) // 2, -1]
    part = np.partition(a, kth, axis=axis)
    if np.isnan(part.take(-1, axis=axis)).any():  # NaN sorts last
        return np.median(a, axis=axis)
    indexer = [slice(None)] * part.ndim
    indexer[axis] = slice(half, half + 1) if size % 2 else slice(half - 1, half + 1)
    return np.mean(part[tuple(indexer)], axis=axis)


def percentile(values: np.ndarray, q: float, axis: int) -> np.ndarray:
    """``np.percentile(values, q, axis=axis, keepdims=True)`` (linear interpolation, one
    percentile).

    >>> percentile(np.array([[1.0, 3.0, 2.0]], np.float32), 50, axis=1)
    array([[2.]], dtype=float32)
    """
    a = np.asanyarray(values)
    axis = axis % a.ndim
    count = a.shape[axis]
    if not np.issubdtype(a.dtype, np.inexact) or count == 0:
        return np.percentile(a, q, axis=axis, keepdims=True)
    virtual = (count - 1) * np.true_divide(q, 100)
    below = int(np.floor(virtual))
    if not 0 <= below < count - 1:  # the first or last value: NumPy's own handling
        return np.percentile(a, q, axis=axis, keepdims=True)
    part = np.partition(np.moveaxis(a, axis, 0), [0, below, below + 1, count - 1], axis=0)
    if np.isnan(part[-1]).any():
        return np.percentile(a, q, axis=axis, keepdims=True)
    previous, following = part[below], part[below + 1]
    if type(q) in (int, float):
        gamma = float(virtual - below)  # a Python number keeps float32 values float32
    else:
        gamma = np.asanyarray(virtual - below).reshape((1,) * (a.ndim - 1))
    # NumPy's lerp: from the nearer end, so that the ends are met exactly.
    difference = np.subtract(following, previous)
    result = np.asanyarray(np.add(previous, difference * gamma))
    np.subtract(following, difference * (1 - gamma), out=result, where=gamma >= 0.5,
                casting="unsafe", dtype=type(result.dtype))
    return np.expand_dims(result, axis)
