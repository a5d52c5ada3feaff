"""A photo's motion blur or defocus, measured around the board and undone for reading letters.

A camera moved during the exposure smears every point along a short line (2 to 7 pixels at
1280x720, up to a fifth of a square); a lens out of focus spreads it into a disc.  Serif
letters' thin strokes then keep too little contrast to be found (a D read as ``|)``, an E as
``I``).  Both blurs are the same for the whole board, so they can be measured from the whole of
it and undone once before the glyphs are found.

**Measuring the blur** (:func:`estimate_blur`).  The photo's *structure function* near the
origin, ``D(r) = mean((I(x + r) - I(x))^2)`` for shifts ``r`` of up to :data:`REACH` pixels,
measured in patches that lie within the grid (a table's grain or a cloth's weave could pass for
blur), shows the blur's shape: a sharp photo's edges make ``D`` rise steeply from ``r = 0`` in
every direction (a cusp), a blur rounds the cusp over the blur's extent in each direction
(motion: a valley along the motion, as long as the motion; defocus: round).  ``D`` is that of
the sharp picture smoothed by the point-spread function's autocorrelation, plus the sensor's
noise at every ``r != 0``.  The sharp picture's ``D`` is modelled as a few cusps of different
reach: round ones on the board (letters, grain; the camera's tilt foreshortens them in the
photo), ones along the board's two axes (grid lines and tile edges) and one whose steepness
varies with the direction (letters' strokes run mostly one way); the sharp photo's own
anisotropy must not pass for motion.  For each candidate blur (:func:`candidate_blurs`) their
smoothed forms and the noise are fitted to the measured ``D`` by least squares, the small shifts
weighing most.  The candidate that fits best is the blur, a motion then refined on finer grids
around it (:data:`REFINEMENTS`); how much it improves an even-handed fit over no blur at all is
its *clarity*.

**Undoing it** (:func:`wiener`): deconvolution of the photo's grey picture around the board,
regularised by the restored picture's roughness (:data:`ROUGHNESS`), in the photo itself, where
the blur is the same everywhere (in the rectified board perspective would stretch it
differently across the board).  What is undone is the mean of the candidate blurs that fit
nearly as well as the best (:data:`PLAUSIBLE`; on the coarse grid, moved by the refinement),
their motions cut to :data:`LENGTH_UNDONE` of their length: the estimate's direction errs by
up to 15 degrees and its length by a pixel, and a deconvolution that overshoots breaks strokes
where one that falls short only leaves some blur.

:func:`deblurred_for_letters` does both, once per read, and leaves a photo whose blur does not
show clearly (:data:`CLEAR`), or whose defocus alone is slight (:data:`DEFOCUS_UNDONE_FROM`),
as it is.  Only the letters are read from the result: occupancy
and the faces' colours keep the photo as taken.
"""

from __future__ import annotations

import hashlib
import logging
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.cache import cache_dir, write_whole
from vision.geometry import image_to_grid, scaled
from vision.glyphs import crop_margin_px
from vision.light import lifted

log = logging.getLogger(__name__)

#: Largest shift (pixels) at which the structure function is measured and fitted: beyond the
#: longest motion blurs the renderer gives (7 px) and as long as the longest candidate's half.
REACH = 9
#: Side (pixels) of the patches the structure function is measured in, and their largest
#: number: a 1280x720 photo's grid holds about 20 of them.
PATCH = 96
MAX_PATCHES = 48
#: Candidate motions: lengths in pixels and directions in degrees (x toward y, modulo 180).
#: Whole pixels suffice, the refinement (:data:`REFINEMENTS`) finding the quarter: with half
#: pixels the estimate took a third longer and measured no better.
MOTION_LENGTHS = tuple(np.arange(2.0, 9.01, 1.0).tolist())
MOTION_ANGLES = tuple(np.arange(0.0, 180.0, 7.5).tolist())
#: Defocus (Gaussian sigma, pixels) that every candidate motion carries too: a lens is never
#: perfectly focused and the picture's own edges are a little soft.
MOTION_DEFOCUS = 0.3
#: Candidate defocus sigmas (pixels); the first is "no blur to speak of".
#: Beyond 2.1 (a twentieth of a 48-pixel square) the letters' strokes run together: those
#: candidates measure how far out of focus a photo is, where a motion of the longest length
#: took the place of a heavy defocus (a disc spread over a tenth of a square) or none fitted.
DEFOCUS_SIGMAS = (0.3, 0.6, 0.9, 1.2, 1.5, 1.8, 2.1, 2.5, 3.0, 3.5)
#: Reach (pixels) of the cusps that model the sharp picture's structure function.  With (1, 2,
#: 4, 8), on the 50 motion-blurred rendered photos, the direction's mean error was 6.7 degrees
#: (5.7 with these), the length's 0.75 px (0.57); 7 sharp photos of 147 showed a blur clearly
#: (2), and the real game's frames up to 4.9 (2.4).
CUSP_REACH = (1, 2, 3, 5, 8)
#: Reach (pixels) and angular orders of the cusp whose steepness varies with the direction
#: (see :func:`_anisotropic_cusps`).  Without it, a defocused photo whose letters' strokes run
#: mostly one way passed for motion along them: of 103 defocused rendered photos, 28 showed
#: a motion clearly, 5 with it (with cusps of reach 1, 2, 4 and 8); on 50 motion-blurred ones
#: the direction's mean error fell from 8.3 to 6.7 degrees (with :data:`REFINEMENTS`).
#: Reach 4 balances the two: shorter or longer let more defocus pass for motion, or let the
#: cusp take up the motion's own anisotropy.
ANISOTROPY_REACH = 4
ANISOTROPY_ORDERS = (2, 4)
#: Steps (degrees, pixels) around the best candidate motion at which finer motions are then
#: weighed, one round after another: the candidates' grid is coarse for the time it takes,
#: the estimate finer.
REFINEMENTS: tuple[tuple[tuple[float, ...], tuple[float, ...]], ...] = (
    (tuple(np.arange(-5.0, 5.01, 1.25).tolist()), (-0.5, -0.25, 0.0, 0.25, 0.5)),
)
#: Weight of the restored picture's roughness in the deconvolution (see :func:`wiener`).  On
#: 20 motion-blurred rendered photos deconvolved with the renderer's own blur, 0.003 let noise
#: through (105 + 120 squares wrong, calibrated + uncalibrated), 0.01 gave 48 + 78, 0.03
#: 51 + 65, 0.06 74 + 98, 0.12 96 + 120; a flat noise-to-signal ratio did no better than
#: 81 + 96 (at 0.05), against 180 + 218 with no deblurring.
ROUGHNESS = 0.03
#: Share of the grid's side added around the grid's corners for the part of the photo that is
#: deconvolved: the crop margin around the grid that the letters are read from, and more.
BOX_MARGIN = 0.08
#: Clarity (see :class:`BlurEstimate`) from which a blur is undone.  On the 300 rendered photos
#: of ``bench/eval_rendered.py`` 2 sharp photos of 147 reach it (both as a slight defocus
#: alone, left as they are: :data:`DEFOCUS_UNDONE_FROM`), 22 defocused ones of 103 (4 as a
#: motion) and 37 motion-blurred ones of 50; the real game's frames measure 1.0 to 2.4.
CLEAR = 3.2
#: Scale of the second measurement of a blur that shows a motion unclearly (see
#: :func:`deblurred_for_letters`): at 48 pixels a square, a motion of up to 0.28 of a square
#: then lies within :data:`REACH`.
COARSER = 2.0 / 3.0
#: Motion blur (in squares of the board) from which a reading warns that letters may be
#: misread: on the 300 rendered photos of ``bench/eval_rendered.py``, photos blurred so (37)
#: had 0.49 % of their squares wrong after the word check (calibrated), the others 0.06 %;
#: 24 of the 27 photos smeared that far by the camera's motion are warned of.
MOTION_WARNING = 0.15
#: Smear (squares) of a blur seen clearly from which, short of :data:`MOTION_WARNING`, the
#: blur is measured again at :data:`COARSER` of the scale: a camera's motion longer than
#: :data:`REACH` with a shake or a defocus on top fits, within reach, a shorter blur or a
#: defocus (the real photo blurred by a fifth of a square, shaken further or out of focus
#: too, measured 0.09 to 0.13 at the letters' scale and 0.27 to 0.30 at the coarser one).
LONGER_FROM = 0.08
#: Least defocus (Gaussian sigma, pixels) undone when no motion shows: a slight one costs the
#: letters little, and deconvolving it would sharpen the grain of photos that read well as
#: they are.  Of the 103 defocused rendered photos (sigma 1 to 1.6) 18 show a defocus alone
#: clearly, 16 of them as 1.2 or more; the 2 sharp photos that show one clearly, as less.
DEFOCUS_UNDONE_FROM = 1.2
#: A defocus of Gaussian sigma ``s`` spreads a point as far as a straight motion of this many
#: times ``s`` along its line (the same variance, ``s^2 = L^2 / 12``, but in every direction):
#: how a defocus counts in a blur's smear (:attr:`Deblurred.smear_squares`).
DEFOCUS_AS_MOTION = math.sqrt(12.0)
#: Share of the estimated motion's length that is undone: the estimate errs by a pixel either
#: way, and too long a deconvolution breaks strokes where too short a one only leaves some
#: blur (on the 20 motion-blurred photos: 1.0 left 192 + 213 squares wrong, 0.8 142 + 178).
LENGTH_UNDONE = 0.9
#: How sharply the candidates' weights fall with their fit: a candidate whose weighted
#: residual is ``1 + x`` times the best one's weighs ``exp(-PLAUSIBLE * x)``.  On the 20
#: motion-blurred photos, undoing the best candidate alone left 142 + 178 squares wrong,
#: the mean with 30 147 + 173, 10 126 + 155, 3 129 + 148, 1 128 + 166.
PLAUSIBLE = 3.0


@dataclass(frozen=True)
class BlurEstimate:
    """A photo's blur: a straight motion of ``length`` pixels in direction ``angle`` (degrees,
    x toward y) with a Gaussian defocus of sigma ``defocus`` pixels (``length`` 0: defocus
    alone).  ``clarity``: how much worse the structure function is fitted with no blur than
    with this one (1: no better).  ``plausible``: the candidate blurs that fit nearly as well,
    as (weight, length, angle, defocus), weights summing to 1 (see :data:`PLAUSIBLE`): those
    of the coarse grid, their motions moved by the refinement's step."""

    length: float
    angle: float
    defocus: float
    clarity: float
    plausible: tuple[tuple[float, float, float, float], ...] = ()

    def scaled(self, factor: float) -> BlurEstimate:
        """The same blur in a picture ``factor`` times the size.

        >>> BlurEstimate(3.0, 20.0, 0.3, 5.0, ((1.0, 3.0, 20.0, 0.3),)).scaled(1.5).length
        4.5
        """
        return BlurEstimate(self.length * factor, self.angle, self.defocus * factor,
                            self.clarity, tuple((w, length * factor, angle, defocus * factor)
                                                for w, length, angle, defocus in self.plausible))

    def psf(self) -> np.ndarray:
        """The point-spread function (sums to 1)."""
        return blur_psf(self.length, self.angle, self.defocus)

    def undoing_psf(self, length_share: float = 1.0) -> np.ndarray:
        """The point-spread function to undo: the plausible blurs' mean (their motions cut to
        ``length_share`` of their length), so that where the estimate is unsure (a direction
        or a length between candidates) the deconvolution only undoes what they share."""
        blurs = self.plausible or ((1.0, self.length, self.angle, self.defocus),)
        kernels = [(w, blur_psf(length * length_share, angle, defocus))
                   for w, length, angle, defocus in blurs]
        side = max(k.shape[0] for _, k in kernels)
        mean = np.zeros((side, side), np.float32)
        for w, k in kernels:
            offset = (side - k.shape[0]) // 2
            mean[offset : offset + k.shape[0], offset : offset + k.shape[1]] += w * k
        return mean / mean.sum()


def blur_psf(length: float, angle: float, defocus: float) -> np.ndarray:
    """Point-spread function of a motion (``length`` 0: none) with a defocus (sums to 1)."""
    return motion_psf(length, angle, defocus) if length > 0 else defocus_psf(defocus)


def motion_psf(length: float, angle: float, defocus: float = 0.0) -> np.ndarray:
    """Point-spread function of a straight motion of ``length`` pixels in direction ``angle``
    (degrees, x toward y), with a Gaussian defocus of sigma ``defocus`` pixels on top; sums to 1.

    The segment is drawn as closely spaced points, each shared among its four nearest pixels
    (bilinearly), so that the kernel changes smoothly with the length and the direction: a
    line rasterised between pixel centres snaps short motions to the nearest multiple of 45
    degrees, and then candidates 20 degrees apart are one and the same kernel.

    >>> psf = motion_psf(4.0, 0.0)
    >>> psf.shape, round(float(psf.sum()), 6), int(np.count_nonzero(psf.sum(axis=1)))
    ((7, 7), 1.0, 1)
    >>> wide = motion_psf(4.0, 30.0) - motion_psf(4.0, 37.5)
    >>> bool(np.abs(wide).sum() > 0.1)
    True
    """
    reach = int(math.ceil(length / 2 + 3 * defocus)) + 1
    side = 2 * reach + 1
    # Eight points a pixel: their spacing no longer shows once shared among pixels.
    along = np.linspace(-length / 2, length / 2, max(2, int(math.ceil(length * 8)) + 1))
    xs = reach + along * math.cos(math.radians(angle))
    ys = reach + along * math.sin(math.radians(angle))
    x0, y0 = np.floor(xs), np.floor(ys)
    fx, fy = xs - x0, ys - y0
    corner = (y0 * side + x0).astype(np.intp)
    cells = (corner[None, :] + np.array([0, 1, side, side + 1])[:, None]).ravel()
    shares = np.stack([(1 - fy) * (1 - fx), (1 - fy) * fx, fy * (1 - fx), fy * fx]).ravel()
    kernel = np.bincount(cells, shares, side * side).reshape(side, side).astype(np.float32)
    if defocus > 0.05:
        kernel = cv2.GaussianBlur(kernel, (0, 0), defocus)
    return kernel / kernel.sum()


def defocus_psf(sigma: float) -> np.ndarray:
    """Gaussian point-spread function of sigma ``sigma`` pixels; sums to 1.

    >>> psf = defocus_psf(1.0)
    >>> psf.shape, round(float(psf.sum()), 6), bool(psf[4, 4] == psf.max())
    ((9, 9), 1.0, True)
    """
    reach = int(math.ceil(3 * sigma)) + 1
    kernel = np.zeros((2 * reach + 1, 2 * reach + 1), np.float32)
    kernel[reach, reach] = 1.0
    kernel = cv2.GaussianBlur(kernel, (0, 0), sigma)
    return kernel / kernel.sum()


def candidate_blurs() -> list[tuple[float, float, float]]:
    """The blurs weighed, as (length, angle, defocus): defocus alone first (the first of all
    is no blur to speak of), then every candidate motion."""
    return [(0.0, 0.0, s) for s in DEFOCUS_SIGMAS] + [
        (length, angle, MOTION_DEFOCUS) for length in MOTION_LENGTHS for angle in MOTION_ANGLES]


#: Side of the window of shifts over which the smoothed cusps are computed: the fitted shifts
#: plus the largest candidate's reach.
_SUPPORT = 2 * REACH + 1


def _autocorrelation(psf: np.ndarray) -> np.ndarray:
    """A point-spread function's autocorrelation on the centred S x S window of shifts (S = 2 *
    :data:`REACH` + 1; what lies beyond is left out: the longest candidate's reaches its
    length)."""
    k = psf.shape[0]
    padded = np.zeros((k + _SUPPORT - 1, k + _SUPPORT - 1), np.float32)
    padded[_SUPPORT // 2 : _SUPPORT // 2 + k, _SUPPORT // 2 : _SUPPORT // 2 + k] = psf
    return cv2.matchTemplate(padded, psf, cv2.TM_CCORR)


def _autocorrelations() -> np.ndarray:
    """Each candidate blur's point-spread autocorrelation (:func:`_autocorrelation`), (C, S, S)
    float32."""
    return _tables()[0]


def _tables_path() -> Path:
    """Where the tables of :func:`_tables` are kept: in the user's cache, named by this module's
    source and the versions of NumPy and OpenCV, which are all that make them."""
    source = Path(__file__).read_bytes()
    key = hashlib.sha256(source + f"\0{np.__version__}\0{cv2.__version__}".encode())
    return cache_dir() / f"deblur-tables-{key.hexdigest()[:16]}.npy"


@lru_cache(maxsize=1)
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """The candidates' autocorrelations (C, S, S) and :func:`_smoothed` of the anisotropic
    cusps (C, F, K), the same for every photo: made in 10-15 ms at a process's first estimate
    (two hundred kernels drawn and correlated), so kept in the user's cache and read from there
    (a fraction of a millisecond), as made, to the last bit."""
    count, fitted = len(candidate_blurs()), int(_FITTED.sum())
    shapes = ((count, _SUPPORT, _SUPPORT), (count, fitted, 2 * len(ANISOTROPY_ORDERS)))
    sizes = [math.prod(shape) for shape in shapes]
    path = _tables_path()
    try:
        stored = np.load(path, allow_pickle=False)
        if stored.dtype == np.float32 and stored.shape == (sum(sizes),):
            return (stored[: sizes[0]].reshape(shapes[0]),
                    stored[sizes[0] :].reshape(shapes[1]))
        log.warning("%s holds %s %s, not the deblurring tables: made again", path,
                    stored.dtype, stored.shape)
    except (OSError, ValueError) as exc:
        if not isinstance(exc, FileNotFoundError):
            log.warning("could not read the deblurring tables %s (%s): made again", path, exc)
    autos = np.stack([_autocorrelation(blur_psf(*blur)) for blur in candidate_blurs()])
    anisotropic = _smoothed(_anisotropic_cusps(), autos).astype(np.float32)
    try:
        tables = np.concatenate([autos.ravel(), anisotropic.ravel()])
        write_whole(path, lambda partial: np.save(partial, tables), suffix=".npy")
    except OSError as exc:
        log.warning("could not keep the deblurring tables in %s (%s)", path, exc)
    else:
        # Tables of another version of this module are no longer read: each would stay in
        # the cache, 0.7 MB a version.
        for old in path.parent.glob("deblur-tables-*.npy"):
            if old != path:
                old.unlink(missing_ok=True)
    return autos, anisotropic


def _shifts(side: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer shift coordinates (x, y) of a centred ``side`` x ``side`` window."""
    half = side // 2
    ys, xs = np.mgrid[-half : half + 1, -half : half + 1]
    return xs.astype(np.float32), ys.astype(np.float32)


#: Shifts fitted: those within REACH of the origin, one of each pair r, -r (the structure
#: function and every model of it are symmetric), the others counting twice (PAIRED).
_FIT_X, _FIT_Y = _shifts(2 * REACH + 1)
_FITTED = ((np.hypot(_FIT_X, _FIT_Y) <= REACH)
           & ((_FIT_Y > 0) | ((_FIT_Y == 0) & (_FIT_X >= 0)))).ravel()
_PAIRED = np.where(np.hypot(_FIT_X, _FIT_Y).ravel()[_FITTED] > 0, np.sqrt(2.0), 1.0)
#: Weight of each fitted shift's error when choosing the blur: the inverse square of its
#: length (on 50 motion-blurred rendered photos, directions more than 15 degrees off: 17 with
#: even weights, 7 with these).
_SHIFT_WEIGHT = _PAIRED / np.maximum(np.hypot(_FIT_X, _FIT_Y).ravel()[_FITTED], 1) ** 2
_NOISE_AT = (np.hypot(_FIT_X, _FIT_Y).ravel()[_FITTED] > 0).astype(np.float32)


@lru_cache(maxsize=1)
def _window_index() -> np.ndarray:
    """Flat indices (S * S, F) into the wide window of shifts: for each fitted shift, the
    window of the cusps that a candidate's autocorrelation (S x S) weighs."""
    wide = 2 * REACH + _SUPPORT
    fy, fx = np.divmod(np.flatnonzero(_FITTED), 2 * REACH + 1)
    dy, dx = np.divmod(np.arange(_SUPPORT * _SUPPORT), _SUPPORT)
    return (fy[None, :] + dy[:, None]) * wide + (fx[None, :] + dx[:, None])


@lru_cache(maxsize=1)
def _mirrored_shifts() -> tuple[np.ndarray, np.ndarray]:
    """Flat indices into the S x S window of shifts: the shifts s of one half, the centre
    last, and the shifts -s beside them (the centre's own)."""
    count = _SUPPORT * _SUPPORT
    shifts = np.arange(count // 2 + 1)  # row-major: the first half, then the centre
    return shifts, count - 1 - shifts


#: Smoothed cusps' values below this share of the largest are what cancelled out (sums of
#: products of both signs): their digits are the arithmetic's, not the picture's.
CANCELLED = 1e-6


def _smoothed(cusps: np.ndarray, autos: np.ndarray | None = None) -> np.ndarray:
    """Cusps (K, W, W) on the wide window of shifts correlated with each blur's
    autocorrelation (``autos``, (C, S, S): the candidates' by default) at the fitted shifts:
    (C, F, K)."""
    autos = _autocorrelations() if autos is None else autos
    autos = autos.reshape(len(autos), -1).astype(np.float64)
    index = _window_index()
    half, mirror = _mirrored_shifts()
    # An autocorrelation is the same at s and -s: the cusps at both shifts are summed and
    # weighed once, half the products.
    flat = cusps.reshape(len(cusps), -1).astype(np.float32).T.astype(np.float64)
    windows = flat[index[half]] + flat[index[mirror]]  # (H, F, K); the centre counted twice
    weights = (autos[:, half] + autos[:, mirror]) / 2
    weights[:, -1] /= 2  # the centre, last of the half
    # In double precision, rounded back, what cancels out to a millionth of the largest value
    # taken as nought: a float32 product's last bits depend on the processor's BLAS kernel
    # and on how many threads it runs, and the blur chosen, a least-squares fit among close
    # candidates, on those bits (the tables kept in the cache differed in 53,173 of their
    # 172,931 values between one thread and two, 80,951 between two kernels; computed so,
    # in none).
    smoothed = weights @ windows.reshape(len(half), -1)
    smoothed[np.abs(smoothed) < CANCELLED * np.abs(smoothed).max(initial=0.0)] = 0.0
    return smoothed.astype(np.float32).reshape(len(autos), index.shape[1], len(cusps))


def _anisotropic_smoothed() -> np.ndarray:
    """:func:`_smoothed` of the anisotropic cusps, the same for every photo."""
    return _tables()[1]


@lru_cache(maxsize=1)
def _round_smoothed() -> np.ndarray:
    """:func:`_smoothed` of the cusps round in the photo (used when the board's corners are not
    given)."""
    return _smoothed(_round_cusps(None))


def _round_cusps(metric: np.ndarray | None) -> np.ndarray:
    """Round cusps of each reach in :data:`CUSP_REACH`, (K, W, W) on the wide window of shifts:
    round in the photo, or on the board when given the ``metric`` that turns a shift in the
    photo into one on the board (:func:`board_metric`): letters and grain are as rough in
    every direction on the board, and the camera's tilt foreshortens them along one."""
    xs, ys = _shifts(2 * REACH + _SUPPORT)
    if metric is not None:
        xs, ys = metric[0, 0] * xs + metric[0, 1] * ys, metric[1, 0] * xs + metric[1, 1] * ys
    radius = np.hypot(xs, ys)
    return np.stack([np.minimum(radius, reach) for reach in CUSP_REACH]).astype(np.float32)


def _axis_cusps(axes: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Cusps along the board's axes (unit vectors in the photo) of each reach in
    :data:`CUSP_REACH`, (K, W, W): grid lines and tile edges."""
    xs, ys = _shifts(2 * REACH + _SUPPORT)
    (ux, uy), (vx, vy) = axes
    along_u, along_v = np.abs(xs * ux + ys * uy), np.abs(xs * vx + ys * vy)
    return np.stack([np.minimum(along_u, reach) + np.minimum(along_v, reach)
                     for reach in CUSP_REACH]).astype(np.float32)


@lru_cache(maxsize=1)
def _anisotropic_cusps() -> np.ndarray:
    """A cusp of reach :data:`ANISOTROPY_REACH` whose steepness varies with the direction as
    the cosine and sine of :data:`ANISOTROPY_ORDERS` times its angle, (K, W, W): letters'
    strokes and tiles' grain, steeper across than along them."""
    xs, ys = _shifts(2 * REACH + _SUPPORT)
    cusp = np.minimum(np.hypot(xs, ys), ANISOTROPY_REACH)
    angle = np.arctan2(ys, xs)
    return np.stack([cusp * wave(order * angle) for order in ANISOTROPY_ORDERS
                     for wave in (np.cos, np.sin)]).astype(np.float32)


def structure_function(grey: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """``D(r)`` of a grey picture for shifts up to :data:`REACH` pixels each way, (2R+1, 2R+1)
    (centre: no shift), over pairs of pixels within patches of :data:`PATCH` pixels that lie
    wholly in ``mask`` (all of the picture by default; at most :data:`MAX_PATCHES` of them,
    spread evenly, which bounds the time a large photo takes).

    >>> rng = np.random.default_rng(0)
    >>> d = structure_function(rng.normal(0, 1, (200, 200)).astype(np.float32))
    >>> round(float(d[REACH, REACH]), 3), 1.9 < float(d[0, 0]) < 2.1
    (0.0, True)
    """
    h, w = grey.shape
    inside = np.ones((h, w), np.uint8) if mask is None else (mask > 0).astype(np.uint8)
    covered = cv2.integral(inside)
    corners = [(y, x) for y in range(0, h - PATCH + 1, PATCH)
               for x in range(0, w - PATCH + 1, PATCH)
               if covered[y + PATCH, x + PATCH] - covered[y, x + PATCH]
               - covered[y + PATCH, x] + covered[y, x] == PATCH * PATCH]
    if not corners:
        raise ValueError(f"no {PATCH} px patch lies within the picture's mask")
    if len(corners) > MAX_PATCHES:
        corners = [corners[i] for i in np.linspace(0, len(corners) - 1, MAX_PATCHES).astype(int)]
    # Correlations over all shifts at once, by Fourier transforms padded beyond the reach
    # (no wrap-around) to a size OpenCV transforms fast; the transform being linear, the
    # patches' spectra are summed before the one inverse (a third of numpy's time).
    n = cv2.getOptimalDFTSize(PATCH + REACH)
    padded = np.zeros((n, n), np.float32)

    def spectrum(values: np.ndarray) -> np.ndarray:
        padded[:PATCH, :PATCH] = values
        # The rows of padding are zeros: OpenCV skips them (the same spectrum, a tenth sooner).
        return cv2.dft(padded, flags=cv2.DFT_COMPLEX_OUTPUT, nonzeroRows=PATCH)

    ones_f = spectrum(np.ones((PATCH, PATCH), np.float32))
    # The squares enter only through correlations with the patch window, which are linear in
    # them: the patches' squares are summed first and transformed once (a DFT a patch spared).
    squares = np.zeros((PATCH, PATCH), np.float32)
    power = np.zeros((n, n, 2), np.float32)
    for y, x in corners:
        patch = grey[y : y + PATCH, x : x + PATCH].astype(np.float32)
        patch -= patch.mean()
        patch_f = spectrum(patch)
        squares += patch * patch
        power += cv2.mulSpectrums(patch_f, patch_f, 0, conjB=True)
    squares_f = spectrum(squares)
    shifts = np.arange(-REACH, REACH + 1) % n

    def correlation(f: np.ndarray, g: np.ndarray) -> np.ndarray:
        """sum over p of f(p) g(p + r), for the shifts r fitted, from spectra."""
        product = cv2.mulSpectrums(g, f, 0, conjB=True)
        return cv2.idft(product, flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)[
            np.ix_(shifts, shifts)].astype(np.float64)

    # (x(p + r) - x(p))^2 summed over pairs within a patch, expanded into correlations.
    spread = (correlation(ones_f, squares_f) + correlation(squares_f, ones_f)
              - 2.0 * cv2.idft(power, flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)[
                  np.ix_(shifts, shifts)].astype(np.float64))
    pairs = len(corners) * correlation(ones_f, ones_f)
    return spread / pairs


def board_axes(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors along the grid's rows and columns in the photo (mean of opposite sides).

    >>> u, v = board_axes(np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32))
    >>> u.tolist(), v.tolist()
    ([1.0, 0.0], [0.0, 1.0])
    """
    c = np.asarray(corners, np.float64)
    u = c[1] - c[0] + c[2] - c[3]
    v = c[3] - c[0] + c[2] - c[1]
    return u / np.linalg.norm(u), v / np.linalg.norm(v)


def board_metric(corners: np.ndarray) -> np.ndarray:
    """The 2 x 2 matrix that turns a shift in the photo into one on the board, scaled to keep
    areas (a shift's length on the board in the photo's pixels, on average).

    >>> m = board_metric(np.array([[0, 0], [20, 0], [20, 10], [0, 10]], np.float32))
    >>> np.round(m @ [1.0, 0.0], 3).tolist(), np.round(m @ [0.0, 1.0], 3).tolist()
    ([0.707, 0.0], [0.0, 1.414])
    """
    c = np.asarray(corners, np.float64)
    u = (c[1] - c[0] + c[2] - c[3]) / 2
    v = (c[3] - c[0] + c[2] - c[1]) / 2
    metric = np.linalg.inv(np.stack([u, v], axis=1))
    return metric / math.sqrt(abs(float(np.linalg.det(metric))))


def _residuals(design: np.ndarray, measured: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Least-squares residual of each candidate's design (C, F, K) fitted to ``measured`` (F),
    each fitted shift's error weighted by ``weight`` (F)."""
    measured = measured * weight
    design = design * weight[None, :, None]
    transposed = design.transpose(0, 2, 1)
    normal = transposed @ design
    # A touch of ridge: the cusps of neighbouring reach are nearly collinear.
    ridge = 1e-6
    normal += ridge * np.eye(normal.shape[1])[None]
    target = transposed @ measured
    coefficients = np.linalg.solve(normal, target[..., None])[..., 0]
    # |D c - m|^2 without forming D c: with (D'D + ridge) c = D'm it is m'm - c'D'm - ridge c'c
    # (matrix products instead of a pass over every candidate's every shift).
    return np.maximum(float(measured @ measured) - np.sum(coefficients * target, axis=1)
                      - ridge * np.sum(coefficients * coefficients, axis=1), 0.0)


def estimate_blur(grey: np.ndarray, corners: np.ndarray | None = None) -> BlurEstimate:
    """The blur of a grey picture around the board (see the module's docstring); ``corners``
    of the grid in ``grey``'s coordinates give the board's axes and foreshortening, and the
    blur is measured on the grid alone (a table's grain or a cloth's weave beside it could
    pass for blur)."""
    mask = None
    if corners is not None:
        mask = np.zeros(grey.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(np.asarray(corners)).astype(np.int32), 1)
    measured = structure_function(grey, mask).ravel()[_FITTED]
    measured = measured / max(float(measured.max()), 1e-9)
    if corners is None:
        photo_cusps = _round_cusps(None)
        parts = [_round_smoothed()]
    else:
        photo_cusps = np.concatenate([_round_cusps(board_metric(corners)),
                                      _axis_cusps(board_axes(corners))])
        parts = [_smoothed(photo_cusps)]
    parts.append(_anisotropic_smoothed())
    candidates = candidate_blurs()

    def design(parts: list[np.ndarray]) -> np.ndarray:
        # The sensor's noise adds the same to every shift but none.
        noise = np.broadcast_to(_NOISE_AT[None, :, None], (len(parts[0]), len(measured), 1))
        return np.concatenate(parts + [noise], axis=2).astype(np.float64)

    designs = design(parts)
    # Fitted with the small shifts weighing most (they show the blur; the large ones mostly
    # the picture), the best candidate is the blur.
    weighted = _residuals(designs, measured, _SHIFT_WEIGHT)
    best = int(np.argmin(weighted))
    coarse_count = len(candidates)
    length, angle, _ = candidates[best]
    if length > 0:
        all_cusps = np.concatenate([photo_cusps, _anisotropic_cusps()])
        for angle_steps, length_steps in REFINEMENTS:
            # Finer motions around the best one, weighed likewise.
            length, angle, _ = candidates[best]
            finer = [(length + dl, (angle + da) % 180.0, MOTION_DEFOCUS)
                     for dl in length_steps for da in angle_steps
                     if length + dl >= 1.0 and (dl, da) != (0.0, 0.0)]
            autos = np.stack([_autocorrelation(blur_psf(*blur)) for blur in finer])
            finer_designs = design([_smoothed(all_cusps, autos)])
            candidates = candidates + finer
            designs = np.concatenate([designs, finer_designs])
            weighted = np.concatenate([weighted,
                                       _residuals(finer_designs, measured, _SHIFT_WEIGHT)])
            best = int(np.argmin(weighted))
    # How much the best improves the even-handed fit over no blur is its clarity.
    even = _residuals(designs[[0, best]], measured, _PAIRED)
    length, angle, defocus = candidates[best]
    clarity = float(even[0] / max(even[1], 1e-12))
    # How unsure the estimate is shows on the coarse grid (the finer motions all lie close to
    # the best); the plausible blurs are those of the coarse grid, their motions moved by the
    # refinement's step.
    coarse = weighted[:coarse_count]
    coarse_best = int(np.argmin(coarse))
    weights = np.exp(-PLAUSIBLE * (coarse / max(float(coarse[coarse_best]), 1e-12) - 1.0))
    kept = np.flatnonzero(weights >= 1e-3)
    total = float(weights[kept].sum())
    moved_length = length - candidates[coarse_best][0] if length > 0 else 0.0
    moved_angle = angle - candidates[coarse_best][1] if length > 0 else 0.0
    plausible = tuple(
        (float(weights[i]) / total, *_moved(candidates[i], moved_length, moved_angle))
        for i in kept)
    return BlurEstimate(length, angle, defocus, clarity, plausible)


def _moved(blur: tuple[float, float, float], length: float,
           angle: float) -> tuple[float, float, float]:
    """A candidate blur (length, angle, defocus) with its motion, if any, made ``length``
    pixels longer and turned by ``angle`` degrees (no shorter than a pixel)."""
    if blur[0] <= 0:
        return blur
    return max(1.0, blur[0] + length), (blur[1] + angle) % 180.0, blur[2]


def _transfer(psf: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The optical transfer function of ``psf`` (centred) for an image of ``shape``, in
    ``np.fft.fft2``'s layout: the small kernel's Fourier sum, as two matrix products (far
    cheaper than transforming a whole image of zeros).

    >>> psf = motion_psf(3.0, 30.0)
    >>> padded = np.zeros((16, 16)); padded[:psf.shape[0], :psf.shape[1]] = psf
    >>> padded = np.roll(padded, (-(psf.shape[0] // 2), -(psf.shape[1] // 2)), axis=(0, 1))
    >>> bool(np.allclose(_transfer(psf, (16, 16)), np.fft.fft2(padded), atol=1e-6))
    True
    """
    kh, kw = psf.shape
    ys = np.arange(kh) - kh // 2
    xs = np.arange(kw) - kw // 2
    # In single precision, as the transfer function is used (the phases made in double): the
    # second product, a whole spectrum's size, took two and a half times as long in double.
    rows = np.exp(-2j * np.pi * np.outer(np.fft.fftfreq(shape[0]), ys)).astype(np.complex64)
    cols = np.exp(-2j * np.pi * np.outer(xs, np.fft.fftfreq(shape[1]))).astype(np.complex64)
    return (rows @ psf.astype(np.complex64)) @ cols


def _roughness_power(shape: tuple[int, int]) -> np.ndarray:
    """The 5-point Laplacian's power at each frequency of an image of ``shape`` (float32,
    ``np.fft.fft2``'s layout): the sum of one term per axis, squared."""
    across = [(2.0 - 2.0 * np.cos(2 * np.pi * np.fft.fftfreq(n))).astype(np.float32)
              for n in shape]
    return np.square(across[0][:, None] + across[1][None, :])


def wiener(grey: np.ndarray, psf: np.ndarray, roughness: float = ROUGHNESS) -> np.ndarray:
    """``grey`` (float32) deconvolved with ``psf``: regularised inverse filter that weighs
    the restored picture's roughness (its Laplacian's power) by ``roughness`` (larger: less
    sharpening, less noise and ringing).  The picture is mirrored at its borders first, so that
    they do not ring.

    >>> sharp = np.zeros((40, 40), np.float32); sharp[:, 20:] = 200
    >>> psf = motion_psf(6.0, 0.0)
    >>> blurred = cv2.filter2D(sharp, -1, psf, borderType=cv2.BORDER_REFLECT_101)
    >>> def ramp(row): return int(((row > 20) & (row < 180)).sum())  # pixels of the edge's rise
    >>> ramp(blurred[20]), ramp(wiener(blurred, psf)[20])
    (4, 2)
    """
    reach = max(psf.shape) * 2
    padded = cv2.copyMakeBorder(grey, reach, reach, reach, reach, cv2.BORDER_REFLECT_101)
    h, w = padded.shape
    fh, fw = cv2.getOptimalDFTSize(h), cv2.getOptimalDFTSize(w)
    padded = cv2.copyMakeBorder(padded, 0, fh - h, 0, fw - w, cv2.BORDER_REFLECT_101)
    otf = _transfer(psf, (fh, fw))
    # Noise and ringing are rough, the letters' strokes (a few pixels wide) much less so.
    weight = otf.real * otf.real + otf.imag * otf.imag
    weight += np.float32(roughness) * _roughness_power((fh, fw))
    np.reciprocal(weight, out=weight)
    # OpenCV's transforms, in single precision as NumPy's would be on float32, take a third
    # of the time of NumPy's on a board's picture (900 pixels a side: 9 ms against 23).
    spectrum = cv2.dft(padded, flags=cv2.DFT_COMPLEX_OUTPUT).view(np.complex64)[..., 0]
    spectrum *= np.conj(otf)
    spectrum *= weight
    restored = cv2.idft(spectrum.view(np.float32).reshape(fh, fw, 2),
                        flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)
    return restored[reach : reach + grey.shape[0], reach : reach + grey.shape[1]]


def board_box(corners: np.ndarray, shape: tuple[int, ...],
              margin: float = BOX_MARGIN) -> tuple[int, int, int, int]:
    """Bounding box (x0, y0, x1, y1) of the grid's corners, widened by ``margin`` of the
    grid's side, inside an image of ``shape``.

    >>> board_box(np.array([[10, 10], [110, 10], [110, 110], [10, 110]]), (100, 200), 0.1)
    (0, 0, 120, 100)
    """
    corners = np.asarray(corners, np.float64)
    side = float(np.hypot(*(np.roll(corners, -1, axis=0) - corners).T).mean())
    pad = margin * side
    x0, y0 = np.floor(corners.min(axis=0) - pad).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0) + pad).astype(int)
    return max(0, int(x0)), max(0, int(y0)), min(shape[1], int(x1)), min(shape[0], int(y1))


@dataclass(frozen=True)
class Deblurred:
    """A photo's grey picture around the board with its blur undone."""

    grey: np.ndarray
    #: The grid's corners in ``grey``.
    corners: np.ndarray
    #: The blur undone (or measured), in ``grey``'s pixels.
    blur: BlurEstimate
    #: How far each point was smeared, in squares of the board, against the size of a letter:
    #: the blur's motion, or a defocus counted as the motion that spreads a point as far
    #: (:data:`DEFOCUS_AS_MOTION`), whichever is the longer.
    smear_squares: float
    #: Whether ``grey`` has the blur undone (else it is the photo's, the blur only measured).
    undone: bool = True


def deblurred_for_letters(
    image: np.ndarray, corners: np.ndarray, square_px: int, clear: float | None = None,
    shade: np.ndarray | None = None,
) -> Deblurred | None:
    """The photo's grey picture around the board (``corners`` of the grid) with its blur
    undone; or None when no blur shows clearly enough to be worth undoing (clarity below
    ``clear``, :data:`CLEAR` by default).  A blur too long to show at the letters' scale but
    clear at :data:`COARSER` of it is measured, not undone (``undone`` False).

    The letters are read from squares of ``square_px`` pixels: a photo whose squares are
    larger is first shrunk to that size (its blur shrinks with it, and the deconvolution's
    time stays that of a 1280x720 photo's).  ``shade``: a shadow over the board, as
    :func:`vision.light.shade_field` gives it on the straightened board (``square_px``
    squares, crop margin), lifted before the blur is measured: its soft edge, a blur of its
    own, hid the camera's (a blurred photo under an arm's shadow was taken for sharp).
    """
    corners = np.asarray(corners, np.float32)
    x0, y0, x1, y1 = board_box(corners, image.shape)
    part = image[y0:y1, x0:x1]
    if part.ndim == 3:
        part = cv2.cvtColor(part, cv2.COLOR_BGR2GRAY)
    corners = corners - np.float32([x0, y0])
    side = float(np.hypot(*(np.roll(corners, -1, axis=0) - corners).T).mean()) / 15
    if side > square_px:
        scale = square_px / side
        part = cv2.resize(part, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        # Pixel centres at integer coordinates: (x + 0.5) * scale - 0.5.
        corners = (corners + 0.5) * np.float32(scale) - 0.5
    if shade is not None:
        to_board = scaled(image_to_grid(corners), square_px, crop_margin_px(square_px))
        part = lifted(part, cv2.warpPerspective(
            shade, to_board, (part.shape[1], part.shape[0]),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE))
    part = part.astype(np.float32)
    blur = estimate_blur(part, corners)
    clear = CLEAR if clear is None else clear
    square = min(side, float(square_px))
    if blur.length > 0 and blur.clarity < clear:
        # A motion shows, but not clearly: the blur may reach beyond the shifts measured
        # (REACH pixels, a fifth of a square at 48 pixels a square), where the fit finds a
        # short motion in another direction (a real photo blurred by a fifth of a square,
        # grainy, or under a hand, was taken for sharp).  Measured again on the picture
        # shrunk by COARSER, where it lies within reach.  A blur found so is said, not
        # undone: measured from less, its length errs more, and a deconvolution too long
        # broke the strokes of a grainy photo's letters, whose faces then passed for bare.
        found = _coarser_blur(part, corners, clear)
        if found is not None:
            smear = max(found.length, DEFOCUS_AS_MOTION * found.defocus)
            return Deblurred(np.clip(part, 0, 255).astype(np.uint8), corners, found,
                             smear / square, undone=False)
    if blur.clarity < clear or (blur.length == 0 and blur.defocus < DEFOCUS_UNDONE_FROM):
        return None
    # A motion undone a little short of its estimated length: a deconvolution too long rings
    # and breaks strokes, one too short only leaves some blur.
    restored = wiener(part, blur.undoing_psf(LENGTH_UNDONE))
    smear = max(blur.length, DEFOCUS_AS_MOTION * blur.defocus)
    if LONGER_FROM <= smear / square < MOTION_WARNING:
        # What shows within reach may be part of a longer blur: measured again coarser, the
        # longer of the two is said (the letters keep the deconvolution that was fitted).
        longer = _coarser_blur(part, corners, clear)
        if longer is not None:
            smear = max(smear, longer.length, DEFOCUS_AS_MOTION * longer.defocus)
    return Deblurred(np.clip(restored, 0, 255).astype(np.uint8), corners, blur, smear / square)


def _coarser_blur(part: np.ndarray, corners: np.ndarray, clear: float) -> BlurEstimate | None:
    """The blur of ``part`` (float32 grey, the grid's ``corners`` in it) measured on it shrunk
    to :data:`COARSER`, in ``part``'s pixels: where a motion shows there clearly, else None."""
    coarse = cv2.resize(part, None, fx=COARSER, fy=COARSER, interpolation=cv2.INTER_AREA)
    coarse_corners = (corners + 0.5) * np.float32(COARSER) - 0.5
    try:
        found = estimate_blur(coarse, coarse_corners)
    except ValueError:  # a board too small for a patch once shrunk
        return None
    if found.clarity < clear or found.length <= 0:
        return None
    return found.scaled(1.0 / COARSER)
