"""The empty squares and the lattice through them (steps 2-3 of :mod:`vision.locate`): regions of
a line mask shaped like squares (cells), and the lattice of square sites grown outward from a
seed cell, its axes then turned onto the grid lines."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import project
from vision.runs import run_boxes

#: A lattice needs at least this many square-shaped regions on it.
_MIN_LATTICE_CELLS = 12
#: Farthest (in squares) a cell's centre may lie from its lattice site to be on the lattice.
_SITE_TOLERANCE = 0.22


@dataclass(frozen=True)
class _Cells:
    centres: np.ndarray  # (n, 2) float64, work-image pixels
    areas: np.ndarray  # (n,) float64


def _find_cells(line_mask: np.ndarray) -> _Cells:
    """Regions enclosed by lines that are shaped like a filled quadrilateral."""
    count, labels = cv2.connectedComponents(1 - line_mask, connectivity=4, ltype=cv2.CV_32S)
    runs = _label_runs(labels)
    stats = _box_stats(runs, count, labels.shape)
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    width = stats[:, cv2.CC_STAT_WIDTH].astype(np.float64)
    height = stats[:, cv2.CC_STAT_HEIGHT].astype(np.float64)
    candidate = (
        (area >= 20)
        & (area <= line_mask.size / 60)
        & (np.minimum(width, height) >= 4)
        & (np.maximum(width, height) <= 4 * np.minimum(width, height))
        & (area >= 0.4 * width * height)
    )
    candidate[0] = candidate[0] and False  # label 0 is the line mask itself
    if not candidate.any():
        return _Cells(np.zeros((0, 2)), np.zeros(0))
    sums = _pixel_sums(runs, np.flatnonzero(candidate), count)
    n = sums[0]
    n_safe = np.maximum(n, 1)
    mx = sums[1] / n_safe
    my = sums[2] / n_safe
    cxx = sums[3] / n_safe - mx * mx
    cyy = sums[4] / n_safe - my * my
    cxy = sums[5] / n_safe - mx * my
    det = cxx * cyy - cxy * cxy
    # A filled parallelogram of area A has second-moment determinant exactly A^2/144.
    fill_shape = 144 * det / np.maximum(n * n, 1)
    half_trace = (cxx + cyy) / 2
    spread = np.sqrt(np.maximum(half_trace**2 - det, 0))
    elongation = (half_trace + spread) / np.maximum(half_trace - spread, 1e-9)
    good = candidate & (fill_shape > 0.85) & (fill_shape < 1.3) & (elongation < 9)
    index = np.nonzero(good)[0]
    return _Cells(np.stack([mx[index], my[index]], axis=1), n[index])


def _label_runs(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The runs of one label along the rows of ``labels``, in raster order: each one's label,
    first pixel (x, y) and length.  A picture of squares is a few runs a row."""
    height, width = labels.shape
    starts = np.empty((height, width), bool)
    starts[:, 0] = True
    np.not_equal(labels[:, 1:], labels[:, :-1], out=starts[:, 1:])
    first = np.flatnonzero(starts)
    ys = first // width
    return labels.ravel()[first], first - ys * width, ys, np.diff(first, append=labels.size)


def _box_stats(runs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], count: int,
               shape: tuple[int, int]) -> np.ndarray:
    """``cv2.connectedComponentsWithStats``' statistics (count, 5) int32 of the labels that
    ``cv2.connectedComponents`` gave (the same labels) in a picture of ``shape``: box and area
    of each, from their :func:`_label_runs`.  OpenCV's pass over every pixel took twice the
    labelling's time (1024x576, one core: 4.5 ms against 1.2-2.2 for the labels and 0.7-0.8
    for the runs)."""
    label, xs, ys, length = runs
    stats = np.empty((count, 5), np.int32)
    # Whole numbers far below 2**53: exact in float64.
    stats[:, cv2.CC_STAT_AREA] = np.bincount(label, weights=length, minlength=count)
    stats[:, :4] = run_boxes(label, xs, ys, length, count, shape)
    # As OpenCV leaves a label with no pixel (the background, where there is none).
    stats[stats[:, cv2.CC_STAT_AREA] == 0, :4] = (-1, np.iinfo(np.int32).max, 0, 0)
    return stats


def _pixel_sums(runs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
                which: np.ndarray, count: int) -> np.ndarray:
    """For the components ``which``, the sums over their pixels of 1, x, y, x*x, y*y and x*y,
    as (6, ``count``) float64 (zero for the other labels), from their :func:`_label_runs`:
    each run's sums are whole numbers in closed form, and so are their totals (far below
    2**53, exact in float64), the very sums a pass over every pixel adds up."""
    chosen = np.zeros(count, bool)
    chosen[which] = True
    label, xs, ys, n = (part[chosen[runs[0]]] for part in runs)
    sx = n * xs + n * (n - 1) // 2
    sxx = n * xs * xs + xs * n * (n - 1) + (n - 1) * n * (2 * n - 1) // 6
    return np.stack([np.bincount(label, sums.astype(np.float64), count)
                     for sums in (n, sx, n * ys, sxx, n * ys * ys, ys * sx)])


@dataclass
class _Lattice:
    homography: np.ndarray  # lattice (square centres at integer coordinates) -> work image
    sites: np.ndarray  # (k, 2) int, lattice coordinates of the member cells
    members: np.ndarray  # (k,) indices into the cells


def _affine_homography(origin: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    return np.array([[u[0], v[0], origin[0]], [u[1], v[1], origin[1]], [0, 0, 1]], float)


def _assign(cells: _Cells, homography: np.ndarray, box: np.ndarray) -> _Lattice | None:
    """Cells lying on lattice sites inside ``box`` (x min, x max, y min, y max), one per site."""
    try:
        inverse = np.linalg.inv(homography)
    except np.linalg.LinAlgError:
        return None
    mapped = project(inverse, cells.centres)
    with np.errstate(invalid="ignore"):
        sites = np.rint(mapped)
    residual = np.hypot(*(mapped - sites).T)
    # Expected cell area from the local scale of the homography (area of a unit square).
    corners = np.stack(
        [sites + [-0.5, -0.5], sites + [0.5, -0.5], sites + [0.5, 0.5], sites + [-0.5, 0.5]]
    )
    image_corners = project(homography, corners.reshape(-1, 2)).reshape(4, -1, 2)
    x, y = image_corners[..., 0], image_corners[..., 1]
    square_area = 0.5 * np.abs(
        (x[0] * y[1] - x[1] * y[0])
        + (x[1] * y[2] - x[2] * y[1])
        + (x[2] * y[3] - x[3] * y[2])
        + (x[3] * y[0] - x[0] * y[3])
    )
    area_ratio = cells.areas / np.maximum(square_area, 1e-9)
    ok = (
        np.isfinite(residual)
        & (residual < _SITE_TOLERANCE)
        & (sites[:, 0] >= box[0])
        & (sites[:, 0] <= box[1])
        & (sites[:, 1] >= box[2])
        & (sites[:, 1] <= box[3])
        & (area_ratio > 0.3)
        & (area_ratio < 1.25)
    )
    index = np.nonzero(ok)[0]
    if len(index) == 0:
        return None
    # One cell per site: the closest to it.
    order = index[np.argsort(residual[index])]
    keys = sites[order, 0] * 10007 + sites[order, 1]
    _, first = np.unique(keys, return_index=True)
    chosen = order[first]
    return _Lattice(homography, sites[chosen].astype(int), chosen)


def _fit(lattice: _Lattice, cells: _Cells) -> np.ndarray | None:
    """Least-squares lattice-to-image map through the member cells (affine while few)."""
    src = lattice.sites.astype(np.float64)
    dst = cells.centres[lattice.members]
    spans = np.ptp(src, axis=0) if len(src) else np.zeros(2)
    if len(src) < 3 or min(spans) < 1:
        return None
    if len(src) < 12 or min(spans) < 3:
        design = np.hstack([src, np.ones((len(src), 1))])
        solution, *_ = np.linalg.lstsq(design, dst, rcond=None)
        return np.vstack([solution.T, [0, 0, 1]])
    matrix, _ = cv2.findHomography(src, dst, 0)
    return matrix


def _grow(cells: _Cells, seed: int, neighbours: np.ndarray) -> _Lattice | None:
    """Grow a lattice from one seed cell whose neighbouring cells give the two axes."""
    offsets = cells.centres[neighbours] - cells.centres[seed]
    lengths = np.hypot(*offsets.T)
    first = int(np.argmin(lengths))
    u = offsets[first]
    cosines = np.abs(offsets @ u) / np.maximum(lengths * lengths[first], 1e-9)
    crossing = np.nonzero(cosines < 0.5)[0]
    if len(crossing) == 0:
        return None
    v = offsets[crossing[np.argmin(lengths[crossing])]]
    homography = _affine_homography(cells.centres[seed], u, v)
    # Grow outward from the members found so far, a margin proportional to their extent at a
    # time: near the members even a rough (affine) fit predicts the next squares well, and
    # each round's refit extrapolates better under strong perspective.
    box = np.array([-1.0, 1.0, -1.0, 1.0])
    lattice: _Lattice | None = None
    for _ in range(30):
        assigned = _assign(cells, homography, box)
        if assigned is None:
            break
        refit = _fit(assigned, cells)
        if refit is not None:
            homography = refit
            assigned = _assign(cells, homography, box) or assigned
        grew = lattice is None or len(assigned.members) > len(lattice.members)
        lattice = assigned
        low, high = lattice.sites.min(axis=0), lattice.sites.max(axis=0)
        margin = max(2.0, 0.5 * float(np.max(high - low)))
        new_box = np.array([low[0] - margin, high[0] + margin, low[1] - margin, high[1] + margin])
        if not grew and np.all(new_box == box):
            break
        box = new_box
    return lattice


def _best_lattice(cells: _Cells, max_seeds: int = 12) -> _Lattice | None:
    n = len(cells.areas)
    if n < 4:
        return None
    diff = cells.centres[:, None, :] - cells.centres[None, :, :]
    distance = np.hypot(diff[..., 0], diff[..., 1])
    size = np.sqrt(cells.areas)
    ratio = cells.areas[:, None] / cells.areas[None, :]
    # Neighbours: similar size, close enough to be an adjacent or diagonal square.
    near = (
        (distance > 0.5 * size[:, None])
        & (distance < 2.2 * size[:, None])
        & (ratio > 0.5)
        & (ratio < 2)
    )
    neighbour_count = near.sum(axis=1)
    seeds = np.argsort(-neighbour_count)
    best: _Lattice | None = None
    covered = np.zeros(n, bool)
    tried = 0
    for seed in seeds:
        if neighbour_count[seed] < 2 or tried >= max_seeds:
            break
        if covered[seed]:
            continue
        tried += 1
        lattice = _grow(cells, int(seed), np.nonzero(near[seed])[0])
        if lattice is None:
            continue
        covered[lattice.members] = True
        if best is None or len(lattice.members) > len(best.members):
            best = lattice
    return None if best is None else _square_basis(best)


#: Integer changes of lattice basis (determinant 1) that a skewed pick of axes may need undoing.
_SHEARS = [
    np.array(m, float)
    for m in (
        [[1, 0], [0, 1]], [[1, 1], [0, 1]], [[1, -1], [0, 1]], [[1, 0], [1, 1]], [[1, 0], [-1, 1]],
        [[1, 2], [0, 1]], [[1, -2], [0, 1]], [[1, 0], [2, 1]], [[1, 0], [-2, 1]],
    )
]


def _square_basis(lattice: _Lattice) -> _Lattice:
    """Re-express the lattice in the basis whose axes run along the grid lines.

    The same lattice points can be counted along diagonals too (the seed's neighbours may offer a
    diagonal as an axis when perspective squeezes one direction).  On a square board the true
    axes are the ones that pack the squares into the smallest bounding box, unless cells off
    the board (a tile rack's, the score track's) stretch that box: a basis whose axes meet at
    a slant (:data:`_SLANTED`) then gives way to one whose axes meet nearly square in the photo
    (:data:`_SQUARE_ENOUGH`), as a grid's do however the camera is tilted.
    """
    if len(lattice.sites) < 3:
        return lattice
    areas = [float(np.prod(np.ptp(lattice.sites @ shear.T, axis=0) + 1)) for shear in _SHEARS]
    best = int(np.argmin(areas))  # the first of equals: the basis as found
    if _axes_slant(_in_basis(lattice, _SHEARS[best])) > _SLANTED:
        slant = [_axes_slant(_in_basis(lattice, shear)) for shear in _SHEARS]
        squarest = int(np.argmin(slant))
        if slant[squarest] < _SQUARE_ENOUGH:
            best = squarest
    return lattice if best == 0 else _in_basis(lattice, _SHEARS[best])


#: |cos| of the angle between a lattice basis's axes in the photo, at its cells' middle, above
#: which the basis is taken for one with a diagonal among its axes (on 1,000 rendered photos
#: tilted up to 35 degrees a grid's axes meet at 0.38 at most, anywhere on the board) ...
_SLANTED = 0.5
#: ... where another basis's axes meet within this of square.
_SQUARE_ENOUGH = 0.2


def _in_basis(lattice: _Lattice, shear: np.ndarray) -> _Lattice:
    """The lattice re-expressed in the basis that ``shear`` (an integer change of basis) gives."""
    to_new = np.eye(3)
    to_new[:2, :2] = shear
    homography = lattice.homography @ np.linalg.inv(to_new)
    sites = np.rint(lattice.sites @ shear.T).astype(int)
    return _Lattice(homography, sites, lattice.members)


def _axes_slant(lattice: _Lattice) -> float:
    """|cos| of the angle at which the lattice's axes meet in the photo, at the middle of its
    cells."""
    middle = lattice.sites.mean(axis=0)
    projected = project(lattice.homography, [middle, middle + (1, 0), middle + (0, 1)])
    u, v = projected[1] - projected[0], projected[2] - projected[0]
    return float(abs(u @ v) / max(np.linalg.norm(u) * np.linalg.norm(v), 1e-9))
