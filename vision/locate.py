"""Find the 15x15 playing grid in a photo of a board, without markers.

The grid lines are the one thing every edition shares, so the search uses only them:

1. On a reduced grey image, thin lines are picked out with a morphological hat filter, once for
   dark lines (the green European board) and once for light lines (English boards, whose squares
   are separated by white lines).  No edition's colours are assumed.  Where grey shows few
   squares, each colour channel is filtered and the strongest line response kept: green lines
   on green squares, blurred or in dim light, may only stand out in their channel.
2. The regions the lines enclose are the empty squares.  Regions shaped like a filled
   quadrilateral become *cells*.
3. From a seed cell and its nearest neighbours a lattice (a homography from integer square
   coordinates to the image) is grown outward, admitting cells that land on lattice sites and
   refitting as it goes (affine while small, projective once it spans a few squares).  Clutter
   (carpet, the score track, tile racks) does not sit on the lattice and is left out (where a
   few specks far off land on its sites by chance, they are dropped once it has grown).  The
   lattice's axes are then turned onto the grid lines (a diagonal can pass for an axis, and
   where a few cells off the board joined the lattice, even pack its cells tightest).
4. The lattice is refined against the lines themselves: the ridge peak is found near many points
   along each projected grid line and the homography is refitted to those peaks (a line-based
   DLT), which makes it sub-pixel accurate.  Tiles stand above the board, so at a slant their
   edges lie off the printed lines: where enough empty squares were found the fit rests on the
   lines between two of them, and other peaks count (for less) only where they agree with it
   (from the start where that fit, resting on lines bunched on part of the board, would put
   several of the empty squares found elsewhere off their squares).
   The lattice is extended line by line while the next line is seen along its length (under
   tiles the gaps between them carry it).
5. Which 16 consecutive lines in each direction are the grid is decided by line support and by
   where empty squares were found: a board's edge can look like one more line, but no squares
   lie beyond it, and no lines cross the frame's band.  On a colour photo the premium squares
   may then move the window by up to two lines, when one placement matches their layout
   clearly better than every other; where none does and the lines were seen over less than
   the grid (glare, tiles), to any window that holds them.  Glare or tiles can make a window
   half off the board stand out so: the move is undone where the premium squares' red and
   blue disagree with it.
6. Where the lines seen stop short of that window, the lattice there is the fit to the lines
   between empty squares, extrapolated; it is fitted and grown again within the window, the
   peaks near it admitted from the start and a single hidden line stepped over.
7. Where the first look's lattice holds fewer than four dozen squares, on a colour photo, the
   lattice of most squares among every line mask there (in grey; in colour where grey has
   none larger) replaces it when its window matches the premium squares' layout clearly
   better: the search stops at the first mask with two dozen squares on one lattice, and that
   can be a wrong lattice (every other square, or rows sheared by motion blur) that the lines
   do not refute.  A placement on a lattice of any size whose premium squares and lines are
   both unseen gives way so to the lattice of any other mask.
8. A placement whose lines are seen poorly on the photo, or whose window's premium squares are
   not where the layout has them, is doubtful: the other looks (grey and colour at the first
   resolution, grey farther and closer, grey along strokes, and the premium squares' colours
   of the very last look below) are placed too, and one that puts the grid elsewhere (half a
   square or more off at a corner) and fits the photo clearly better, lines and premium
   squares together, replaces it.  The search stops at the first look with enough squares,
   and few squares can make a lattice that bends.  A look made during the search that found
   more squares than the one taken is asked so too.

Boards small in a large photo (squares under 16 px at the first resolution) are searched again
at twice the resolution.  Where no look finds a lattice, one last look averages the line
response along short strokes first: out of focus and with sensor noise, faint lines are no
stronger than the noise, but longer (closer too, where the squares were too small).  Where
even that finds none, the next pools the cells of every mask tried at the first
resolution and keeps those that two masks agree on: each mask keeps a few squares and as
many specks of noise, but the squares are the same in every mask and the specks are not.
The very last looks past the lines altogether, at the premium squares' red and blue: on a
colour photo, the layout is matched to the blobs of those colours (:func:`_premium_look`).

>>> import numpy as np
>>> locate_board(np.zeros((120, 160, 3), np.uint8))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
vision.locate.BoardNotFound: no grid of squares found: 0 square-like regions in a 160x120 ...
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scorer.squares import PREMIUM_LAYOUT
from vision.geometry import (
    GRID_SIZE,
    as_corners,
    grid_to_image,
    image_to_grid,
    order_corners,
    project,
    rotate_corners,
    scaled,
)
from vision.medians import median

__all__ = [
    "BoardLocation",
    "BoardNotFound",
    "check_corners",
    "locate_board",
    "rotate_corners",
]

#: Long side of the reduced image the search runs on first.
WORK_LONG_SIDE = 1024
#: Width of the hat filter; lines up to about half of it wide are picked out.
_HAT_SIZE = 7
#: A lattice needs at least this many square-shaped regions on it.
_MIN_LATTICE_CELLS = 12
#: Working resolution of the second look at a blurred photo, relative to the first.
_FARTHER = 0.6
#: A lattice of this many empty squares needs no second try without noise specks, nor a second
#: look in colour.
_ENOUGH_CELLS = 24
#: Line-mask components spanning less than the image's long side over this are noise specks.
_SPECK_FRACTION = 100
#: Squares smaller than this (pixels a side) at the first resolution call for a closer look.
_MIN_WORK_SQUARE_PX = 16
#: Farthest (in squares) a cell's centre may lie from its lattice site to be on the lattice.
_SITE_TOLERANCE = 0.22
#: Length (working pixels) and number of orientations of the short strokes along which the line
#: response is averaged in the last look (see :func:`_along_strokes`).
_STROKE_LENGTH = 9
_STROKE_ANGLES = 8
#: Gains on the stroke-averaged line response, tried in turn against the line mask's fixed
#: thresholds: averaging lowers a blurred line's peak as well as the noise, by an amount that
#: depends on the blur.
_STROKE_GAINS = (1.0, 1.25, 1.5, 1.75, 2.0)


class BoardNotFound(Exception):
    """No 15x15 grid could be found in the image (the message says what was missing)."""


@dataclass(frozen=True)
class BoardLocation:
    """Where the playing grid is in one image.

    ``corners`` are the outer corners of the 15x15 squares in image pixels, float32 ``(4, 2)``,
    ordered top-left, top-right, bottom-right, bottom-left as seen in the image.
    ``homography`` maps image pixels to grid units (the grid spans ``(0, 0)``-``(15, 15)``); use
    :meth:`homography_to` for a canonical image of a given size.  ``quality`` is
    :func:`check_corners` of the result, 0..1 (a reference for later re-checks, not a verdict:
    right fits on low-contrast boards score 0.3; NaN where not asked for, see
    :func:`locate_board`).  ``square_px`` is the mean side of a square in
    the image, in pixels.
    """

    corners: np.ndarray
    homography: np.ndarray
    quality: float
    square_px: float

    def homography_to(self, square_px: int = 40, margin: int = 0) -> np.ndarray:
        """Homography from the image onto a canonical image (``square_px`` per square)."""
        return scaled(self.homography, square_px, margin)


# --------------------------------------------------------------------------- line response


def _grey(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise TypeError("image must be a uint8 numpy array (BGR or grey)")
    if image.ndim == 3 and image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if image.ndim == 2:
        return image
    raise ValueError(f"image must be HxWx3 (BGR) or HxW (grey), got shape {image.shape}")


def _ridges(work: np.ndarray, dark_lines: bool) -> np.ndarray:
    """Strength of thin dark (or light) lines at each pixel, uint8.

    On a colour image each channel is filtered and the strongest response kept: a line that
    differs from its squares in one colour more than in brightness (dark green lines on green
    squares, pale green on green) stands out in that channel.
    """
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (_HAT_SIZE, _HAT_SIZE))
    operation = cv2.MORPH_BLACKHAT if dark_lines else cv2.MORPH_TOPHAT
    hat = cv2.morphologyEx(work, operation, kernel)
    return hat.max(axis=2) if hat.ndim == 3 else hat


def _line_mask(ridges: np.ndarray, despeckle: bool = False) -> np.ndarray:
    """Pixels on lines: strong relative to the strongest line nearby, so faint grids still close."""
    window = max(9, (max(ridges.shape) // 40) | 1)
    local_max = cv2.dilate(ridges, cv2.getStructuringElement(cv2.MORPH_RECT, (window, window)))
    relative = ridges.astype(np.uint16) * 20 > local_max.astype(np.uint16) * 7
    mask = ((ridges > 6) | ((ridges > 4) & relative)).astype(np.uint8)
    if despeckle:
        # Sensor noise leaves specks of "line" inside the squares, whose holes spoil the
        # squares' shape: a speck is a component much smaller than a square.  (Faint grids
        # break into short pieces too, so this is a second try, not the first.)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        speck = max(4, max(ridges.shape) // _SPECK_FRACTION)
        extent = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
        keep = (extent >= speck).astype(np.uint8)
        keep[0] = 0
        mask = keep[labels]
    # Closing one-pixel breaks keeps neighbouring squares from merging into one region.
    return cv2.dilate(mask, np.ones((3, 3), np.uint8))


def _stroke_kernels() -> list[np.ndarray]:
    """Normalised kernels of straight strokes :data:`_STROKE_LENGTH` long, one per orientation."""
    kernels = []
    middle = (_STROKE_LENGTH - 1) / 2
    along = np.linspace(-middle, middle, 4 * _STROKE_LENGTH)
    for angle in np.pi * np.arange(_STROKE_ANGLES) / _STROKE_ANGLES:
        kernel = np.zeros((_STROKE_LENGTH, _STROKE_LENGTH), np.float32)
        columns = np.rint(middle + along * np.cos(angle)).astype(int)
        rows = np.rint(middle + along * np.sin(angle)).astype(int)
        kernel[rows, columns] = 1
        kernels.append(kernel / kernel.sum())
    return kernels


_STROKES = _stroke_kernels()


def _along_strokes(ridges: np.ndarray) -> np.ndarray:
    """The line response averaged along short straight strokes, the best orientation's (float32).

    Under blur and sensor noise a thin line's response is as weak as the noise's: thresholded,
    the noise bites into the squares and the line breaks, so few regions keep a square's shape.
    Along a stroke lying on the line its response stays, while noise specks average away.
    """
    response = ridges.astype(np.float32)
    return np.max([cv2.filter2D(response, -1, kernel) for kernel in _STROKES], axis=0)


# --------------------------------------------------------------------------- cells


@dataclass(frozen=True)
class _Cells:
    centres: np.ndarray  # (n, 2) float64, work-image pixels
    areas: np.ndarray  # (n,) float64


def _find_cells(line_mask: np.ndarray) -> _Cells:
    """Regions enclosed by lines that are shaped like a filled quadrilateral."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(
        1 - line_mask, connectivity=4, ltype=cv2.CV_32S
    )
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
    # The candidates' pixels in raster order, as np.nonzero gives them (a third of its time).
    flat = np.flatnonzero(candidate[labels])
    lab = labels.ravel()[flat]
    ys = flat // labels.shape[1]
    xs = (flat - ys * labels.shape[1]).astype(np.float64)
    ys = ys.astype(np.float64)
    n = np.bincount(lab, minlength=count).astype(np.float64)
    n_safe = np.maximum(n, 1)
    mx = np.bincount(lab, xs, count) / n_safe
    my = np.bincount(lab, ys, count) / n_safe
    cxx = np.bincount(lab, xs * xs, count) / n_safe - mx * mx
    cyy = np.bincount(lab, ys * ys, count) / n_safe - my * my
    cxy = np.bincount(lab, xs * ys, count) / n_safe - mx * my
    det = cxx * cyy - cxy * cxy
    # A filled parallelogram of area A has second-moment determinant exactly A^2/144.
    fill_shape = 144 * det / np.maximum(n * n, 1)
    half_trace = (cxx + cyy) / 2
    spread = np.sqrt(np.maximum(half_trace**2 - det, 0))
    elongation = (half_trace + spread) / np.maximum(half_trace - spread, 1e-9)
    good = candidate & (fill_shape > 0.85) & (fill_shape < 1.3) & (elongation < 9)
    index = np.nonzero(good)[0]
    return _Cells(np.stack([mx[index], my[index]], axis=1), n[index])


# --------------------------------------------------------------------------- lattice growth


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


# --------------------------------------------------------------------------- line refinement

#: Lattice coordinates from here on put grid lines at integers: square (i, j) spans i..i+1.
_CENTRE_TO_LINES = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]], float)


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


def _line_samples(
    first: int, last: int, along: tuple[float, float], vertical: bool, step: float = 0.25
) -> tuple[np.ndarray, np.ndarray]:
    """Lattice points on lines ``first..last`` between line crossings, and each one's line."""
    lines = np.arange(first, last + 1, dtype=np.float64)
    ts = np.arange(np.floor(along[0]), np.ceil(along[1]), 1.0)
    ts = (ts[:, None] + np.arange(step, 1.0 - 1e-9, step)[None, :]).ravel()
    ts = ts[(ts > along[0]) & (ts < along[1])]
    grid_lines, grid_ts = np.meshgrid(lines, ts, indexing="ij")
    if vertical:
        points = np.stack([grid_lines, grid_ts], axis=-1)
    else:
        points = np.stack([grid_ts, grid_lines], axis=-1)
    return points.reshape(-1, 2), grid_lines.ravel()


def _peaks(
    ridges: np.ndarray, homography: np.ndarray, points: np.ndarray, vertical: bool, reach: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Search across the line at each lattice point for the ridge peak.

    Returns the peak's image position, its lattice offset from the line and its strength.
    """
    offsets = np.linspace(-reach, reach, 21)
    normal = np.array([1.0, 0.0]) if vertical else np.array([0.0, 1.0])
    # The points moved along the normal (an axis): the same coordinates as points + offsets *
    # normal, built without the product.
    across = 0 if vertical else 1
    probe = np.empty((len(points), len(offsets), 2))
    probe[..., across] = points[:, None, across] + offsets[None, :]
    probe[..., 1 - across] = points[:, None, 1 - across]
    image_points = project(homography, probe.reshape(-1, 2)).reshape(len(points), len(offsets), 2)
    profile = _sample(ridges, image_points)
    best = np.clip(np.argmax(profile, axis=1), 1, len(offsets) - 2)
    rows = np.arange(len(points))
    left, mid, right = profile[rows, best - 1], profile[rows, best], profile[rows, best + 1]
    curvature = left - 2 * mid + right
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = np.where(curvature < 0, 0.5 * (left - right) / curvature, 0.0)
    shift = np.clip(shift, -0.5, 0.5)
    offset = offsets[best] + shift * (offsets[1] - offsets[0])
    on_edge = (np.argmax(profile, axis=1) == 0) | (np.argmax(profile, axis=1) == len(offsets) - 1)
    strength = np.where(on_edge, 0.0, mid)
    peak_lattice = points + offset[:, None] * normal
    return project(homography, peak_lattice), offset, strength


def _normaliser(points: np.ndarray) -> np.ndarray:
    centre = points.mean(axis=0)
    spread = np.sqrt(((points - centre) ** 2).sum(axis=1).mean()) / np.sqrt(2)
    s = 1.0 / max(spread, 1e-9)
    return np.array([[s, 0, -s * centre[0]], [0, s, -s * centre[1]], [0, 0, 1]])


def _fit_to_lines(
    image_points: np.ndarray, line_index: np.ndarray, vertical: np.ndarray, weights: np.ndarray
) -> np.ndarray | None:
    """Homography lattice -> image from points known to lie on given lattice lines (DLT)."""
    if len(image_points) < 8 or vertical.all() or not vertical.any():
        return None
    t_img = _normaliser(image_points)
    p = np.hstack([image_points, np.ones((len(image_points), 1))]) @ t_img.T
    k_centre = line_index.mean()
    k_scale = 1.0 / max(line_index.std(), 1e-9)
    k = (line_index - k_centre) * k_scale
    zeros = np.zeros_like(p)
    # Row for x-lines: G0.p - k G2.p = 0; for y-lines: G1.p - k G2.p = 0.
    rows = np.where(
        vertical[:, None],
        np.hstack([p, zeros, -k[:, None] * p]),
        np.hstack([zeros, p, -k[:, None] * p]),
    )
    rows *= weights[:, None]
    _, _, vt = np.linalg.svd(rows, full_matrices=False)
    g_norm = vt[-1].reshape(3, 3)
    t_lat_inv = np.array([[1 / k_scale, 0, k_centre], [0, 1 / k_scale, k_centre], [0, 0, 1]])
    image_to_lattice = t_lat_inv @ g_norm @ t_img
    try:
        lattice_to_image = np.linalg.inv(image_to_lattice)
    except np.linalg.LinAlgError:
        return None
    return lattice_to_image / lattice_to_image[2, 2]


class _EmptySquares:
    """The squares where empty cells were found (lattice sites), to ask which line samples lie
    between two of them.

    Tiles stand above the board: seen at a slant, the gap between two tiles, a tile's edge and
    its shadow make ridges a tenth to a fifth of a square off the printed line they cover, all
    pulled the same way.  Only a line between two empty squares is surely the printed line.

    ``centres``: where the lattice fitted through the empty squares' regions puts their centres
    (work image pixels), to check a fit to the lines against (:meth:`misplaced`).
    """

    def __init__(self, sites: np.ndarray, centres: np.ndarray | None = None) -> None:
        self.sites = sites
        self.centres = centres
        self.origin = sites.min(axis=0) - 1
        self.found = np.zeros(tuple(np.ptp(sites, axis=0) + 3), bool)
        self.found[tuple((sites - self.origin).T)] = True

    def misplaced(self, homography: np.ndarray) -> int:
        """How many of the empty squares' ``centres`` lie off their squares under ``homography``
        (lattice, grid lines at integers, to work image) by more than a lattice admits."""
        if self.centres is None:
            return 0
        seen_at = project(np.linalg.inv(homography), self.centres) - (self.sites + 0.5)
        return int((np.hypot(*seen_at.T) > _SITE_TOLERANCE).sum())

    def _empty(self, columns: np.ndarray, rows: np.ndarray) -> np.ndarray:
        i, j = columns - self.origin[0], rows - self.origin[1]
        inside = (i >= 0) & (i < self.found.shape[0]) & (j >= 0) & (j < self.found.shape[1])
        result = np.zeros(len(i), bool)
        result[inside] = self.found[i[inside], j[inside]]
        return result

    def between(self, points: np.ndarray, vertical: bool) -> np.ndarray:
        """Which line samples (lattice points on lines) have an empty square on both sides."""
        line_axis, along_axis = (0, 1) if vertical else (1, 0)
        line = np.rint(points[:, line_axis]).astype(int)
        square = np.floor(points[:, along_axis]).astype(int)
        if vertical:
            return self._empty(line - 1, square) & self._empty(line, square)
        return self._empty(square, line - 1) & self._empty(square, line)


#: Fewest samples between empty squares, per direction, that a refit may start from alone.
_MIN_BARE_SAMPLES = 24
#: Farthest (in squares) from the lattice fitted to the lines between empty squares that a peak
#: elsewhere may lie and still count: where few empty squares were found, the lines elsewhere
#: carry the fit across the board, but a tile's edge lies farther off than this.
_ADMIT_OFFSET = 0.06
#: A fit to the lines between empty squares that puts this many of the empty squares seen off
#: their squares (by more than :data:`_SITE_TOLERANCE`) extrapolates wrongly beyond those lines.
_MISPLACED_SQUARES = 3
#: Weight of an admitted peak elsewhere relative to one between two empty squares.
_ADMIT_WEIGHT = 0.2


def _refine(
    ridges: np.ndarray,
    homography: np.ndarray,
    x_lines: tuple[int, int],
    y_lines: tuple[int, int],
    reach: float = 0.3,
    rounds: int = 3,
    empty: _EmptySquares | None = None,
    seen: tuple[tuple[int, int], tuple[int, int]] | None = None,
) -> np.ndarray:
    """Refit the lattice to ridge peaks along lines ``x_lines`` and ``y_lines`` (inclusive).

    With ``empty`` given and enough samples between empty squares in each direction, the first
    round fits the lines between two empty squares alone (see :class:`_EmptySquares`); later
    rounds admit, at :data:`_ADMIT_WEIGHT`, peaks elsewhere within :data:`_ADMIT_OFFSET` of that
    fit.  With too few such samples, every round takes only the peaks that close to the fit so
    far (the lattice of empty squares at first).  Where the first round's fit to the lines
    between empty squares puts :data:`_MISPLACED_SQUARES` or more of the empty squares found off
    their squares, it is redone admitting the peaks elsewhere near the lattice given.

    ``seen``: the first and last lines in each direction along which the lattice given was
    grown; there the first round too admits the peaks elsewhere that lie that close to it.  The
    lines between empty squares pin the lattice where they are, but a fit to them alone
    extrapolates its perspective to the rest of the board: where they cover only a corner of
    it, half a square off on the far side, beyond the reach of every later round.  The lattice
    given knows better where it was grown along the lines (and no better beyond them).
    """
    v_points, v_index = _line_samples(*x_lines, (y_lines[0], y_lines[1]), vertical=True)
    h_points, h_index = _line_samples(*y_lines, (x_lines[0], x_lines[1]), vertical=False)
    trusted = np.ones(len(v_index) + len(h_index), bool)
    admit_first = np.zeros(len(trusted), bool)
    if seen is not None:
        points = np.vstack([v_points, h_points])
        admit_first = (
            (points[:, 0] >= seen[0][0]) & (points[:, 0] <= seen[0][1])
            & (points[:, 1] >= seen[1][0]) & (points[:, 1] <= seen[1][1])
        )
    if empty is not None:
        v_bare, h_bare = empty.between(v_points, True), empty.between(h_points, False)
        # Too few of them to rest a fit on: the lattice found from the empty squares stands in
        # for their fit, and only peaks near it count.
        enough = min(v_bare.sum(), h_bare.sum()) >= _MIN_BARE_SAMPLES
        trusted = np.concatenate([v_bare, h_bare]) & enough
    for round_number in range(rounds):
        v_img, v_off, v_str = _peaks(ridges, homography, v_points, True, reach)
        h_img, h_off, h_str = _peaks(ridges, homography, h_points, False, reach)
        strength = np.concatenate([v_str, h_str])
        floor = 0.4 * median(strength[strength > 0]) if (strength > 0).any() else 1.0
        offsets = np.abs(np.concatenate([v_off, h_off]))
        near = offsets < reach * (1.0 if round_number == 0 else 0.6)
        weights = np.sqrt(strength) * np.where(trusted, 1.0, _ADMIT_WEIGHT)
        image_points = np.vstack([v_img, h_img])
        line_index = np.concatenate([v_index, h_index])
        vertical = np.concatenate([np.ones(len(v_index), bool), np.zeros(len(h_index), bool)])
        admit_now = admit_first | (round_number > 0 or not trusted.any())
        while True:
            admitted = ~trusted & (offsets < _ADMIT_OFFSET) & admit_now
            keep = (strength > floor) & ((trusted & near) | admitted)
            refit = _fit_to_lines(
                image_points[keep], line_index[keep], vertical[keep], weights[keep]
            )
            if (admit_now.all() or refit is None or empty is None
                    or empty.misplaced(refit) < _MISPLACED_SQUARES):
                break
            # The lines between empty squares, bunched on part of the board, extrapolate their
            # perspective beyond it and put empty squares seen there off their squares: the
            # peaks near the lattice given (which rests on those squares) count from the start.
            admit_first = admit_now = np.ones(len(trusted), bool)
        if refit is None:
            break
        homography = refit
        reach = max(0.12, reach * 0.6)
    return homography


def _line_support(
    ridges: np.ndarray,
    homography: np.ndarray,
    lines: np.ndarray,
    along: tuple[float, float],
    vertical: bool,
    floor: float,
    reach: float,
) -> np.ndarray:
    """For each lattice line, the fraction of its length where a straight ridge runs along it.

    Peaks are searched up to ``reach`` either side so a line predicted slightly off is still
    seen; to count, the peaks must lie on one straight line (a grid line, not texture) within
    a tenth of a square of the prediction.
    """
    position, _, agree, enough = _line_agreement(
        ridges, homography, lines, along, vertical, floor, reach
    )
    count = len(lines)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.bincount(position, agree, count) / np.bincount(position, minlength=count)
    return np.where(enough, share, 0.0)


def _crossing_support(
    ridges: np.ndarray,
    homography: np.ndarray,
    span: tuple[int, int],
    along: tuple[float, float],
    vertical: bool,
    floor: float,
) -> np.ndarray:
    """For each column of squares between the lines of ``span`` (rows where not ``vertical``),
    the mean share of its width over which the crossing lines ``along`` are seen there.

    Every row and column of the grid is crossed by the other direction's lines (under tiles,
    by the gaps between them); the frame's band just outside the grid, whose edge can pass
    for one more line, is crossed by none.
    """
    crossing = np.arange(int(np.floor(along[0])), int(np.ceil(along[1])) + 1)
    position, t, agree, enough = _line_agreement(
        ridges, homography, crossing, (float(span[0]), float(span[1])), not vertical, floor, 0.12
    )
    columns = span[1] - span[0]
    column = np.clip(np.floor(t - span[0]).astype(np.intp), 0, columns - 1)
    cell = position * columns + column
    size = len(crossing) * columns
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.bincount(cell, agree, size) / np.bincount(cell, minlength=size)
    share = np.where(enough[:, None], np.nan_to_num(share.reshape(len(crossing), columns)), 0.0)
    return share.mean(axis=0)


def _line_agreement(
    ridges: np.ndarray,
    homography: np.ndarray,
    lines: np.ndarray,
    along: tuple[float, float],
    vertical: bool,
    floor: float,
    reach: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Samples along lattice lines ``lines`` where a straight ridge runs along the line (see
    :func:`_line_support`): each sample's line (its position in ``lines``), its place along
    the line, whether it agrees, and for each line whether it has enough strong samples to
    be judged at all."""
    points, index = _line_samples(int(lines[0]), int(lines[-1]), along, vertical, step=0.2)
    _, offset, strength = _peaks(ridges, homography, points, vertical, reach)
    t = points[:, 1] if vertical else points[:, 0]
    # Every line at once: each sample's line, and sums over each line's samples.
    position = np.rint(index - lines[0]).astype(np.intp)
    count = len(lines)

    def sums(values: np.ndarray, among: np.ndarray) -> np.ndarray:
        return np.bincount(position, np.where(among, values, 0.0), count)

    def line_fits(among: np.ndarray) -> np.ndarray:
        """Least-squares straight lines (intercept, slope per line) of the offsets along t,
        through each line's samples ``among``, evaluated at every sample."""
        n, st, stt = sums(np.ones_like(t), among), sums(t, among), sums(t * t, among)
        so, sto = sums(offset, among), sums(t * offset, among)
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = (n * sto - st * so) / (n * stt - st * st)
            intercept = (so - slope * st) / n
        return intercept[position] + slope[position] * t

    # Straight-line fit of the strong peaks' offsets along each line (of at least 4), robust
    # by one trimming pass (where at least 4 samples stay close to the first fit).  Lines of
    # too few samples fit nothing (NaN), and their support is 0.
    strong = strength >= floor
    with np.errstate(divide="ignore", invalid="ignore"):
        first = line_fits(strong)
        close = strong & (np.abs(offset - first) < 0.05)
        refit = (np.bincount(position, close, count) >= 4)[position]
        fitted = np.where(refit, line_fits(close), first)
        residual = np.abs(offset - fitted)
        agree = strong & (residual < 0.05) & (np.abs(fitted) < 0.12)
    enough = np.bincount(position, strong, count) >= 4
    return position, t, agree, enough


def _grow_by_lines(
    ridges: np.ndarray,
    homography: np.ndarray,
    x_span: tuple[int, int],
    y_span: tuple[int, int],
    floor: float,
    empty: _EmptySquares | None = None,
    admit_from_start: bool = False,
    window: tuple[tuple[int, int], tuple[int, int]] | None = None,
) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
    """Extend the fitted lattice line by line while the next line is seen on the board.

    ``admit_from_start``: each refit admits from its first round the peaks near the lattice
    along the lines it has grown over (``seen``, see :func:`_refine`).  Within a known
    ``window`` (first and last line in each direction), every line is a grid line: one hidden
    (under a column of tiles, in glare) is stepped over when the line after it is seen, and no
    line beyond the window is tried.  Without one, a line beyond the next could be a frame's
    edge past the grid's last line.
    """
    spans = [list(x_span), list(y_span)]
    limit = GRID_SIZE + 2
    for _ in range(2 * limit):
        grown = False
        for axis in (0, 1):
            if spans[axis][1] - spans[axis][0] >= limit:
                continue
            other = spans[1 - axis]
            for end, step in ((0, -1), (1, 1)):
                for line in spans[axis][end] + step * np.arange(1, 2 if window is None else 3):
                    if window is not None and not window[axis][0] <= line <= window[axis][1]:
                        break
                    support = _line_support(
                        ridges, homography, np.array([line]), (other[0], other[1]),
                        vertical=axis == 0, floor=floor, reach=0.25,
                    )[0]
                    if support >= 0.3:
                        spans[axis][end] = int(line)
                        grown = True
                        break
        if not grown:
            break
        homography = _refine(
            ridges, homography, tuple(spans[0]), tuple(spans[1]), reach=0.2, rounds=2,
            empty=empty, seen=(spans[0], spans[1]) if admit_from_start else None,
        )
    return homography, (spans[0][0], spans[0][1]), (spans[1][0], spans[1][1])


#: A lattice fitted to the lines: homography, first and last line in each direction seen, and
#: the floor of ridge strength that counts as a line.
_Fit = tuple[np.ndarray, tuple[int, int], tuple[int, int], float]


def _fit_lines(
    ridges: np.ndarray,
    homography: np.ndarray,
    x_span: tuple[int, int],
    y_span: tuple[int, int],
    empty: _EmptySquares | None,
    admit_from_start: bool = False,
    window: tuple[tuple[int, int], tuple[int, int]] | None = None,
) -> _Fit:
    """The lattice of the empty squares refined to the lines, then grown along them."""
    homography = _refine(
        ridges, homography, x_span, y_span, empty=empty,
        seen=(x_span, y_span) if admit_from_start else None,
    )
    points, _ = _line_samples(*x_span, y_span, vertical=True)
    _, _, strength = _peaks(ridges, homography, points, True, reach=0.1)
    floor = 0.4 * float(median(strength))
    homography, x_span, y_span = _grow_by_lines(
        ridges, homography, x_span, y_span, floor, empty, admit_from_start, window
    )
    return homography, x_span, y_span, floor


def _lines_in_window(
    x_span: tuple[int, int], y_span: tuple[int, int], x0: int, y0: int
) -> int:
    """How many of the window's 2 x 15 steps between lines (across plus down) the spans cover."""
    across = min(x_span[1], x0 + GRID_SIZE) - max(x_span[0], x0)
    down = min(y_span[1], y0 + GRID_SIZE) - max(y_span[0], y0)
    return max(across, 0) + max(down, 0)


def _window_starts(span: tuple[int, int]) -> np.ndarray:
    """First lines of the 16-line windows that overlap ``span`` (that hold it, if shorter)."""
    low, high = span
    if high - low <= GRID_SIZE:
        return np.arange(high - GRID_SIZE, low + 1)
    return np.arange(low, high - GRID_SIZE + 1)


#: Mean share of a column's width over which the crossing lines are seen, from which on the
#: column counts as crossed (:func:`_crossing_support`): the frame's band beyond a green
#: board's grid scores 0-0.1 on blurred photos, the grid's columns 0.25 and more.
_CROSSED = 0.15


def _choose_window(
    ridges: np.ndarray,
    homography: np.ndarray,
    span: tuple[int, int],
    along: tuple[float, float],
    vertical: bool,
    floor: float,
    cell_columns: np.ndarray,
) -> int:
    """First of the 16 consecutive lines, overlapping ``span``, that best fit the grid.

    A window scores the ridge support of its 16 lines plus one point for every column (or row)
    of squares in which empty squares were found (``cell_columns``: the column of each), and
    one for every column that the crossing lines are seen to cross (:data:`_CROSSED`).  The
    columns count most: a straight edge just outside the grid (the board's border, a frame) can
    look like a grid line, but no squares lie beyond the grid, and no lines cross the band
    there.
    """
    starts = _window_starts(span)
    lines = np.arange(starts[0], starts[-1] + GRID_SIZE + 1)
    support = _line_support(ridges, homography, lines, along, vertical, floor, reach=0.12)
    occupied_columns = set(int(c) for c in cell_columns)
    totals = np.array(
        [
            support[s - lines[0] : s - lines[0] + GRID_SIZE + 1].sum()
            + sum(1 for c in range(s, s + GRID_SIZE) if c in occupied_columns)
            for s in starts
        ]
    )
    # A window moved by k lines trades k columns for k others, so the crossed columns can
    # change the choice only among windows within k points of the best: most often none.
    best = int(np.argmax(totals))
    close = totals[best] - totals <= np.abs(starts - starts[best])
    close[best] = False
    if close.any():
        crossed = _crossing_support(
            ridges, homography, (int(lines[0]), int(lines[-1])), along, vertical, floor
        ) >= _CROSSED
        totals = totals + np.array(
            [crossed[s - lines[0] : s - lines[0] + GRID_SIZE].sum() for s in starts]
        )
    return int(starts[int(np.argmax(totals))])


#: The premium squares (every kind but plain) of the board, as the grid lies (symmetric under
#: turns and reflections, so the way the board lies in the picture does not matter).
_PREMIUM = np.array([[kind != "." for kind in row] for row in PREMIUM_LAYOUT])
#: How much better (in the score's units, a share of the colour spread) a shifted window must
#: match the premium layout than any other window to replace the window chosen by the lines
#: (a full red board, its premium squares mostly under tiles, stood out by 0.10).
_PREMIUM_MARGIN = 0.08
#: The farthest shift (in lines) of the window that the premium squares may ask for, beyond the
#: windows that the lines leave open.
_PREMIUM_REACH = 2


def _premium_range(span: tuple[int, int], start: int) -> tuple[int, int]:
    """The shifts of the window starting at line ``start`` that the premium squares may ask for,
    along a direction in which the lines seen run over ``span``.

    Up to :data:`_PREMIUM_REACH` lines either way; where fewer lines than the grid's were seen
    (glare, tiles), beyond that every window that holds them is open too: the lines outside
    them, which chose among those windows, are no more than noise there.  (Asked only where
    no window within that reach stands out.)

    >>> _premium_range((0, 15), 0), _premium_range((-5, 3), -10)
    ((-2, 2), (-4, 7))
    """
    reach = _PREMIUM_REACH
    if span[1] - span[0] >= GRID_SIZE:
        return (-reach, reach)
    starts = _window_starts(span)
    return (int(starts[0]) - reach - start, int(starts[-1]) + reach - start)


def _premium_shift(
    image: np.ndarray,
    homography: np.ndarray,
    x0: int,
    y0: int,
    scale: float,
    x_range: tuple[int, int] = (-_PREMIUM_REACH, _PREMIUM_REACH),
    y_range: tuple[int, int] = (-_PREMIUM_REACH, _PREMIUM_REACH),
) -> tuple[int, int]:
    """The shift within ``x_range`` and ``y_range`` (lines, both ends included), if any, of the
    chosen 15x15 window that puts the premium squares where the board's layout has them; else
    ``(0, 0)`` (see :func:`_premium_standout`)."""
    shift = _premium_standout(image, homography, x0, y0, scale, x_range, y_range)
    return (0, 0) if shift is None else shift


#: Where in a square its colour is sampled (its middle and four points around it).
_SQUARE_POINTS = np.array([[0.5, 0.5], [0.3, 0.3], [0.7, 0.3], [0.3, 0.7], [0.7, 0.7]])


def _square_samples(
    image: np.ndarray,
    homography: np.ndarray,
    columns: tuple[int, int],
    rows: tuple[int, int],
    scale: float,
) -> np.ndarray:
    """The photo's colours at :data:`_SQUARE_POINTS` of each lattice square in ``columns`` and
    ``rows`` (first included, last not), shaped (rows, columns, points, channels).

    ``homography`` maps the lattice (grid lines at integers) to the work image of ``scale``.
    """
    cols, rows_ = np.meshgrid(np.arange(*columns), np.arange(*rows))
    lattice = np.stack([cols, rows_], axis=-1)[:, :, None, :] + _SQUARE_POINTS
    work = project(homography, lattice.reshape(-1, 2))
    points = ((work + 0.5) / scale - 0.5).reshape(*cols.shape, len(_SQUARE_POINTS), 2)
    return _remap_points(image, points, cv2.BORDER_REPLICATE)


def _premium_scores(
    image: np.ndarray,
    homography: np.ndarray,
    x0: int,
    y0: int,
    scale: float,
    x_range: tuple[int, int] = (0, 0),
    y_range: tuple[int, int] = (0, 0),
) -> tuple[list[tuple[int, int]], np.ndarray]:
    """How well each shift within ``x_range`` and ``y_range`` (lines, both ends included) of the
    15x15 window starting at lines ``x0``, ``y0`` matches the premium squares' layout: the
    shifts and their scores (see :func:`_premium_standout`).

    Each square's colour is sampled at five points near its middle; a square is the more
    premium-like the farther its colour lies from the window's typical (plain) square colour.
    A score is the premium squares' mean distance less the plain squares', in units of the
    window's spread of colours: about 1-2 on a grid placed right on a well lit board, 0.3 on
    the dark deluxe board, near 0 or below where the window's squares are not the grid's.
    """
    (x_low, x_high), (y_low, y_high) = x_range, y_range
    samples = _square_samples(image, homography, (x0 + x_low, x0 + GRID_SIZE + x_high),
                              (y0 + y_low, y0 + GRID_SIZE + y_high), scale)
    colours = median(samples.astype(np.float32), axis=2)  # a letter's ink does not move a median
    shifts = [(dx, dy) for dy in range(y_low, y_high + 1) for dx in range(x_low, x_high + 1)]
    # Every shift's window at once (each one's medians, norms and means are those it has
    # alone, computed along the same axes).
    windows = np.stack([
        colours[dy - y_low : dy - y_low + GRID_SIZE, dx - x_low : dx - x_low + GRID_SIZE]
        for dx, dy in shifts])
    plain = median(windows[:, ~_PREMIUM], axis=1)
    distance = np.linalg.norm(windows - plain[:, None, None, :], axis=-1)
    flat = distance.reshape(len(shifts), -1)
    spread = median(flat, axis=1).astype(np.float64) + 1.0

    def means(rows: np.ndarray) -> np.ndarray:
        # Row by row: a mean along an axis of a 2-D array may be summed in another order.
        return np.array([row.mean() for row in rows])

    contrast = means(distance[:, _PREMIUM]) - means(distance[:, ~_PREMIUM])
    return shifts, contrast.astype(np.float64) / (spread + means(flat).astype(np.float64))


def _premium_standout(
    image: np.ndarray,
    homography: np.ndarray,
    x0: int,
    y0: int,
    scale: float,
    x_range: tuple[int, int] = (-_PREMIUM_REACH, _PREMIUM_REACH),
    y_range: tuple[int, int] = (-_PREMIUM_REACH, _PREMIUM_REACH),
) -> tuple[int, int] | None:
    """The shift within ``x_range`` and ``y_range`` (lines, both ends included) of the chosen
    15x15 window whose window matches the premium squares' layout clearly better than every
    other; None where none does.

    A band of the frame just outside the grid can pass for one more row of squares, and under
    a row of tiles the grid's last lines are hard to see; the premium squares' colours settle
    which rows and columns are the grid (:func:`_premium_scores`).  A shift is taken only when
    its window stands out from every other: glare or many tiles can make all windows score
    alike, and then the lines know better.
    """
    shifts, scores = _premium_scores(image, homography, x0, y0, scale, x_range, y_range)
    order = np.argsort(-scores)
    best, runner_up = scores[order[0]], scores[order[1]]
    if best > runner_up + _PREMIUM_MARGIN:
        return shifts[int(order[0])]
    return None


# --------------------------------------------------------------------------- public API


@dataclass(frozen=True)
class _MaskCells:
    """The cells one line mask gave, and the lines' polarity (dark or light) in that mask."""

    cells: _Cells
    dark_lines: bool


@dataclass
class _Attempt:
    lattice: _Lattice
    ridges: np.ndarray
    scale: float
    cells_found: int
    #: The cells of every line mask tried, for the last look (:func:`_agreed_look`).
    seen: tuple[_MaskCells, ...] = ()
    #: How the photo was looked at: in colour (each channel) or grey, and along strokes.
    in_colour: bool = False
    along_strokes: bool = False

    @property
    def look(self) -> tuple[bool, float, bool]:
        """What tells two looks apart: colour or grey, the working scale, strokes or not."""
        return (self.in_colour, self.scale, self.along_strokes)

    @property
    def square_px(self) -> float:
        """Side of a square near the lattice's origin, in working pixels (0 without one)."""
        if len(self.lattice.members) == 0:
            return 0.0
        return float(np.sqrt(abs(np.linalg.det(self.lattice.homography[:2, :2]))))


def _attempt(image: np.ndarray, long_side: int, along_strokes: bool = False) -> _Attempt:
    """Search for a lattice of cells at one working resolution, both line polarities.

    ``image`` is grey, or BGR to look for the lines in each colour channel.  ``along_strokes``:
    the squares are told apart by the line response averaged along strokes
    (:func:`_along_strokes`) at each of :data:`_STROKE_GAINS`, instead of by the response
    itself with and without noise specks; the lattice is refined against the response itself.
    """
    scale = min(1.0, long_side / max(image.shape[:2]))
    work = image
    if scale < 1.0:
        work = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    work = cv2.GaussianBlur(work, (3, 3), 0)
    best: _Attempt | None = None
    seen: list[_MaskCells] = []
    for dark_lines in (True, False):
        ridges = _ridges(work, dark_lines)
        stroked = _along_strokes(ridges) if along_strokes else None
        # A second try (without noise specks, at a higher gain) only while no look has found
        # enough squares.
        for trial, gain in enumerate(_STROKE_GAINS if stroked is not None else (None, None)):
            if trial and best is not None and len(best.lattice.members) >= _ENOUGH_CELLS:
                break
            if stroked is None:
                mask = _line_mask(ridges, despeckle=trial == 1)
            else:
                mask = _line_mask(np.clip(stroked * gain, 0, 255).astype(np.uint8))
            cells = _find_cells(mask)
            seen.append(_MaskCells(cells, dark_lines))
            lattice = _best_lattice(cells)
            if lattice is None:
                lattice = _Lattice(np.eye(3), np.zeros((0, 2), int), np.zeros(0, int))
            if best is None or len(lattice.members) > len(best.lattice.members):
                best = _Attempt(lattice, ridges, scale, len(cells.areas))
    assert best is not None
    best.seen = tuple(seen)
    best.in_colour, best.along_strokes = image.ndim == 3, along_strokes
    return best


class _Looks:
    """The looks at one photo (:func:`_attempt`) made so far, so that none is made twice."""

    def __init__(self, image: np.ndarray, grey: np.ndarray) -> None:
        self.image, self.grey = image, grey
        self.made: dict[tuple[bool, float, bool], _Attempt] = {}

    def attempt(self, in_colour: bool, long_side: int, along_strokes: bool = False) -> _Attempt:
        """The look in colour (each channel) or grey at ``long_side``, made once."""
        key = (in_colour, min(1.0, long_side / max(self.grey.shape)), along_strokes)
        if key not in self.made:
            look = self.image if in_colour else self.grey
            self.made[key] = _attempt(look, long_side, along_strokes)
        return self.made[key]


def _search(looks: _Looks) -> tuple[_Attempt, list[_MaskCells]]:
    """The best lattice of empty squares, looking no further than needed; and the cells of
    every line mask tried at the first resolution (for :func:`_agreed_look`).

    The grey image at the first resolution finds most boards.  Where it finds fewer than
    :data:`_ENOUGH_CELLS` squares on one lattice the photo is looked at again in colour (the
    look with more squares wins; it costs about twice the grey one, so a board found in grey
    with its squares mostly under tiles is not looked at again).  Squares too small at this
    resolution call for a closer look, and too few squares for a farther one (a blurred
    photo), in grey and then, where grey still finds no board, in colour; a small board too,
    where the closer look found fewer than :data:`_ENOUGH_CELLS` (under blur, a lattice of
    the wrong size).
    """
    image, grey = looks.image, looks.grey
    attempt = looks.attempt(False, WORK_LONG_SIDE)
    first_seen = list(attempt.seen)
    # Grey mixes the channels, diluting a line that differs from its squares mainly in one
    # colour; under blur and noise such a line may only be seen in its channel.
    if len(attempt.lattice.members) < _ENOUGH_CELLS and image.ndim == 3:
        in_colour = looks.attempt(True, WORK_LONG_SIDE)
        first_seen += in_colour.seen
        if len(in_colour.lattice.members) > len(attempt.lattice.members):
            attempt = in_colour
    # A board small in a large photo has squares too small at the first resolution for thin
    # lines to separate them: look closer.
    too_small = 0 < attempt.square_px < _MIN_WORK_SQUARE_PX
    if (too_small or len(attempt.lattice.members) < _MIN_LATTICE_CELLS) and (
        max(grey.shape) > WORK_LONG_SIDE
    ):
        closer = looks.attempt(False, 2 * WORK_LONG_SIDE)
        if len(closer.lattice.members) >= min(len(attempt.lattice.members), _MIN_LATTICE_CELLS):
            attempt = closer
    # A blurred photo (out of focus, or the camera moved) smears thin lines away; at a lower
    # resolution the blur spans fewer pixels and the lines stand out again.  Grey first; where
    # that still finds no board, in colour (a blurred green line on green squares may stand
    # out only in its channel, as at the first resolution).
    farther_looks = [False] + ([True] if image.ndim == 3 else [])
    for in_colour in farther_looks:
        members = len(attempt.lattice.members)
        if members >= _ENOUGH_CELLS or (members >= _MIN_LATTICE_CELLS and not too_small):
            break
        farther = looks.attempt(in_colour, int(WORK_LONG_SIDE * _FARTHER))
        if (len(farther.lattice.members) > len(attempt.lattice.members)
                and farther.square_px >= _MIN_WORK_SQUARE_PX / 2):
            attempt = farther
    # Still no board: blur with sensor noise can leave the lines as weak as the noise at every
    # resolution, and only their length tells them apart.  Grey first, then in colour; where
    # the first look's squares were too small, closer too (in grey: the strokes span less of
    # a small square at the first resolution, and its lines are thinner there).
    stroke_looks = [(in_colour, WORK_LONG_SIDE) for in_colour in farther_looks]
    if too_small and max(grey.shape) > WORK_LONG_SIDE:
        stroke_looks.append((False, 2 * WORK_LONG_SIDE))
    for in_colour, long_side in stroke_looks:
        if len(attempt.lattice.members) >= _MIN_LATTICE_CELLS:
            break
        stroked = looks.attempt(in_colour, long_side, along_strokes=True)
        if long_side == WORK_LONG_SIDE:
            first_seen += stroked.seen
        if len(stroked.lattice.members) > len(attempt.lattice.members):
            attempt = stroked
    return attempt, first_seen


def _within_one_board(lattice: _Lattice) -> _Lattice:
    """The members inside the 15x15 block of sites that holds most of them, where that block
    holds more than half of them (and at least :data:`_MIN_LATTICE_CELLS`); else ``lattice``.

    Once a lattice is accurate, specks of a textured floor far from the board can land on its
    distant sites by chance (within :data:`_SITE_TOLERANCE`), stretching it over many times
    the board: those few lie far apart, while the board's squares crowd into one block.  A
    repeating pattern spreads its squares evenly over every block instead.

    >>> block = [[x, y] for x in range(4) for y in range(3)]
    >>> sites = np.array(block + [[40, 3], [2, -30]])
    >>> kept = _within_one_board(_Lattice(np.eye(3), sites, np.arange(len(sites))))
    >>> len(kept.members), int(kept.sites[:, 0].max()), int(kept.sites[:, 1].min())
    (12, 3, 0)
    """
    sites = lattice.sites - lattice.sites.min(axis=0)
    width, height = (sites.max(axis=0) + 1).tolist()
    counts = np.zeros((height + GRID_SIZE, width + GRID_SIZE), np.int32)
    np.add.at(counts, (sites[:, 1] + GRID_SIZE, sites[:, 0] + GRID_SIZE), 1)
    # Summed over every block of 15x15 sites: the block ending at (x, y) holds members from
    # x - 14 to x.
    blocks = cv2.boxFilter(
        counts.astype(np.float32), -1, (GRID_SIZE, GRID_SIZE), anchor=(GRID_SIZE - 1,) * 2,
        normalize=False, borderType=cv2.BORDER_CONSTANT,
    )
    y_end, x_end = np.unravel_index(int(np.argmax(blocks)), blocks.shape)
    inside = (
        (sites[:, 0] > x_end - 2 * GRID_SIZE) & (sites[:, 0] <= x_end - GRID_SIZE)
        & (sites[:, 1] > y_end - 2 * GRID_SIZE) & (sites[:, 1] <= y_end - GRID_SIZE)
    )
    kept = int(inside.sum())
    if kept < _MIN_LATTICE_CELLS or 2 * kept <= len(sites):
        return lattice
    return _Lattice(lattice.homography, lattice.sites[inside], lattice.members[inside])


@dataclass(frozen=True)
class _Placement:
    """A lattice refined to the lines and the 15x15 window on it chosen as the grid."""

    homography: np.ndarray  # lattice (grid lines at integers) -> work image
    x0: int
    y0: int
    #: How many of the window's 2 x 15 steps between lines the lines seen span.
    covered: int
    scale: float  # of the work image, relative to the photo


def _place(image: np.ndarray, attempt: _Attempt) -> _Placement:
    """Refine ``attempt``'s lattice to the lines and choose the window that is the grid."""
    lattice = attempt.lattice
    ridges = attempt.ridges.astype(np.float32)
    if np.ptp(lattice.sites, axis=0).max() >= 2 * GRID_SIZE:
        lattice = _within_one_board(lattice)
    homography = lattice.homography @ _CENTRE_TO_LINES
    x_span = (int(lattice.sites[:, 0].min()), int(lattice.sites[:, 0].max()) + 1)
    y_span = (int(lattice.sites[:, 1].min()), int(lattice.sites[:, 1].max()) + 1)
    if max(x_span[1] - x_span[0], y_span[1] - y_span[0]) > 2 * GRID_SIZE:
        raise BoardNotFound(
            f"the squares found span {x_span[1] - x_span[0]}x{y_span[1] - y_span[0]} "
            "lattice steps: a repeating pattern, not a 15x15 board"
        )
    # A dozen or so empty squares bunched together say too little of the board's far side: there
    # the lines, tiles' edges and all, know better.
    empty = (
        _EmptySquares(lattice.sites, project(lattice.homography, lattice.sites.astype(float)))
        if len(lattice.members) >= _ENOUGH_CELLS else None
    )
    cell_homography, cell_spans = homography, (x_span, y_span)
    homography, x_span, y_span, floor = _fit_lines(ridges, homography, x_span, y_span, empty)

    columns, rows = lattice.sites[:, 0], lattice.sites[:, 1]
    x0 = _choose_window(ridges, homography, x_span, y_span, True, floor, columns)
    y0 = _choose_window(ridges, homography, y_span, (x0, x0 + GRID_SIZE), False, floor, rows)
    x0 = _choose_window(ridges, homography, x_span, (y0, y0 + GRID_SIZE), True, floor, columns)
    if image.ndim == 3:
        dx, dy = _premium_shift(image, homography, x0, y0, attempt.scale)
        # The nearest windows first: among more, some shifts of the layout match it in part
        # and can leave no window standing out.
        farther = (_premium_range(x_span, x0), _premium_range(y_span, y0))
        if (dx, dy) == (0, 0) and farther != ((-_PREMIUM_REACH, _PREMIUM_REACH),) * 2:
            dx, dy = _premium_shift(image, homography, x0, y0, attempt.scale, *farther)
        # Glare and tiles can make a window half off the board stand out: the move is undone
        # where the premium squares' colours themselves (red and blue) disagree with it, no
        # more of the moved window's squares showing the colour its layout asks for than
        # showing another, and fewer than before the move.
        if (dx, dy) != (0, 0):
            moved = _premium_families(image, homography, x0 + dx, y0 + dy, attempt.scale)
            if moved <= 0 and moved < _premium_families(
                image, homography, x0, y0, attempt.scale
            ):
                dx, dy = 0, 0
        x0, y0 = x0 + dx, y0 + dy
    # Where glare or tiles stopped the lines short of the window, the lattice there is the fit
    # to the lines between empty squares, extrapolated (see _refine's ``seen``).  Now
    # that the window is known, fit and grow again admitting the lines near the lattice from
    # the start, stepping over single hidden lines inside the window; keep that lattice if it
    # reaches over more of the window.
    seen = None
    covered = _lines_in_window(x_span, y_span, x0, y0)
    if empty is not None and covered < 2 * GRID_SIZE:
        window = ((x0, x0 + GRID_SIZE), (y0, y0 + GRID_SIZE))
        inside = [(max(low, first), min(high, last))
                  for (low, high), (first, last) in zip(cell_spans, window, strict=True)]
        if all(high > low for low, high in inside):
            regrown, x_seen, y_seen, _ = _fit_lines(
                ridges, cell_homography, inside[0], inside[1], empty,
                admit_from_start=True, window=window,
            )
            if _lines_in_window(x_seen, y_seen, x0, y0) > covered:
                homography, seen = regrown, (x_seen, y_seen)
                covered = _lines_in_window(x_seen, y_seen, x0, y0)
    homography = _refine(
        ridges, homography, (x0, x0 + GRID_SIZE), (y0, y0 + GRID_SIZE), reach=0.2, empty=empty,
        seen=seen,
    )
    return _Placement(homography, x0, y0, covered, attempt.scale)


#: Steps between lines (of the window's 2 x 15) that the lines seen may miss before the lattice
#: counts as extrapolated over much of the window: one or two outer lines are often hidden
#: under tiles.
_FAR_SHORT_OF_WINDOW = 4


def _farther_placement(looks: _Looks, attempt: _Attempt, placement: _Placement) -> _Placement:
    """``placement``, or the placement from the farther look in grey where that look finds more
    empty squares and its lines span more of its window.

    A blurred photo can still show enough squares at the first resolution for the search to
    look no farther (:data:`_ENOUGH_CELLS`), only fewer and bunched where its lines are
    sharpest: the lines beyond them, smeared, are not seen, and the lattice there is
    extrapolated, half a square off at the far corner.  Farther, the blur spans fewer pixels.
    """
    image, grey = looks.image, looks.grey
    long_side = int(WORK_LONG_SIDE * _FARTHER)
    if attempt.scale <= long_side / max(grey.shape):
        return placement
    farther = looks.attempt(False, long_side)
    if (len(farther.lattice.members) <= len(attempt.lattice.members)
            or farther.square_px < _MIN_WORK_SQUARE_PX / 2):
        return placement
    try:
        placed = _place(image, farther)
    except BoardNotFound:
        return placement
    return placed if placed.covered > placement.covered else placement


#: A lattice of fewer empty squares than this, from the first look, is confirmed by the premium
#: squares against the lattices of the other line masks there (:func:`_confirmed_placement`).
#: On 900 rendered photos (seeds 9-11 of the benchmark), the five grids placed 0.86-16 squares
#: off rested on 24-44 squares, each on a lattice that the first mask found (a checkerboard of
#: every other square, rows sheared by motion blur, a perspective bent on a blurred board);
#: the masks without noise specks, or in colour, found 37-69 on the right lattice.  About one
#: photo in twelve there has a lattice this small, and takes 0.15 s more (at most 0.25 s).
_DOUBTFUL_MEMBERS = 48
#: How much better (in :func:`_premium_scores`' units) another lattice's window must match the
#: premium layout to replace a doubtful one: two right fits of one photo differ by up to 0.02;
#: the blurred board's grid 0.86 of a square off scored 0.365 against the right one's 0.398,
#: the other wrong lattices 0.4-1.6 less than the right ones.
_CONFIRM_MARGIN = 0.025
#: A doubtful lattice's placement whose window matches the premium layout this well
#: (:func:`_premium_scores`) is taken as confirmed without the other masks' lattices: the real
#: game's late frames (a board nearly full, 43 empty squares on the lattice) score 0.41 and
#: the look cost them 180 ms of a 220 ms search for nothing; the wrong placements it was made
#: for scored -0.05 to 0.37.
_PREMIUM_CONFIRMS = 0.4
#: A placement whose premium squares score under this (:func:`_premium_scores`) and whose lines
#: are seen no better than this (:func:`check_corners`) is refuted, whatever the size of its
#: lattice: a lattice of 71 squares, many of them specks of a carpet, with a diagonal for an
#: axis, scored -0.006 and 0.00 (the right grid there 0.33 and 0.25).
_REFUTED_PREMIUM = 0.05
_REFUTED_LINES = 0.02


def _mask_lattices(look: np.ndarray) -> list[_Attempt]:
    """The lattices of the line masks of ``look`` (grey, or BGR for each colour channel) at the
    first resolution, most empty squares first: both polarities, with and without noise specks
    (where :func:`_attempt` stops at the first mask that finds enough squares)."""
    scale = min(1.0, WORK_LONG_SIDE / max(look.shape[:2]))
    work = look
    if scale < 1.0:
        work = cv2.resize(look, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    work = cv2.GaussianBlur(work, (3, 3), 0)
    found = []
    for dark_lines in (True, False):
        ridges = _ridges(work, dark_lines)
        for despeckle in (False, True):
            cells = _find_cells(_line_mask(ridges, despeckle=despeckle))
            lattice = _best_lattice(cells)
            if lattice is not None and len(lattice.members) >= _MIN_LATTICE_CELLS:
                found.append(_Attempt(lattice, ridges, scale, len(cells.areas)))
    # Stable: of two lattices of as many squares, the one the search would have met first.
    return sorted(found, key=lambda other: -len(other.lattice.members))


def _confirmed_placement(
    image: np.ndarray, grey: np.ndarray, attempt: _Attempt, placement: _Placement
) -> _Placement:
    """``placement`` (of ``attempt``'s lattice), or the placement of the lattice of most empty
    squares that the line masks at the first resolution find, in grey or, where grey finds no
    more squares than ``attempt``, in colour, where that lattice holds more squares and its
    window matches the premium squares' layout clearly better (:data:`_CONFIRM_MARGIN`).
    Asked only of a colour photo whose lattice, from the first look, holds fewer than
    :data:`_DOUBTFUL_MEMBERS` squares (and enough for the search to have stopped there,
    :data:`_ENOUGH_CELLS`) and whose window does not clearly match the premium layout
    (:data:`_PREMIUM_CONFIRMS`); or whose placement is refuted, neither its premium squares nor its
    lines seen (:data:`_REFUTED_PREMIUM`, :data:`_REFUTED_LINES`), and then by the lattice
    of every other mask, most squares first, whatever their number.

    The search takes the first mask that finds enough squares on one lattice, and a lattice of
    two dozen squares can be a wrong one that still passes every check of the lines: the
    squares of a checkerboard of every other square, or, under motion blur along one axis,
    squares whose lines across are smeared, fitted by a lattice sheared along the rows.
    Refined to the lines, the window lands a square or more off (on 900 rendered photos, 5
    boards lost so, 0.86-16 squares off).  The premium squares fall where the layout has them
    only on the grid.  (A grey photo is left as it is: it has no premium squares to tell.)
    """
    first_scale = min(1.0, WORK_LONG_SIDE / max(grey.shape))
    members = len(attempt.lattice.members)
    if image.ndim != 3 or attempt.scale != first_scale or members < _ENOUGH_CELLS:
        # Under _ENOUGH_CELLS squares, every mask at the first resolution was tried already.
        return placement

    def score(placed: _Placement) -> float:
        _, scores = _premium_scores(
            image, placed.homography, placed.x0, placed.y0, placed.scale
        )
        return float(scores[0])

    placed_score = score(placement)
    refuted = (placed_score < _REFUTED_PREMIUM
               and check_corners(image, _photo_corners(placement)) < _REFUTED_LINES)
    if not refuted and (members >= _DOUBTFUL_MEMBERS or placed_score >= _PREMIUM_CONFIRMS):
        return placement
    enough = placed_score + _CONFIRM_MARGIN
    for look in (grey, image):
        lattices = _mask_lattices(look)
        if refuted:
            # Every other lattice, the refuted one (as many squares) left out.
            others = [o for o in lattices if len(o.lattice.members) != members]
        else:
            others = [o for o in lattices[:1] if len(o.lattice.members) > members]
        for other in others:
            try:
                placed = _place(image, other)
            except BoardNotFound:
                continue
            if score(placed) > enough:
                return placed
            if not refuted:
                # A lattice of more squares placed no better confirms the one found (colour,
                # which costs twice grey, is looked at only where grey has no more squares).
                return placement
    return placement


#: A placement whose lines are seen worse than this (:func:`check_corners`), or on a colour
#: photo whose window matches the premium layout worse than this (:func:`_premium_scores`), is
#: doubtful: the other looks at the photo are placed too, and the best placement kept
#: (:func:`_second_opinion`).
_DOUBTFUL_LINES = 0.25
_DOUBTFUL_PREMIUM = 0.1
#: How much better (lines seen plus premium layout matched) another look's placement must be.
#: The five grids so found on 5,400 rendered photos fitted 0.16-1.0 better than the lost ones
#: they replaced; on a deluxe board under glare, 87 tiles on it (its premium squares and lines
#: telling nothing, both grids scoring 0.23-0.30), a grid a square off fitted 0.08 better.
_OPINION_MARGIN = 0.12
#: How far apart (at a corner, in squares) another look's grid must lie to be another grid
#: rather than the same one fitted a little differently.  Fitted to fewer lines between empty
#: squares, the same grid can lie a quarter of a square off on tiles' edges, and those are seen
#: as lines too: on 2,100 rendered photos, six grids so replaced went from 0.01-0.13 to
#: 0.10-0.29 of a square off.
_OPINION_APART = 0.5


def _placement_score(image: np.ndarray, placement: _Placement) -> tuple[float, float]:
    """How well ``placement`` fits the photo: its lines seen (:func:`check_corners`) and, on a
    colour photo, how well its window matches the premium layout (:func:`_premium_scores`;
    0 on a grey photo)."""
    lines = check_corners(image, _photo_corners(placement))
    if image.ndim != 3:
        return lines, 0.0
    _, scores = _premium_scores(image, placement.homography, placement.x0, placement.y0,
                                placement.scale)
    return lines, float(scores[0])


def _second_opinion(looks: _Looks, attempt: _Attempt, placement: _Placement) -> _Placement:
    """``placement`` (of ``attempt``'s lattice), or, where it is doubtful (its lines seen
    worse than :data:`_DOUBTFUL_LINES` or its premium squares not where the layout has them,
    :data:`_DOUBTFUL_PREMIUM`), the placement of another look at the photo (grey and colour at
    the first resolution, grey farther and closer, grey along strokes, the premium squares'
    colours: :func:`_premium_look`) that puts the grid elsewhere (:data:`_OPINION_APART`) and
    fits the photo clearly better (lines seen plus premium layout matched, by
    :data:`_OPINION_MARGIN`).  Where it is not doubtful, the looks already made that found
    more empty squares than ``attempt`` are asked the same: squares too small at first call
    for a closer look, which wins with fewer squares and can find a wrong lattice.

    The search stops at the first look whose lattice holds enough squares, and where few of
    the empty squares are found (light lines, blurred, among noise) their lattice can bend:
    cells a square apart admitted at neighbouring sites, a perspective that makes 14 steps of
    the lattice cover 15 squares.  Refined to the lines, such a grid lies right along one edge
    and two squares off at the far corner, where its lines fall between the printed ones.
    Another resolution, or colour, finds other squares and the right lattice.  So do they
    where the first look's lines, a column of tiles hiding the grid's first line, put the
    window a column off, or where camera motion smears the lines across the rows and a
    lattice of a dozen squares is sheared along them.  The looks already made are not made
    again; a doubtful placement (about one photo in twenty of the benchmark's) costs up to
    five more and the premium squares' look.
    """
    image, grey = looks.image, looks.grey
    lines, premium = _placement_score(image, placement)
    members = len(attempt.lattice.members)
    if lines < _DOUBTFUL_LINES or (image.ndim == 3 and premium < _DOUBTFUL_PREMIUM):
        wanted = [(False, WORK_LONG_SIDE, False), (False, int(WORK_LONG_SIDE * _FARTHER), False)]
        if image.ndim == 3:
            wanted.append((True, WORK_LONG_SIDE, False))
        if max(grey.shape) > WORK_LONG_SIDE:
            wanted.append((False, 2 * WORK_LONG_SIDE, False))
        wanted.append((False, WORK_LONG_SIDE, True))
        others: list[_Attempt | None] = [looks.attempt(*look) for look in wanted]
        # The very last look's placement too (None stands for it): the premium squares can
        # place a board whose lines, smeared, no look finds enough of.
        others.append(None)
    else:
        # Not doubtful, but where the search took a closer look with fewer squares than the
        # first (squares too small at first), the first look's placement is asked too.
        others = [made for made in looks.made.values()
                  if len(made.lattice.members) > members]
        if not others:
            return placement
    best, best_score = placement, lines + premium
    corners = _photo_corners(placement)
    side = _square_side(corners)
    for other in others:
        if other is None:
            placed = _premium_look(image)
            if placed is None:
                continue
        else:
            if other.look == attempt.look or len(other.lattice.members) < _MIN_LATTICE_CELLS:
                continue
            try:
                placed = _place(image, other)
            except BoardNotFound:
                continue
        apart = np.hypot(*(_photo_corners(placed) - corners).T).max() / side
        if apart <= _OPINION_APART:
            continue
        score = sum(_placement_score(image, placed))
        if score > best_score + _OPINION_MARGIN:
            best, best_score = placed, score
    return best


def _square_side(corners: np.ndarray) -> float:
    """Mean side of a grid square, in pixels, of the grid with these four corners."""
    return float(np.hypot(*(np.roll(corners, -1, axis=0) - corners).T).mean()) / GRID_SIZE


def _photo_corners(placement: _Placement) -> np.ndarray:
    """The corners of ``placement``'s window in the photo, in image order."""
    x0, y0 = placement.x0, placement.y0
    lattice_corners = np.array(
        [[x0, y0], [x0 + GRID_SIZE, y0], [x0 + GRID_SIZE, y0 + GRID_SIZE], [x0, y0 + GRID_SIZE]],
        float,
    )
    # Pixel centres: resize maps original x to (x + 0.5) * scale - 0.5.
    work_corners = project(placement.homography, lattice_corners)
    return order_corners((work_corners + 0.5) / placement.scale - 0.5)


#: Farthest a cell of another line mask may lie from a cell, in sides of that cell, for the two
#: to be one region seen twice (centres of one square in different masks lie a few pixels
#: apart: the line mask bites a little more or less into it).
_AGREEING_OFFSET = 0.25
#: Largest ratio of the areas of two cells taken for one region (either way round).
_AGREEING_AREAS = 1.6
#: Most cells agreed on that the last look searches for a lattice: a photo textured all over
#: (carpet, cloth, sensor noise blurred into blobs) has thousands, its texture's regions
#: being the same from mask to mask too, and the search among them would take seconds.  (The
#: masks of the board lost to blur and noise that this look was made for agree on 627.)
_MOST_AGREED = 1000
#: Least :func:`check_corners` score of the last look's grid (0: its lines are seen no better
#: than chance).  On the rendered photos that look found, fits 0.05-0.18 of a square off
#: scored 0.08-0.22, fits a quarter of a square off or more 0.00.
_AGREED_QUALITY = 0.05
#: Cells compared at a time in :func:`_agreed_cells` (bounds the memory of the pairwise
#: distances on a photo full of specks).
_AGREEING_CHUNK = 512


def _agreed_cells(seen: list[_MaskCells]) -> tuple[_Cells, np.ndarray] | None:
    """The cells that another line mask found too, and for each whether its mask's lines were
    dark; None where more than :data:`_MOST_AGREED` are (counting stops there).

    Out of focus with sensor noise, each mask keeps the shape of a few squares only, bitten by
    noise elsewhere, and lets through as many specks of noise shaped like squares: no mask has
    a dozen squares side by side.  But a square is the same region in every mask that keeps
    it (grey or colour, dark lines or light, each gain on the strokes), while a speck of one
    mask is rarely one of another.  Pooled, the squares that two masks agree on are many more
    than any one mask keeps, and the specks few.
    """
    centres = np.vstack([m.cells.centres for m in seen])
    areas = np.concatenate([m.cells.areas for m in seen])
    source = np.concatenate([np.full(len(m.cells.areas), k) for k, m in enumerate(seen)])
    dark = np.concatenate([np.full(len(m.cells.areas), m.dark_lines) for m in seen])
    # Left to right, so that each chunk of cells need only be compared with the cells within
    # reach of its columns.
    order = np.argsort(centres[:, 0], kind="stable")
    centres, areas, source, dark = centres[order], areas[order], source[order], dark[order]
    reach = _AGREEING_OFFSET * np.sqrt(areas)
    farthest = float(reach.max()) if len(reach) else 0.0
    agreed = np.zeros(len(areas), bool)
    for start in range(0, len(areas), _AGREEING_CHUNK):
        part = slice(start, start + _AGREEING_CHUNK)
        xs = centres[part, 0]
        near = slice(int(np.searchsorted(centres[:, 0], xs[0] - farthest, "left")),
                     int(np.searchsorted(centres[:, 0], xs[-1] + farthest, "right")))
        offsets = centres[part, None, :] - centres[None, near, :]
        ratio = areas[part, None] / areas[None, near]
        same = (
            (np.hypot(offsets[..., 0], offsets[..., 1]) < reach[part, None])
            & (source[part, None] != source[None, near])
            & (ratio < _AGREEING_AREAS) & (ratio * _AGREEING_AREAS > 1)
        )
        agreed[part] = same.any(axis=1)
        if np.count_nonzero(agreed) > _MOST_AGREED:
            return None
    return _Cells(centres[agreed], areas[agreed]), dark[agreed]


def _agreed_look(
    image: np.ndarray, grey: np.ndarray, seen: list[_MaskCells]
) -> _Placement | None:
    """The grid placed on the lattice of the cells that several line masks at the first
    resolution agree on (:func:`_agreed_cells`), where the placement passes two checks; else
    None.

    The last look, tried only where every other finds no lattice, so it costs nothing where
    they do.  The lattice is placed at the photo's resolution (up to twice the first one),
    in colour, on the lines of the polarity most of its cells came from: faint lines blurred
    among noise are best located where they span most pixels and in the channel where they
    stand out (on the photo this look was made for, 0.06 of a square off so, 0.08 in grey,
    0.10 at the first resolution).

    Lines this faint tell the grid's outer line from the frame's edge beside it no better than
    they tell the other lines apart: on 9 variants of the rendered photo this look was made
    for (other scenes, blur, noise, tilt), each in colour and in grey, 2 of the 4 grids it
    placed in grey were a line off, and 1 of the 6 in colour 8.5 squares off.  So the premium
    squares must confirm the window (its layout matching the squares clearly better than the
    windows up to two lines off, see :func:`_premium_standout`), which needs colour: a grey
    photo is left to the other looks.  And the lines fitted must be seen on the photo better
    than chance (:data:`_AGREED_QUALITY`): a fit gone a quarter of a square off scores nothing.
    """
    if image.ndim != 3 or not seen:
        return None
    agreed = _agreed_cells(seen)
    if agreed is None:
        return None
    cells, dark = agreed
    lattice = _best_lattice(cells)
    if lattice is None or len(lattice.members) < _MIN_LATTICE_CELLS:
        return None
    dark_lines = 2 * int(dark[lattice.members].sum()) >= len(lattice.members)
    scale = min(1.0, WORK_LONG_SIDE / max(grey.shape))
    finer = min(1.0, 2 * WORK_LONG_SIDE / max(grey.shape))
    # Pixel centres: a resize maps x to (x + 0.5) * scale - 0.5, at either resolution.
    ratio = finer / scale
    to_finer = np.array([[ratio, 0, 0.5 * ratio - 0.5], [0, ratio, 0.5 * ratio - 0.5], [0, 0, 1]])
    work = image
    if finer < 1.0:
        work = cv2.resize(image, None, fx=finer, fy=finer, interpolation=cv2.INTER_AREA)
    ridges = _ridges(cv2.GaussianBlur(work, (3, 3), 0), dark_lines)
    finer_lattice = _Lattice(to_finer @ lattice.homography, lattice.sites, lattice.members)
    try:
        placement = _place(image, _Attempt(finer_lattice, ridges, finer, len(cells.areas)))
    except BoardNotFound:
        return None
    confirmed = _premium_standout(
        image, placement.homography, placement.x0, placement.y0, placement.scale
    ) == (0, 0)
    if not confirmed or check_corners(image, _photo_corners(placement)) < _AGREED_QUALITY:
        return None
    return placement


# --------------------------------------------------------------------------- premium squares

#: Hues (OpenCV's 0-180), least saturation and brightness of the premium squares' two families
#: of colour on every edition: blue (triple and double letter, dark and light), hues 95-130,
#: and red (triple and double word, red and pink), hues from 160 round to 8.  Plain squares are
#: green, beige, grey or charcoal; the red board's frame is red too, but a band, not a square.
_BLUE_HUES = (95, 130)
_RED_HUES = (160, 8)
_LEAST_SATURATION = 50
_LEAST_BRIGHTNESS = 40
#: Squares of the layout in the red family (word premiums and the centre).
_RED_LAYOUT = np.array([[kind in ("TW", "DW", "*") for kind in row] for row in PREMIUM_LAYOUT])
#: The premium squares' centres (column, row) on the layout, and which are of the red family.
_PREMIUM_SITES = np.argwhere(_PREMIUM)[:, ::-1].astype(float)
_PREMIUM_RED = _RED_LAYOUT[_PREMIUM]
#: Farthest apart (in squares) two premium squares may lie to start a guess from, and how many
#: of each blob's nearest blobs are paired with it.
_PAIR_REACH = 4.5
_PAIRS_PER_BLOB = 6
#: A premium square's blob spans this share of the square's side (letters or labels printed on
#: it, blur and the colour's edge take some): specks of a carpet or of noise span less.
_BLOB_SIZES = (0.45, 1.15)
#: How many of the best guesses are refined, in how many rounds, and how far (in squares) a
#: blob may lie from a premium square's place to match it there.
_GUESSES_REFINED = 20
_REFINE_ROUNDS = 5
_MATCH_REACH = 0.4
#: Fewest premium squares (of the layout's 61) that must be matched to place the grid.
_MIN_PREMIUM_MATCHED = 24


def _colour_families(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which BGR colours (any shape, last axis the channels) are of the premium squares' blue
    family, and which of their red family."""
    hsv = cv2.cvtColor(bgr.reshape(-1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2HSV)
    hue, saturation, value = (hsv[:, 0, k].reshape(bgr.shape[:-1]) for k in range(3))
    vivid = (saturation >= _LEAST_SATURATION) & (value >= _LEAST_BRIGHTNESS)
    blue = vivid & (hue >= _BLUE_HUES[0]) & (hue <= _BLUE_HUES[1])
    red = vivid & ((hue >= _RED_HUES[0]) | (hue <= _RED_HUES[1]))
    return blue, red


def _premium_families(
    image: np.ndarray, homography: np.ndarray, x0: int, y0: int, scale: float
) -> int:
    """How many squares of the 15x15 window starting at lines ``x0``, ``y0`` show the colour
    family (red or blue) that the premium layout gives them, less those showing one it does
    not (a plain square, or the other family).

    A square shows a family where most of five points near its middle are of it.  Unlike
    :func:`_premium_scores`, this asks for the colours themselves, not only for squares that
    differ from the window's typical one: glare, tiles and a table beside the board differ
    too.  Where tiles cover most premium squares, or noise pales their colours, few show, and
    a window a line or two off can count more of them (on the premium squares' diagonals): of
    83 moves of the window on 4,800 rendered photos, all right, one lowered this count (from
    13 to 2), while the move two squares off a deluxe board under glare lowered it from 19 to 0.
    """
    samples = _square_samples(image, homography, (x0, x0 + GRID_SIZE), (y0, y0 + GRID_SIZE),
                              scale)
    blue, red = _colour_families(samples)
    blue = blue.sum(axis=-1) > len(_SQUARE_POINTS) // 2
    red = red.sum(axis=-1) > len(_SQUARE_POINTS) // 2
    want_red = _PREMIUM & _RED_LAYOUT
    want_blue = _PREMIUM & ~_RED_LAYOUT
    agree = (want_red & red).sum() + (want_blue & blue).sum()
    disagree = (~_PREMIUM & (red | blue)).sum() + (want_red & blue).sum() + (want_blue & red).sum()
    return int(agree - disagree)


def _premium_blobs(work: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Square-like regions of premium colour in a BGR work image: centres, sides (square root
    of the area), whether each is red (else blue), and a map of them: for each colour family,
    the index of the region each pixel lies in (within half a side of its centre), else -1.

    Specks of noise or of a carpet's weave, a pixel or two wide, are opened away first.
    """
    blue, red = _colour_families(work)
    kernel = np.ones((3, 3), np.uint8)
    centres, sides, reds = [], [], []
    for is_red, mask in ((False, blue), (True, red)):
        opened = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, kernel)
        cells = _find_cells(1 - opened)
        centres.append(cells.centres)
        sides.append(np.sqrt(cells.areas))
        reds.append(np.full(len(cells.areas), is_red))
    centres_all, sides_all = np.vstack(centres), np.concatenate(sides)
    reds_all = np.concatenate(reds)
    where = np.full((2, *work.shape[:2]), -1, np.int32)
    for index, (centre, side, is_red) in enumerate(
            zip(centres_all, sides_all, reds_all, strict=True)):
        cv2.circle(where[int(is_red)], (int(round(centre[0])), int(round(centre[1]))),
                   max(1, int(round(side / 2))), index, -1)
    return centres_all, sides_all, reds_all, where


def _similarities(
    centres: np.ndarray, sides: np.ndarray, reds: np.ndarray
) -> np.ndarray:
    """Guesses of the map from the layout's squares to the work image (2x3 similarities), each
    from one blob and a near one taken for two premium squares of their colours."""
    layout, layout_red = _PREMIUM_SITES, _PREMIUM_RED
    # The layout is symmetric under the board's turns and reflections: the first square of a
    # pair is taken in one eighth of it.
    first = (layout[:, 1] <= layout[:, 0]) & (layout[:, 0] <= GRID_SIZE // 2)
    apart = layout[None, :, :] - layout[:, None, :]
    reach = np.hypot(apart[..., 0], apart[..., 1])
    pair_a, pair_b = np.nonzero(first[:, None] & (reach > 0) & (reach <= _PAIR_REACH))
    distance = np.hypot(*(centres[None, :, :] - centres[:, None, :]).transpose(2, 0, 1))
    np.fill_diagonal(distance, np.inf)
    # Premium squares' blobs are of a size; a speck beside one is no partner.
    ratio = sides[None, :] / sides[:, None]
    distance[(ratio < 0.7) | (ratio > 1 / 0.7)] = np.inf
    guesses = []
    nearest = np.argsort(distance, axis=1)[:, :_PAIRS_PER_BLOB]
    for i in range(len(centres)):
        for j in nearest[i]:
            if not np.isfinite(distance[i, j]) or distance[i, j] > 2 * _PAIR_REACH * sides[i]:
                continue
            fits = (layout_red[pair_a] == reds[i]) & (layout_red[pair_b] == reds[j])
            # The side a square would have: a premium square's blob spans most of it.
            side = distance[i, j] / reach[pair_a, pair_b]
            fits &= (sides[i] > _BLOB_SIZES[0] * side) & (sides[i] < _BLOB_SIZES[1] * side)
            a, b = layout[pair_a[fits]], layout[pair_b[fits]]
            # The similarities z -> p + (z - a) * (q - p) / (b - a), in complex numbers.
            step = complex(*(centres[j] - centres[i])) / ((b - a) @ [1, 1j])
            origin = complex(*centres[i]) - step * (a @ [1, 1j])
            guesses.append(np.stack([
                np.stack([step.real, -step.imag, origin.real], axis=1),
                np.stack([step.imag, step.real, origin.imag], axis=1),
            ], axis=1))
    return np.concatenate(guesses) if guesses else np.zeros((0, 2, 3))


def _premium_matches(
    points: np.ndarray, side: np.ndarray, where: np.ndarray, sides: np.ndarray
) -> np.ndarray:
    """For predicted premium squares' centres (``(..., 61, 2)`` work pixels, on squares of
    ``side`` pixels, ``(...)``), the blob of the square's colour each lands in (see
    :func:`_premium_blobs`) where that blob is of a premium square's size, else -1."""
    height, width = where.shape[1:]
    x = np.rint(points[..., 0])
    y = np.rint(points[..., 1])
    inside = (x >= 0) & (x < width) & (y >= 0) & (y < height)
    family = np.broadcast_to(_PREMIUM_RED.astype(np.intp), inside.shape)
    found = where[family, np.where(inside, y, 0).astype(np.intp),
                  np.where(inside, x, 0).astype(np.intp)]
    ratio = sides[found] / np.asarray(side)[..., None]
    sized = (ratio > _BLOB_SIZES[0]) & (ratio < _BLOB_SIZES[1])
    return np.where(inside & (found >= 0) & sized, found, -1)


def _refined_premium_map(
    guess: np.ndarray, centres: np.ndarray, sides: np.ndarray, reds: np.ndarray
) -> tuple[np.ndarray, int]:
    """A guessed map (2x3) from the layout's squares to the work image refined through the
    premium squares it matches (each the nearest blob of its colour and size, within
    :data:`_MATCH_REACH` of a square; an affine map first, then a homography), and how many
    it matches."""
    homography = np.vstack([guess, [0, 0, 1]])
    matched = np.zeros(len(_PREMIUM_SITES), bool)
    for round_number in range(_REFINE_ROUNDS):
        mapped = project(homography, _PREMIUM_SITES)
        side = float(np.median(np.hypot(
            *(project(homography, _PREMIUM_SITES + [1.0, 0.0]) - mapped).T)))
        offsets = mapped[:, None, :] - centres[None, :, :]
        distance = np.hypot(offsets[..., 0], offsets[..., 1])
        ratio = sides / max(side, 1e-9)
        fits = ((_PREMIUM_RED[:, None] == reds[None, :])
                & ((ratio > _BLOB_SIZES[0]) & (ratio < _BLOB_SIZES[1]))[None, :])
        distance = np.where(fits, distance, np.inf)
        nearest = np.argmin(distance, axis=1)
        matched = distance[np.arange(len(nearest)), nearest] < _MATCH_REACH * side
        if matched.sum() < 8:
            break
        source, target = _PREMIUM_SITES[matched], centres[nearest[matched]]
        if round_number == 0:
            design = np.hstack([source, np.ones((len(source), 1))])
            solution, *_ = np.linalg.lstsq(design, target, rcond=None)
            refit = np.vstack([solution.T, [0, 0, 1]])
        else:
            refit, _ = cv2.findHomography(source, target, 0)
        if refit is None:
            break
        homography = refit
    return homography, int(matched.sum())


def _premium_look(image: np.ndarray) -> _Placement | None:
    """The grid placed by its premium squares' colours alone, where they match the layout
    (:data:`_MIN_PREMIUM_MATCHED`); else None.

    The very last look, where no lattice of empty squares is found at all: a small board out
    of focus, dim, among sensor noise, its lines fainter than the noise, still shows its red
    and blue premium squares.  Every blob of those colours shaped like a square is found; two
    near ones, taken for two premium squares of their colours, give a guess of the map from
    the layout to the photo (a similarity), and the guess under which most premium squares
    land on a blob of their colour is refined (an affine map, then a homography through the
    squares matched).  The lines, where they are seen better than by that fit, refine it.
    """
    if image.ndim != 3:
        return None
    scale = min(1.0, WORK_LONG_SIDE / max(image.shape[:2]))
    work = image
    if scale < 1.0:
        work = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    work = cv2.GaussianBlur(work, (3, 3), 0)
    centres, sides, reds, where = _premium_blobs(work)
    if len(centres) < _MIN_PREMIUM_MATCHED:
        return None
    guesses = _similarities(centres, sides, reds)
    if len(guesses) == 0:
        return None
    layout = np.hstack([_PREMIUM_SITES, np.ones((len(_PREMIUM_SITES), 1))])
    side = np.hypot(guesses[:, 0, 0], guesses[:, 1, 0])
    counts = (_premium_matches(np.einsum("kij,nj->kni", guesses, layout), side, where, sides)
              >= 0).sum(axis=1)
    best_matched, homography = 0, None
    # Not every best guess refines well (a similarity fits a slanted board only near the two
    # squares it was taken from): the best few are refined, the one matching most kept.
    for guess in np.argsort(-counts, kind="stable")[:_GUESSES_REFINED]:
        if counts[guess] < _MIN_PREMIUM_MATCHED // 2:
            break
        refined, matched = _refined_premium_map(guesses[guess], centres, sides, reds)
        if matched > best_matched:
            best_matched, homography = matched, refined
    if homography is None or best_matched < _MIN_PREMIUM_MATCHED:
        return None
    placement = _Placement(homography @ _CENTRE_TO_LINES, 0, 0, 0, scale)
    chosen, best_lines = placement, check_corners(image, _photo_corners(placement))
    grey = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
    for dark_lines in (True, False):
        ridges = _ridges(grey, dark_lines).astype(np.float32)
        refined = _refine(ridges, placement.homography, (0, GRID_SIZE), (0, GRID_SIZE),
                          reach=0.2)
        candidate = _Placement(refined, 0, 0, 0, scale)
        lines = check_corners(image, _photo_corners(candidate))
        if lines > best_lines:
            chosen, best_lines = candidate, lines
    return chosen


def locate_board(image: np.ndarray, quality: bool = True) -> BoardLocation:
    """Find the corners of the 15x15 playing grid in a BGR (or grey) photo.

    ``quality``: whether to judge the fit found (:func:`check_corners`, 2-3 ms at 1920x1080),
    for :attr:`BoardLocation.quality`; without it (a caller that needs only the corners) that
    is NaN.

    Raises :class:`BoardNotFound` when the image holds no grid of squares.
    """
    grey = _grey(image)
    height, width = grey.shape
    looks = _Looks(image, grey)
    attempt, first_seen = _search(looks)
    lattice = attempt.lattice
    if len(lattice.members) >= _MIN_LATTICE_CELLS:
        placement = _place(image, attempt)
        if placement.covered <= 2 * GRID_SIZE - _FAR_SHORT_OF_WINDOW:
            placement = _farther_placement(looks, attempt, placement)
        placement = _confirmed_placement(image, grey, attempt, placement)
        placement = _second_opinion(looks, attempt, placement)
    else:
        # No look found a lattice: the last ones, on the squares that several looks agree
        # on, then on the premium squares' colours.
        agreed = _agreed_look(image, grey, first_seen)
        if agreed is None:
            agreed = _premium_look(image)
        if agreed is None:
            if attempt.cells_found < _MIN_LATTICE_CELLS:
                raise BoardNotFound(
                    f"no grid of squares found: {attempt.cells_found} square-like regions in a "
                    f"{width}x{height} image, and no layout of premium squares in its colours"
                )
            raise BoardNotFound(
                f"no grid of squares found: at most {len(lattice.members)} of "
                f"{attempt.cells_found} square-like regions lie on one lattice (need "
                f"{_MIN_LATTICE_CELLS}) in a {width}x{height} image, and no layout of premium "
                f"squares in its colours"
            )
        placement = agreed
    corners = _photo_corners(placement)
    inside = (
        (corners[:, 0] > -0.5 * width)
        & (corners[:, 0] < 1.5 * width)
        & (corners[:, 1] > -0.5 * height)
        & (corners[:, 1] < 1.5 * height)
    )
    if not inside.all():
        raise BoardNotFound(f"the grid found runs far outside the image: {corners.tolist()}")
    side = _square_side(corners)
    return BoardLocation(
        corners=corners,
        homography=image_to_grid(corners),
        quality=check_corners(image, corners) if quality else float("nan"),
        square_px=float(side),
    )


def check_corners(image: np.ndarray, corners: np.ndarray | list) -> float:
    """How well known grid corners still fit an image: 0 (no better than chance) to 1.

    Meant for a fixed camera.  Across each of the 32 grid lines, at 2 places per square, a short
    intensity profile is sampled and the position of its strongest thin ridge (dark or light) is
    found.  Printed lines, and the gaps between neighbouring tiles, put that ridge on the line
    (within 2 px, or a thirtieth of a square on large squares) when the corners are right; if the
    board or camera moved further it lands anywhere along the profile.  The score is the share of
    profiles peaking on the line, rescaled so that chance gives 0.  About a millisecond or two at
    1280x720.

    What a right fit scores depends on the board and on how many tiles hide its lines (0.99 on
    the green board with five tiles, 0.77 with ninety-seven; 0.3-0.6 on the low-contrast English
    boards photographed at a slant), so compare with :attr:`BoardLocation.quality`, the score at
    the time the grid was found, rather than with one fixed level.  Corners off by half a square
    score 0.

    >>> import numpy as np
    >>> board = np.full((200, 200, 3), 90, np.uint8)
    >>> for k in range(16):
    ...     board[20 + 10 * k, 20:171] = board[20:171, 20 + 10 * k] = 20
    >>> grid = [[20, 20], [170, 20], [170, 170], [20, 170]]
    >>> check_corners(board, grid) > 0.9
    True
    >>> check_corners(board, [[x + 4, y + 3] for x, y in grid]) < 0.2
    True
    """
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        raise TypeError("image must be a uint8 BGR or grey numpy array")
    corners = as_corners(corners)
    to_image = grid_to_image(corners)
    side = _square_side(corners)
    # Profiles 0.4 square long in steps of a sixtieth of a square (never under a pixel); the
    # ridge compares each point with the points 4 steps (about a line width) either side.
    step = max(1.0 / 60.0, 1.0 / max(side, 1e-6))
    half = max(5, int(round(0.2 / step)))
    steps = np.arange(-half - 4, half + 5) * step
    lines = np.arange(GRID_SIZE + 1, dtype=np.float64)
    ts = (np.arange(GRID_SIZE)[:, None] + np.array([0.3, 0.7])[None, :]).ravel()
    line_grid, t_grid = (a.ravel() for a in np.meshgrid(lines, ts, indexing="ij"))
    centres = np.concatenate([np.stack([line_grid, t_grid], 1), np.stack([t_grid, line_grid], 1)])
    normals = np.zeros_like(centres)
    normals[: len(line_grid), 0] = 1.0
    normals[len(line_grid) :, 1] = 1.0
    # In homogeneous coordinates a profile is linear in the step: centre + step * normal.
    base = np.hstack([centres, np.ones((len(centres), 1))]) @ to_image.T
    direction = normals @ to_image[:, :2].T
    homogeneous = base[:, None, :] + steps[None, :, None] * direction[:, None, :]
    image_points = homogeneous[..., :2] / homogeneous[..., 2:3]
    values = _remap_points(image, image_points, cv2.BORDER_REPLICATE).astype(np.float32)
    if image.ndim == 3:
        values = values @ np.array([0.114, 0.587, 0.299], np.float32)
    profiles = values.reshape(len(centres), len(steps))
    centre, before, after = profiles[:, 4:-4], profiles[:, :-8], profiles[:, 8:]
    # A ridge differs from both sides the same way (one side alone is just an edge).
    darker = np.minimum(before - centre, after - centre)
    lighter = np.minimum(centre - before, centre - after)
    ridge = np.maximum(darker, lighter)
    peak = np.argmax(ridge, axis=1) - half
    flat = ridge.max(axis=1) < 4.0  # no line at all here (glare, blank tile face): no vote
    hits = (np.abs(peak) <= 2) & ~flat
    votes = max(int((~flat).sum()), 1)
    chance = 5.0 / (2 * half + 1)
    share = hits.sum() / votes
    coverage = min(1.0, votes / (0.5 * len(centres)))
    return float(np.clip((share - chance) / (1 - chance), 0.0, 1.0) * coverage)
