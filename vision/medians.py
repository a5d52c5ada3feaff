"""Medians and percentiles of floating-point arrays, as NumPy computes them, without its import
of :mod:`numpy.ma`.

``np.median`` of a float array checks its result for NaN through ``np.ma.isMaskedArray``, and
``np.percentile`` (like ``np.unique`` without its extra outputs) asks ``np.ma.is_masked``: the
first such call in a process imports :mod:`numpy.ma`, 8-11 ms, as much as a tenth of a cold
board read's own work.  These functions find the same values at the same positions as NumPy's
partition (by a sort, which NumPy vectorises and is faster) and take the same mean or
interpolation, so their results are NumPy's to the last bit;
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
    # Sorted whole: NumPy's vectorised sort is several times faster than a partition at the
    # middle and the end (the same values land there, and NaN last).  Sorted along the last
    # axis of a copy laid out so: sorting along a strided axis copies each run of values out
    # and back (the same values land in the same places).
    part = np.moveaxis(a, axis, -1).copy(order="C")
    part.sort(axis=-1)
    if np.isnan(part[..., -1]).any():  # NaN sorts last
        return np.median(a, axis=axis)
    middle = part[..., half : half + 1] if size % 2 else part[..., half - 1 : half + 1]
    return np.mean(middle, axis=-1)


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
    part = np.sort(np.moveaxis(a, axis, 0), axis=0)  # as in median: faster than a partition
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


def medians_where(values: np.ndarray, where: np.ndarray) -> np.ndarray:
    """For each row of ``values`` (N, P, C), the median over its P entries that ``where``
    (N, P) selects (at least one per row), channel by channel: (N, C), the same to the last
    bit as ``np.stack([np.median(v[w], axis=0) for v, w in zip(values, where)])`` for finite
    values (the middle one of each sorted selection, or the mean of the middle two).

    >>> values = np.array([[[1.0], [5.0], [2.0], [9.0]], [[4.0], [3.0], [7.0], [6.0]]],
    ...                   np.float32)
    >>> where = np.array([[True, True, True, False], [True, True, False, True]])
    >>> medians_where(values, where).ravel().tolist()
    [2.0, 4.0]
    """
    counts = where.sum(axis=1)
    # The unselected entries sort last, each row's selection first and in order; sorted with
    # the entries along the last axis (N, C, P), where they lie side by side.
    ordered = np.where(where[:, None, :], np.moveaxis(values, 2, 1), np.inf)
    ordered.sort(axis=2)
    rows = np.arange(len(values))
    upper = ordered[rows, :, counts // 2]
    lower = ordered[rows, :, np.maximum(counts // 2 - 1, 0)]
    # NumPy's median of an even count: the mean of the middle two, summed in the values' type.
    return np.where((counts % 2 == 0)[:, None], (lower + upper) / 2, upper).astype(values.dtype)
