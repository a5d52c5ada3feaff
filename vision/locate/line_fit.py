"""Refining a lattice against the grid lines themselves (step 4 of :mod:`vision.locate`): ridge
peaks along each projected line, a line-based homography fit resting on the lines between empty
squares, how much of each line is seen, and growing the lattice line by line."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from vision.geometry import GRID_SIZE, project
from vision.locate.lattice import _SITE_TOLERANCE
from vision.locate.sampling import _sample
from vision.medians import median

#: Lattice coordinates from here on put grid lines at integers: square (i, j) spans i..i+1.
_CENTRE_TO_LINES = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]], float)


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


@lru_cache(maxsize=16)
def _offsets(reach: float) -> np.ndarray:
    """The 21 offsets across a line that :func:`_peaks` samples (read-only: kept for the
    process, since a search asks for the same few reaches in every photo and np.linspace is
    slow to call)."""
    offsets = np.linspace(-reach, reach, 21)
    offsets.flags.writeable = False
    return offsets


def _peaks(
    ridges: np.ndarray, homography: np.ndarray, points: np.ndarray, vertical: bool, reach: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Search across the line at each lattice point for the ridge peak.

    Returns the peak's image position, its lattice offset from the line and its strength.
    """
    # (A reach of another type than a Python float keeps its own, as np.linspace types it.)
    offsets = _offsets(reach) if type(reach) is float else np.linspace(-reach, reach, 21)
    normal = np.array([1.0, 0.0]) if vertical else np.array([0.0, 1.0])
    # The points moved along the normal (an axis): the same coordinates as points + offsets *
    # normal, built without the product.
    across = 0 if vertical else 1
    probe = np.empty((len(points), len(offsets), 2))
    probe[..., across] = points[:, None, across] + offsets[None, :]
    probe[..., 1 - across] = points[:, None, 1 - across]
    image_points = project(homography, probe.reshape(-1, 2)).reshape(len(points), len(offsets), 2)
    profile = _sample(ridges, image_points)
    strongest = np.argmax(profile, axis=1)
    best = np.clip(strongest, 1, len(offsets) - 2)
    rows = np.arange(len(points))
    left, mid, right = profile[rows, best - 1], profile[rows, best], profile[rows, best + 1]
    curvature = left - 2 * mid + right
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = np.where(curvature < 0, 0.5 * (left - right) / curvature, 0.0)
    shift = np.clip(shift, -0.5, 0.5)
    offset = offsets[best] + shift * (offsets[1] - offsets[0])
    on_edge = (strongest == 0) | (strongest == len(offsets) - 1)
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
