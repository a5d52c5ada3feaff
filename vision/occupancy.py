"""Which squares hold a tile, from a rectified image of the grid.

Every square is reduced to four numbers, computed for all 225 squares at once from the middle of
the square (tiles may sit a little off their square):

- two *chromaticity* coordinates of its background (the pixels that are not ink), which do not
  change when the light gets brighter or dimmer;
- its *ink*: calibrated, the share of pixels much darker than the background (a letter on a
  tile; the printed labels of some premium squares); uncalibrated, the ink's *depth*, how much
  darker than the background the darkest pixels are, which a letter blurred by focus or motion
  keeps when few of its pixels stay dark enough to count in a share;
- its *lightness* after dividing out the illumination, a smooth field fitted across the board
  (a quadratic in the square's position plus one level per kind of surface: tiles, and the empty
  squares of each premium type).

Empty squares of one premium type (plain, DL, TL, DW, TW, centre) all look alike on a given
board, and all tiles look alike wherever they lie.  The premium layout is symmetric under
rotation and reflection, so this holds whichever way up the board is.

*Uncalibrated*, the model finds for each premium type its typical look (the most common one among
its squares), calls the squares that stray far from it tile candidates, takes their common look
as the tile face, and gives each square to the nearer of the tile face and its type's empty look.
It then decides every square again against the photo's own spread (a likelihood ratio between
the lettered tiles found, a blank face, which is a tile's face without ink, and each type's empty
squares): within one photo tiles and empty squares stray far less than the fixed scale of the
first decision allows, and a blank differs from an empty square by its colour alone.
Nothing about one edition's colours is assumed.  *Calibrated* (:meth:`OccupancyModel.fit` on
rectified images with known boards) it learns a Gaussian for each premium type's empty squares and
one for tiles, and decides by likelihood ratio.

>>> import numpy as np
>>> board = np.zeros((600, 600, 3), np.uint8)
>>> board[:] = (60, 140, 40)               # a green board
>>> board[280:320, 240:400] = (200, 225, 235)  # four cream tiles on row 7, columns 6-9
>>> for left in (255, 295, 335, 375):
...     board[290:310, left:left + 10] = 30    # a dark letter on each
>>> occupied, confidence = OccupancyModel().predict(board)
>>> np.argwhere(occupied).tolist()
[[7, 6], [7, 7], [7, 8], [7, 9]]
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from scorer.squares import PREMIUM_LAYOUT
from vision.medians import median
from vision.rectify import square_crops

SIZE = 15

#: Premium types in a fixed order; the centre has its own (on many boards it is a DW colour).
KINDS: tuple[str, ...] = (".", "DL", "TL", "DW", "TW", "*")
_KIND_INDEX = np.array([[KINDS.index(cell) for cell in row] for row in PREMIUM_LAYOUT])
_TILE = len(KINDS)  # group number of tiles in the illumination fit

FEATURES: tuple[str, ...] = ("chroma_red_green", "chroma_yellow_blue", "ink", "lightness")
#: What a difference of one means for each feature, for distances in the uncalibrated model.
_FEATURE_SCALE = np.array([0.04, 0.04, 0.12, 0.25])
#: Pixels with every channel at least this bright carry no colour: glare (or clipping).
WASHED_LEVEL = 240
#: Confidence given at most to a decision on a square washed out by glare.
WASHED_CONFIDENCE = 0.55
#: A Gaussian's covariance never gets narrower than this (per-feature standard deviation).
_MIN_SPREAD = np.array([0.01, 0.01, 0.03, 0.06])
#: Share of a square's middle pixels taken as its darkest, for the ink depth.
_DARKEST_SHARE = 0.05
#: Uncalibrated, the tiles found and each premium type's empty squares are described by their
#: median and spread (in feature scale units, never narrower than this) to decide every square
#: again; the spread is that of the photo itself, which on a clean photo is far narrower than
#: the fixed scale.
_SELF_SPREAD_FLOOR = 0.25
#: Log-likelihood a blank face must win by: a set holds two blanks among about a hundred tiles.
_BLANK_PRIOR = 4.0
#: A tile found counts as lettered when its ink depth stands this far (feature scale units,
#: or four of the empty plain squares' spreads if more) above the empty plain squares'.
_LETTERED_DEPTH = 1.5


def _features_invariant(
    rectified: np.ndarray, depth: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Chromaticity and ink per square (15, 15, 3), log grey of the background, which
    squares are washed out by glare (a quarter of their pixels nearly white), and the
    background's colour (15, 15, 3, BGR 0..255).

    The ink is its share of the square (the calibrated model's feature) or, with ``depth``,
    how much darker than the background the darkest pixels are, 0..1 (the uncalibrated one's).

    Only the middle half of each square is used: tiles stand a little off their squares in
    photos taken at an angle, and grid lines stay out.
    """
    if not isinstance(rectified, np.ndarray) or rectified.dtype != np.uint8:
        raise TypeError("rectified must be a uint8 BGR image")
    if rectified.ndim != 3 or rectified.shape[2] != 3:
        raise ValueError(f"rectified must be HxWx3 (BGR), got shape {rectified.shape}")
    side = rectified.shape[0]
    if rectified.shape[1] != side or side % SIZE or side < 4 * SIZE:
        raise ValueError(
            f"rectified must be a square image of 15 equal squares without margin, got "
            f"{rectified.shape[1]}x{rectified.shape[0]}"
        )
    square_px = side // SIZE
    low, high = square_px // 4, square_px - square_px // 4
    # Every other pixel is plenty for colour statistics and halves the work twice over.
    stride = 2 if high - low >= 12 else 1
    crops = square_crops(rectified, square_px)[:, :, low:high:stride, low:high:stride]
    pixels = crops.reshape(SIZE, SIZE, -1, 3).astype(np.float32)
    grey = pixels @ np.array([0.114, 0.587, 0.299], np.float32)
    mean_grey = grey.mean(axis=2, keepdims=True)
    # The background level: mean of the pixels brighter than average (ink is darker).
    upper = grey >= mean_grey
    background_grey = (grey * upper).sum(axis=2) / np.maximum(upper.sum(axis=2), 1)
    ink = grey < 0.65 * background_grey[..., None]
    if depth:
        # A letter blurred by motion or focus may keep few pixels below the share's threshold,
        # but its darkest pixels still stand well below the face: the depth keeps it a letter.
        at = int(_DARKEST_SHARE * grey.shape[2])
        darkest = np.partition(grey, at, axis=2)[..., at]
        ink_measure = np.clip(1.0 - darkest / np.maximum(background_grey, 1.0), 0.0, 1.0)
    else:
        ink_measure = ink.mean(axis=2)
    paper = (~ink)[..., None]
    colour = (pixels * paper).sum(axis=2) / np.maximum(paper.sum(axis=2), 1)
    blue, green, red = colour[..., 0], colour[..., 1], colour[..., 2]
    total = np.maximum(blue + green + red, 1.0)
    features = np.stack(
        [(red - green) / total, (red + green - 2 * blue) / (2 * total), ink_measure], axis=-1
    )
    log_grey = np.log(np.maximum(colour @ np.array([0.114, 0.587, 0.299], np.float32), 1.0))
    # Nearly white in every channel, on the pixels sampled already (not the whole picture).
    darkest = np.minimum(np.minimum(crops[..., 0], crops[..., 1]), crops[..., 2])
    washed = (darkest >= WASHED_LEVEL).reshape(SIZE, SIZE, -1).mean(axis=2) > 0.25
    return (features.astype(np.float64), log_grey.astype(np.float64), washed,
            colour.astype(np.float64))


_ROWS, _COLS = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64) / (SIZE - 1) - 0.5
_SHADING_TERMS = np.stack(
    [_COLS, _ROWS, _COLS**2, _COLS * _ROWS, _ROWS**2], axis=-1
).reshape(-1, 5)


def _lightness(log_grey: np.ndarray, occupied: np.ndarray, usable: np.ndarray) -> np.ndarray:
    """Log lightness with the illumination divided out.

    Fits ``log grey = shading(position) + level(surface)`` by least squares, surfaces being tiles
    and each premium type's empty squares, with one trimming pass against outliers, and returns
    ``log grey - shading`` (so the levels of the surfaces stay comparable across photos).
    Only ``usable`` squares (not washed out by glare) enter the fit.
    """
    groups = np.where(occupied, _TILE, _KIND_INDEX).ravel()
    present = np.flatnonzero(np.bincount(groups))  # the groups present, as np.unique
    indicator = (groups[:, None] == present[None, :]).astype(np.float64)
    design = np.hstack([_SHADING_TERMS, indicator])
    target = log_grey.ravel()
    keep = usable.ravel().copy()
    solution = np.zeros(design.shape[1])
    for _ in range(2):
        solution, *_ = np.linalg.lstsq(design[keep], target[keep], rcond=None)
        residual = target - design @ solution
        spread = 1.4826 * median(np.abs(residual[keep] - median(residual[keep])))
        keep = (np.abs(residual) <= max(3 * spread, 0.05)) & usable.ravel()
    shading = (_SHADING_TERMS @ solution[:5]).reshape(SIZE, SIZE)
    return log_grey - shading


# Uncalibrated, the centre counts as a DW square (one square has no typical look of its own).
_LOOK_KIND = np.where(
    _KIND_INDEX == KINDS.index("*"), KINDS.index("DW"), _KIND_INDEX
).ravel()
_LOOK_TYPES, _TYPE_OF_SQUARE = np.unique(_LOOK_KIND, return_inverse=True)
_TYPE_MEMBERS = _TYPE_OF_SQUARE[None, :] == np.arange(len(_LOOK_TYPES))[:, None]  # (types, 225)
_SAME_TYPE = _TYPE_OF_SQUARE[:, None] == _TYPE_OF_SQUARE[None, :]
_PLAIN = (_KIND_INDEX == KINDS.index(".")).ravel()
#: Squares closer than this (feature scale units) count as looking alike.
_ALIKE = 1.5


def _pairwise_close(points: np.ndarray, radius: float) -> np.ndarray:
    """Which pairs of points lie within ``radius`` of each other (boolean matrix)."""
    norms = (points**2).sum(axis=1)
    squared = norms[:, None] + norms[None, :] - 2.0 * (points @ points.T)
    return squared < radius**2


def _modes(
    scaled: np.ndarray, close: np.ndarray, allowed: np.ndarray, count: int
) -> list[np.ndarray]:
    """Up to ``count`` common looks among the ``allowed`` squares, densest first.

    Each look is the mean of the densest neighbourhood left, whose squares are then taken out;
    a look shared by fewer than two squares does not count.
    """
    left = allowed.copy()
    found = []
    while len(found) < count:
        density = (close & left[None, :]).sum(axis=1) * left
        centre = int(np.argmax(density))
        if density[centre] < 2:
            break
        members = close[centre] & left
        found.append(scaled[members].mean(axis=0))
        left &= ~members
    return found


def _type_looks(scaled: np.ndarray, close: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Each premium type's most common look among its ``allowed`` squares (inf if none)."""
    neighbours = close & _SAME_TYPE & allowed[None, :]
    density = np.where(_TYPE_MEMBERS & allowed[None, :], neighbours.sum(axis=1)[None, :], -1)
    centres = np.argmax(density, axis=1)
    members = neighbours[centres]
    counts = members.sum(axis=1, keepdims=True)
    looks = (members.astype(np.float64) @ scaled) / np.maximum(counts, 1)
    looks[density.max(axis=1) <= 0] = np.inf
    return looks


def _distance_to(scaled: np.ndarray, looks: np.ndarray) -> np.ndarray:
    """Distance of each square to its own type's look (inf where the type has none)."""
    missing = ~np.isfinite(looks[:, 0])
    typical = np.where(missing[:, None], 0.0, looks)[_TYPE_OF_SQUARE]
    distance = np.sqrt(((scaled - typical) ** 2).sum(axis=1))
    distance[missing[_TYPE_OF_SQUARE]] = np.inf
    return distance


#: More squares than any tile set has tiles (100 to 104) cannot all hold one: where the tiles
#: decided come to more, the look taken for their face is the board's own (a dark board's
#: plain squares, lightened by glare), and the decision is taken again without such looks.
#: (A first decision on colour alone may pass this on the way to a right one: it is not
#: bounded unless the last is.)
MOST_TILES = 110


def _tiles_seen(occupied: np.ndarray, seen: np.ndarray | None) -> int:
    """How many of the ``seen`` squares (None: all) ``occupied`` (either shape) takes."""
    if seen is None:
        return int(occupied.sum())
    return int((occupied.ravel() & seen.ravel()).sum())


def _plausible_tiles(occupied: np.ndarray) -> bool:
    """Whether a set of squares could be the tiles of a game.

    Play starts on the centre and its plain neighbours, and words fall on premium squares about
    as often as the board has them (a quarter of its squares): a look found almost only on plain
    squares is a shade of the plain squares, one found only on premium squares is a premium
    colour.
    """
    count = int(occupied.sum())
    plain = int((occupied & _PLAIN).sum())
    premium = count - plain
    return plain >= 1 and premium >= 1 and plain >= 0.3 * count and premium >= 0.05 * count


#: The tiles' face carries letters: the median square taken for a tile shows ink this far
#: (feature scale units) or more above the median empty plain square's.  Glare lightening a
#: dark board's squares towards the tiles' lightness let the decision with lightness swap the
#: two looks: the green squares taken for the tiles, and the tiles for the plain squares.
#: The real photos' decisions stand 2.3 to 6.4 above as taken, and 1.3 at the least in the
#: views of ``bench/eval_real_views.py`` (the photo blurred by a fifth of a square, shaken
#: further); the swapped decision 4.8 below.
_FACE_INK = 0.75


def _lettered_face(scaled: np.ndarray, occupied: np.ndarray, usable: np.ndarray) -> bool:
    """Whether the ``usable`` squares ``occupied`` (flat) show more ink, as the median goes,
    than the usable plain squares left empty: whether they can be a game's tiles, whose
    faces but the blanks' carry a letter."""
    ink = FEATURES.index("ink")
    occupied = occupied & usable
    plain_empty = ~occupied & usable & _PLAIN
    if not occupied.any() or not plain_empty.any():
        return True
    return bool(median(scaled[occupied, ink]) >= median(scaled[plain_empty, ink]) + _FACE_INK)


def _lettered(ink: np.ndarray, occupied: np.ndarray, usable: np.ndarray) -> np.ndarray:
    """Which squares (flat) show a letter's ``ink`` (in feature scale units):
    :data:`_LETTERED_DEPTH` (or four of their spreads) above the median of the ``usable``
    plain squares not ``occupied``."""
    plain_empty = ~occupied & usable & _PLAIN
    if not plain_empty.any():
        return np.ones(len(ink), bool)
    centre, spread = _median_spread(ink[plain_empty][:, None])
    return ink > centre[0] + max(4 * spread[0], _LETTERED_DEPTH)


def _capped_cost(distance: np.ndarray, cap: float) -> float:
    return float((np.minimum(distance, cap) ** 2).sum())


def _explain(
    scaled: np.ndarray, close: np.ndarray, tile_look: np.ndarray, cap: float, usable: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """Explain every square as a tile (one look for all) or as its premium type's empty look.

    Alternates assignment and means a few times from ``tile_look``; returns the capped squared
    cost, the tiles, and each square's margin (distance to the empty look minus to the tile).
    Only ``usable`` squares shape the looks and count in the cost.
    """
    to_tile = np.linalg.norm(scaled - tile_look, axis=-1)
    looks = _type_looks(scaled, close, (to_tile > cap / 2) & usable)
    to_empty = _distance_to(scaled, looks)
    occupied = to_tile < to_empty
    for _ in range(3):
        if not (occupied & usable).any():
            break
        tile_look = scaled[occupied & usable].mean(axis=0)
        to_tile = np.linalg.norm(scaled - tile_look, axis=-1)
        empty = _TYPE_MEMBERS & (~occupied & usable)[None, :]
        counts = empty.sum(axis=1, keepdims=True)
        looks = np.where(counts > 0, (empty.astype(np.float64) @ scaled) / np.maximum(counts, 1),
                         np.inf)
        to_empty = _distance_to(scaled, looks)
        occupied = to_tile < to_empty
    cost = _capped_cost(np.minimum(to_tile, to_empty)[usable], cap)
    finite = np.isfinite(looks).all(axis=1)
    if finite.any() and np.linalg.norm(looks[finite] - tile_look, axis=-1).min() < _ALIKE:
        cost = np.inf  # the tile face would be a shade of an empty square: not a tile look
    margin = np.minimum(to_empty, 1e6) - to_tile
    return cost, occupied, margin


def _median_spread(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature median and spread (scaled median absolute deviation, floored)."""
    centre = median(samples, axis=0)
    spread = 1.4826 * median(np.abs(samples - centre), axis=0)
    return centre, np.maximum(spread, _SELF_SPREAD_FLOOR)


def _diagonal_log_likelihood(
    points: np.ndarray, centre: np.ndarray, spread: np.ndarray
) -> np.ndarray:
    z = (points - centre) / spread
    return -0.5 * (z**2).sum(axis=-1) - np.log(spread).sum()


def _self_ratio(
    features: np.ndarray, occupied: np.ndarray, usable: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Log-likelihood ratios, tile over empty and blank over empty, of every square (225,)
    against what this photo's own tiles and empty squares look like (NaN where it cannot be
    told).

    The fixed feature scale is far wider than the spread within one photo.  A tile's face is
    that of the lettered tiles found; a blank shows that face with no more ink than an empty
    plain square (which, being plain, has no print either) and must be the likelier by
    :data:`_BLANK_PRIOR`.  Each premium type's empty look is that of its squares left empty; a
    type with fewer than three of them is not judged, nor is any square when there are fewer
    than three lettered tiles or empty plain squares.

    Only ``usable`` squares shape the looks, but every square is judged: ivory tiles in good
    light clip to white as glare does, and their blanks, left to the first decision, were
    taken for the board; glare on an empty square is taken for a blank at worst, which the
    reading finds without a letter and not in a word.
    """
    scaled = (features / _FEATURE_SCALE).reshape(-1, features.shape[-1])
    flat = occupied.ravel()
    usable = usable.ravel()
    ratio = np.full(len(scaled), np.nan)
    blank_ratio = ratio.copy()
    plain_empty = ~flat & usable & _PLAIN
    if plain_empty.sum() < 3:
        return ratio, blank_ratio
    plain_centre, plain_spread = _median_spread(scaled[plain_empty])
    ink = FEATURES.index("ink")
    lettered = flat & usable & _lettered(scaled[:, ink], flat, usable)
    if lettered.sum() < 3:
        return ratio, blank_ratio
    face_centre, face_spread = _median_spread(scaled[lettered])
    blank_centre, blank_spread = face_centre.copy(), face_spread.copy()
    blank_centre[ink], blank_spread[ink] = plain_centre[ink], plain_spread[ink]
    blank_score = _diagonal_log_likelihood(scaled, blank_centre, blank_spread) - _BLANK_PRIOR
    tile_score = np.maximum(_diagonal_log_likelihood(scaled, face_centre, face_spread),
                            blank_score)
    for members in _TYPE_MEMBERS:
        empty = members & ~flat & usable
        if empty.sum() >= 3:
            centre, spread = _median_spread(scaled[empty])
            empty_score = _diagonal_log_likelihood(scaled[members], centre, spread)
            ratio[members] = tile_score[members] - empty_score
            blank_ratio[members] = blank_score[members] - empty_score
    return ratio, blank_ratio


def _decide_again(
    features: np.ndarray, occupied: np.ndarray, confidence: np.ndarray, usable: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Tiles and confidence decided again by :func:`_self_ratio` where it can tell; a square
    whose decision changes takes the confidence of the ratio."""
    ratio = _self_ratio(features, occupied, usable)[0].reshape(occupied.shape)
    decided = np.isfinite(ratio)
    again = np.where(decided, ratio > 0, occupied)
    sure = 1.0 / (1.0 + np.exp(-np.abs(np.nan_to_num(ratio))))
    return again, np.where(again != occupied, sure, confidence)


#: Uncalibrated, a square is taken to be lit by glare when its colour lies this far (0..1) or
#: more from its surface's colour towards white (:func:`_glare_decided`).
_GLARE_MIN = 0.15
#: Under glare, a tile shows a letter whose depth, the glare taken off, is at least this share
#: of the lettered tiles' median depth; an empty square does not.
_GLARE_LETTER_SHARE = 0.5
#: Confidence of a decision that the glare test changed.
GLARE_CONFIDENCE = 0.75
#: Confidence at most of an empty square under glare that colour cannot tell from a tile and
#: whose ink, the glare taken off, reaches a letter's but not beyond its type's print: no more
#: than the reading's unsure level (``vision.rectified.UNSURE``), so that it is named as a
#: square that may hold a tile.
GLARE_DOUBT = 0.5
#: Confidence at most of a tile showing no letter that lies under glare if it is an empty
#: square (:func:`_glare_decided`): a blank, or the bare board; below the level from which a
#: tile is named unsure (:data:`vision.read.UNSURE_SHOWN`).
GLARE_BARE_DOUBT = 0.45
_GREY = np.array([0.114, 0.587, 0.299])


def _towards_white(colour: np.ndarray, surface: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How far each colour (N, 3, BGR 0..255) lies from its ``surface`` colour (N, 3) towards
    white (0..1), and how far off that line it lies (grey levels).

    Glare mixes the colour of what lies under it with white:
    ``colour = (1 - share) surface + share white``.

    A grey square half white is on the line; a red one as light is far off it:

    >>> share, off = _towards_white(np.array([[150.0, 150, 150], [150, 50, 50]]),
    ...                             np.array([[45.0, 45, 45], [45, 45, 45]]))
    >>> share.round(2).tolist(), off.round(1).tolist()
    ([0.5, 0.18], [0.0, 81.6])
    """
    surface = np.minimum(surface, 254.0)
    towards = 255.0 - surface
    share = ((colour - surface) * towards).sum(axis=1) / (towards**2).sum(axis=1)
    share = np.clip(share, 0.0, 1.0)
    off = np.linalg.norm(colour - surface - share[:, None] * towards, axis=1)
    return share, off


#: Glare of more than this share leaves too little of the colour and the letter to go by.
_GLARE_MAX = 0.8


def _glare_decided(
    colour: np.ndarray, shading: np.ndarray, features: np.ndarray, occupied: np.ndarray,
    confidence: np.ndarray, usable: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Tiles and confidence decided again where glare lies on the board.

    A lamp's reflection mixes the colours under it with white: on a dark board it makes the
    empty squares as light as the tiles and as grey as tiles washed out, and on a light board
    it makes the tiles as pale as the board.  Colour and lightness then speak for the wrong
    look, but each square's colour still lies on the line from its surface's colour (the
    surface's look where there is no glare, times the illumination ``shading`` fitted at the
    square, log) to white, and a tile still carries its letter, whose contrast the glare
    lowers by as much as it lightens the face.

    So a square taken for a tile whose colour lies on its type's empty look's line (glare of
    :data:`_GLARE_MIN` or more) far closer than on the tile face's, and that shows no letter
    with the glare taken off (:data:`_GLARE_LETTER_SHARE`), is empty, unless the tile face
    itself lies near the plain squares' line (grey tiles on a black board: colour cannot tell
    the two apart there); a square taken for empty that is under glare whichever it is, whose
    colour the tile face explains about as well, and that shows a letter with the glare taken
    off, is a tile.  Nothing is changed without three lettered tiles and three empty plain
    squares; an empty look is known for a type with three empty squares.
    """
    ink_index = FEATURES.index("ink")
    ink = features[..., ink_index].ravel()
    scaled_ink = ink / _FEATURE_SCALE[ink_index]
    flat = occupied.ravel()
    usable = usable.ravel()
    plain_empty = ~flat & usable & _PLAIN
    if plain_empty.sum() < 3:
        return occupied, confidence
    lettered = flat & usable & _lettered(scaled_ink, flat, usable)
    if lettered.sum() < 3:
        return occupied, confidence
    colour = colour.reshape(-1, 3)
    illumination = np.exp(shading).reshape(-1, 1)
    albedo = colour / illumination
    face = median(albedo[lettered], axis=0)
    tile_glare, tile_off = _towards_white(colour, face * illumination)
    tile_spread = max(float(median(tile_off[lettered])), 1.0)
    empty_glare = np.zeros(len(flat))
    empty_off = np.full(len(flat), np.inf)
    looks = {}
    for kind, members in enumerate(_TYPE_MEMBERS):
        empty = members & ~flat & usable
        if empty.sum() >= 3:
            looks[kind] = median(albedo[empty], axis=0)
            share, off = _towards_white(colour[members], looks[kind] * illumination[members])
            empty_glare[members], empty_off[members] = share, off
    typical = float(median(illumination))
    plain_look = looks[_TYPE_OF_SQUARE[np.flatnonzero(_PLAIN)[0]]]
    _, face_off = _towards_white((face * typical)[None, :], (plain_look * typical)[None, :])
    separable = float(face_off[0]) >= tile_spread
    # The letter's depth on a tile under glare, the glare taken off.
    background = colour @ _GREY
    unglared_ink = ink * background / np.maximum(background - 255.0 * tile_glare, 1.0)
    letter = _GLARE_LETTER_SHARE * float(median(ink[lettered]))
    to_empty = separable & flat & (empty_glare >= _GLARE_MIN) & (
        tile_off > 2 * empty_off + tile_spread) & (unglared_ink < letter)
    letter_under_glare = (
        ~flat & (np.minimum(empty_glare, tile_glare) >= _GLARE_MIN)
        & (tile_glare <= _GLARE_MAX) & (unglared_ink >= letter)
        & (tile_off <= empty_off + 4 * tile_spread)
    )
    to_tile = letter_under_glare.copy()
    # Judged further only on the types of the squares that may change (seldom any): how far
    # empty squares without glare lie from their type's look (print, noise), which a glared
    # empty square lies no farther from its line than (a tile under glare, its colour pulled
    # off the face's line by an illumination that the glare pushed up, may pass for one
    # farther), and the ink an empty square of the type shows (a premium square's label).
    for members in _TYPE_MEMBERS:
        if not (members & (to_empty | to_tile)).any():
            continue
        empty = members & ~flat & usable
        unglared = empty & (empty_glare < _GLARE_MIN)
        spread = float(median(empty_off[unglared])) if unglared.any() else 0.0
        to_empty &= ~members | (empty_off <= 1.5 * max(spread, 1.0))
        centre, ink_spread = _median_spread(scaled_ink[empty][:, None])
        to_tile &= ~members | (scaled_ink > centre[0] + 2 * ink_spread[0])
    changed = (to_empty | to_tile).reshape(occupied.shape)
    tiles = occupied ^ changed
    doubtful = _joined_to_play((letter_under_glare & ~to_tile).reshape(occupied.shape), tiles)
    # A square kept a tile that shows no letter, even with the glare taken off, and whose
    # colour its empty look under glare explains as well as the tiles' face does: only its
    # colour says tile, and glare is what makes an empty square's colour a pale face's.  A
    # blank there, or the bare board: the players' to say.  (A blank's face in plain light
    # lies on the face's colour, off the empty look's line to white; where the face itself
    # lies near that line, cream tiles on a dark board, every blank would be doubted so.)
    bare_under_glare = separable & (flat & ~lettered & ~to_empty & (empty_glare >= _GLARE_MIN)
                        & (unglared_ink < letter) & (empty_off <= tile_off + tile_spread)
                        ).reshape(occupied.shape)
    confidence = np.where(doubtful, np.minimum(confidence, GLARE_DOUBT), confidence)
    confidence = np.where(bare_under_glare, np.minimum(confidence, GLARE_BARE_DOUBT),
                          confidence)
    return tiles, np.where(changed, GLARE_CONFIDENCE, confidence)


_CENTRE = np.zeros((SIZE, SIZE), bool)
_CENTRE[SIZE // 2, SIZE // 2] = True
_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))


def _joined_to_play(doubtful: np.ndarray, tiles: np.ndarray) -> np.ndarray:
    """Those of the ``doubtful`` squares (bool 15x15) joined, through one another, to one of
    the ``tiles`` or to the centre square.

    Colour cannot tell a square under glare from a tile there, and it shows a letter's depth
    once the glare is taken off, but no more ink than its type's empty squares: neither look
    speaks for it, and the empty square that the colour margin calls sure may be a tile (a
    blurred word under a lamp, read empty with confidence 1).  A game's tiles join the centre
    square and one another, so only a patch that reaches them or the centre can hold one; a
    patch of glare apart from them is the bare board, and naming its squares would only ask
    the user to check the board where no tile can be.

    >>> doubtful = np.zeros((15, 15), bool); doubtful[7, 5:8] = doubtful[2, 2] = True
    >>> np.argwhere(_joined_to_play(doubtful, np.zeros((15, 15), bool))).tolist()
    [[7, 5], [7, 6], [7, 7]]
    """
    if not doubtful.any():
        return doubtful
    _, groups = cv2.connectedComponents(doubtful.astype(np.uint8), connectivity=4)
    reaching = doubtful & ((cv2.dilate(tiles.astype(np.uint8), _CROSS) > 0) | _CENTRE)
    return doubtful & np.isin(groups, np.unique(groups[reaching]))


class OccupancyModel:
    """Tile-or-empty for every square of a rectified grid.

    Without calibration it relies only on the premium layout and on tiles looking alike (see the
    module notes).  ``fit`` learns from rectified images whose boards are known and makes the
    decision a likelihood ratio between learnt Gaussians.
    """

    #: Uncalibrated: distance (in feature scale units) beyond which a square counts as not
    #: explained by a look at all, however far it is.
    CAP = 4.0

    def __init__(self) -> None:
        self.empty: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.tile: tuple[np.ndarray, np.ndarray] | None = None
        self.samples = 0

    @property
    def calibrated(self) -> bool:
        """Whether ``fit`` has seen tiles and empty squares."""
        return self.tile is not None and "." in self.empty

    # ----------------------------------------------------------------- features

    def features(self, rectified: np.ndarray) -> np.ndarray:
        """The (15, 15, 4) feature array of a rectified grid (see :data:`FEATURES`)."""
        return self._features_and_decision(rectified)[0]

    # ----------------------------------------------------------------- prediction

    def predict(self, rectified: np.ndarray, unseen: np.ndarray | None = None,
                face: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(occupied bool[15, 15], confidence float[15, 15])`` for a rectified grid.

        ``rectified`` is BGR, 15 squares a side, without margin (any square size from 4 px;
        40 px is plenty).  Confidence is the probability of the decision taken, 0.5..1.
        ``unseen`` (bool[15, 15]) are squares something covers (a hand): like squares washed
        out by glare, they take no part in finding the looks and the light.  ``face``
        (bool[15, 15], uncalibrated only): squares known to show a tile's face (their letters
        say so), whose look is tried for the face's before any other.
        """
        return self._features_and_decision(rectified, unseen, face)[1]

    def _features_and_decision(
        self, rectified: np.ndarray, unseen: np.ndarray | None = None,
        face: np.ndarray | None = None,
    ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        # First decide on the light-independent features, which is enough to fit the
        # illumination; then decide again with the lightness added.
        invariant, log_grey, washed, colour = _features_invariant(
            rectified, depth=not self.calibrated
        )
        # A hand over a fifth of the board, taken for the tiles' face, made real tiles far
        # from it look empty.
        usable = ~washed if unseen is None else ~washed & ~unseen
        if self.calibrated:
            occupied, _ = self._decide_calibrated(invariant)
            lightness = _lightness(log_grey, occupied, usable)
            full = np.concatenate([invariant, lightness[..., None]], axis=-1)
            occupied, confidence = self._decide_calibrated(full)
        else:
            # Squares under a hand count for neither look, nor as tiles seen: a hand over a
            # full board leaves the tiles in sight fewer than any set has, with the skin
            # (like a wooden face) given to the face's look.
            seen = None if unseen is None else ~unseen
            full, occupied, confidence = self._decided_uncalibrated(
                invariant, log_grey, colour, usable, seen=seen, face=face)
            if _tiles_seen(occupied, seen) > MOST_TILES:
                # More tiles than any set has: the look taken for the tiles' face is the
                # board's own (a dark board's plain squares under a lamp), and the tiles are
                # among the squares left out.  Looks found on so many are not tried again.
                full, occupied, confidence = self._decided_uncalibrated(
                    invariant, log_grey, colour, usable, MOST_TILES, seen, face)
        # Glare leaves neither colour nor letter to go by: say so rather than guess boldly.
        confidence = np.where(washed, np.minimum(confidence, WASHED_CONFIDENCE), confidence)
        return full, (occupied, confidence)

    def _decided_uncalibrated(
        self, invariant: np.ndarray, log_grey: np.ndarray, colour: np.ndarray,
        usable: np.ndarray, most_tiles: int | None = None, seen: np.ndarray | None = None,
        face: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Features with the lightness, tiles and confidence, without calibration: decided on
        the light-independent features first, then again with the lightness they let fit,
        looks found on more than ``most_tiles`` of the ``seen`` squares (None: all) never
        taken for the tiles' face; the ``face`` squares' look (where given) is the face's."""
        known_face = None
        if face is not None and (face & usable).sum() >= 2:
            known_face = (invariant[face & usable] / _FEATURE_SCALE[: invariant.shape[-1]]
                          ).mean(axis=0)
        occupied, first_confidence, tile_look, bare = self._decide_uncalibrated(
            invariant, usable, known_face, most_tiles=most_tiles, seen=seen)
        if bare.any():
            # Every look found for the tiles' face was that of squares showing no letter
            # (a dark board's squares under a lamp, as pale as the tiles): found again without
            # those squares, as squares washed out are left out, where that finds a face
            # with letters.
            without = usable & ~bare.reshape(usable.shape)
            again = self._decide_uncalibrated(invariant, without, known_face,
                                              most_tiles=most_tiles, seen=seen)
            if again[2] is not None and not again[3].any():
                occupied, first_confidence, tile_look, _ = again
                usable = without
        lightness = _lightness(log_grey, occupied, usable)
        full = np.concatenate([invariant, lightness[..., None]], axis=-1)
        if tile_look is not None:
            # The tile face was found already: only its lightness is new.
            tile_lightness = lightness[occupied & usable].mean() / _FEATURE_SCALE[3]
            tile_look = np.append(tile_look, tile_lightness)
        found, confidence, _, _ = self._decide_uncalibrated(full, usable, tile_look, most_tiles,
                                                            seen)
        if found.any() or tile_look is None:
            occupied = found
        else:
            # The tiles found first, lightness added, no longer beat "no tiles at all":
            # their mean look mixed the faces with squares of a premium colour near them
            # (wooden tiles on a green board with pink DW squares, many of them covered).
            # What the photo's own lettered tiles look like decides again below.
            confidence = first_confidence
        occupied, confidence = _decide_again(full, occupied, confidence, usable)
        occupied, confidence = _glare_decided(
            colour, log_grey - lightness, full, occupied, confidence, usable
        )
        return full, occupied, confidence

    def _decide_calibrated(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        dims = features.shape[-1]
        flat = features.reshape(-1, dims)
        assert self.tile is not None
        tile_score = _log_likelihood(flat, *_marginal(self.tile, dims))
        kinds = _KIND_INDEX.ravel()
        empty_score = np.empty(len(flat))
        for index, kind in enumerate(KINDS):
            members = kinds == index
            gaussian = self.empty.get(kind) or self.empty.get("DW" if kind == "*" else ".")
            assert gaussian is not None
            empty_score[members] = _log_likelihood(flat[members], *_marginal(gaussian, dims))
        ratio = np.clip(tile_score - empty_score, -50, 50).reshape(SIZE, SIZE)
        occupied = ratio > 0
        confidence = 1.0 / (1.0 + np.exp(-np.abs(ratio)))
        return occupied, confidence

    def _decide_uncalibrated(
        self, features: np.ndarray, usable: np.ndarray, tile_look: np.ndarray | None = None,
        most_tiles: int | None = None, seen: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
        """Tiles, confidence, the tile face's look (scaled; None if no tiles were seen), and
        where no look of lettered squares (:func:`_lettered_face`) explains the photo, those
        of the tiles taken that show no letter (flat; else none).

        A look of lettered squares is taken before a likelier one of squares without letters;
        with ``tile_look`` given, a decision on squares without letters is none at all (the
        looks, found again from it, swapped the tiles and the board).

        Only ``usable`` squares (not washed out) shape the looks; the others are given to the
        nearer look.  With ``tile_look`` given, only that face is tried against "no tiles".
        A face found on more than ``most_tiles`` of the ``seen`` squares is not taken.
        """
        dims = features.shape[-1]
        scaled = (features / _FEATURE_SCALE[:dims]).reshape(-1, dims)
        close = _pairwise_close(scaled, _ALIKE)
        everything = usable.ravel()
        # No tiles at all: every square is explained by its type's typical look.
        looks = _type_looks(scaled, close, everything)
        distance = _distance_to(scaled, looks)
        best_cost = _capped_cost(distance[everything], self.CAP)
        no_tiles = np.zeros(len(scaled), bool), distance, None
        best = no_tiles
        lettered_cost = best_cost
        if tile_look is not None:
            candidates = [tile_look]
        else:
            # How far each type's own squares spread (light, print) around its look.
            spread = np.array(
                [median(distance[members & everything]) if (members & everything).any()
                 else 0.0 for members in _TYPE_MEMBERS]
            )[_TYPE_OF_SQUARE]
            stray = (distance > np.maximum(2.0, 3 * 1.4826 * spread)) & everything
            # Candidate tile faces: looks common among the squares that stray from their
            # type's typical look, then the board's common looks (a type may be mostly covered).
            candidates = _modes(scaled, close, stray, 3) + _modes(scaled, close, everything, 2)
            # The same look found twice is tried once.
            kept: list[np.ndarray] = []
            for candidate in candidates:
                if all(np.linalg.norm(candidate - other) >= _ALIKE for other in kept):
                    kept.append(candidate)
            candidates = kept
        lettered_best = best
        for candidate in candidates:
            cost, occupied, margin = _explain(scaled, close, candidate, self.CAP, everything)
            if not (_plausible_tiles(occupied & everything)
                    and (most_tiles is None or _tiles_seen(occupied, seen) <= most_tiles)):
                continue
            decision = occupied, margin, scaled[occupied & everything].mean(axis=0)
            if cost < best_cost - self.CAP**2:
                best_cost, best = cost, decision
            if (_lettered_face(scaled, occupied, everything)
                    and cost < lettered_cost - self.CAP**2):
                lettered_cost, lettered_best = cost, decision
        bare = np.zeros(len(scaled), bool)
        if lettered_best[2] is not None:
            best = lettered_best
        elif best[2] is not None:
            # Most squares of the likeliest look show no letter: squares of the board that
            # look like the face (glare on a dark board) are among them.
            ink = scaled[:, FEATURES.index("ink")]
            bare = best[0] & everything & ~_lettered(ink, best[0], everything)
            if tile_look is not None:
                # The face's look given led, as the looks were found again, to squares
                # without letters: the tiles and a dark board's squares under a lamp swapped.
                best, bare = no_tiles, np.zeros(len(scaled), bool)
        occupied, margin, face = best
        confidence = 1.0 / (1.0 + np.exp(-2.0 * np.abs(margin)))
        return occupied.reshape(SIZE, SIZE), confidence.reshape(SIZE, SIZE), face, bare

    # ----------------------------------------------------------------- calibration

    def fit(
        self, rectified_images: Sequence[np.ndarray], boards: Sequence[Sequence[str]]
    ) -> OccupancyModel:
        """Learn from rectified images whose boards are known; returns ``self``.

        ``boards[i]`` is 15 strings of 15 characters for ``rectified_images[i]`` in the same
        orientation, ``'.'`` for an empty square and anything else for a tile.
        """
        if len(rectified_images) != len(boards):
            raise ValueError(
                f"{len(rectified_images)} images but {len(boards)} boards: need one board each"
            )
        samples: list[np.ndarray] = []
        labels: list[np.ndarray] = []
        kinds_seen: list[np.ndarray] = []
        for number, (image, board) in enumerate(zip(rectified_images, boards, strict=True)):
            occupied = _parse_board(board, number)
            invariant, log_grey, washed, _ = _features_invariant(image)
            lightness = _lightness(log_grey, occupied, ~washed)
            features = np.concatenate([invariant, lightness[..., None]], axis=-1)
            # Squares washed out by glare teach nothing about either look.
            samples.append(features[~washed])
            labels.append(occupied[~washed])
            kinds_seen.append(_KIND_INDEX[~washed])
        if not samples:
            raise ValueError("fit needs at least one image")
        features = np.concatenate(samples).reshape(-1, len(FEATURES))
        occupied = np.concatenate(labels)
        kinds = np.concatenate(kinds_seen)
        self.empty = {}
        for index, kind in enumerate(KINDS):
            members = (~occupied) & (kinds == index)
            if members.sum() >= 2:
                self.empty[kind] = _gaussian(features[members])
        self.tile = _gaussian(features[occupied]) if occupied.sum() >= 2 else None
        self.samples = len(samples)
        return self

    def to_dict(self) -> dict:
        """A JSON-able description of what was learnt (see :meth:`from_dict`)."""
        def pack(gaussian: tuple[np.ndarray, np.ndarray]) -> dict:
            mean, covariance = gaussian
            return {"mean": mean.tolist(), "covariance": covariance.tolist()}

        return {
            "version": 1,
            "features": list(FEATURES),
            "samples": self.samples,
            "empty": {kind: pack(g) for kind, g in self.empty.items()},
            "tile": None if self.tile is None else pack(self.tile),
        }

    @classmethod
    def from_dict(cls, data: dict) -> OccupancyModel:
        """Rebuild a model saved with :meth:`to_dict`.

        >>> OccupancyModel.from_dict(OccupancyModel().to_dict()).calibrated
        False
        """
        if data.get("version") != 1 or list(data.get("features", [])) != list(FEATURES):
            raise ValueError(
                f"unsupported occupancy model data: version {data.get('version')!r}, "
                f"features {data.get('features')!r} (expected version 1, {list(FEATURES)})"
            )

        def unpack(entry: dict, name: str) -> tuple[np.ndarray, np.ndarray]:
            mean = np.asarray(entry["mean"], np.float64)
            covariance = np.asarray(entry["covariance"], np.float64)
            if mean.shape != (len(FEATURES),) or covariance.shape != (len(FEATURES),) * 2:
                raise ValueError(f"occupancy model entry {name!r} has the wrong shape")
            return mean, covariance

        model = cls()
        model.samples = int(data.get("samples", 0))
        model.empty = {kind: unpack(entry, kind) for kind, entry in data["empty"].items()}
        unknown = set(model.empty) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown premium types in occupancy model data: {sorted(unknown)}")
        model.tile = None if data.get("tile") is None else unpack(data["tile"], "tile")
        return model


def _parse_board(board: Sequence[str], number: int) -> np.ndarray:
    rows = list(board)
    if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
        shape = [len(row) for row in rows]
        raise ValueError(
            f"board {number} must be 15 rows of 15 characters, got row lengths {shape}"
        )
    return np.array([[cell != "." for cell in row] for row in rows])


def _gaussian(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = samples.mean(axis=0)
    centred = samples - mean
    covariance = centred.T @ centred / max(len(samples) - 1, 1)
    # Shrink towards a floor so that a handful of samples still gives a usable spread.
    weight = len(samples) / (len(samples) + 10.0)
    floor = np.diag(_MIN_SPREAD**2)
    covariance = weight * covariance + (1 - weight) * np.diag(np.diag(covariance)) + floor
    return mean, covariance


def _marginal(
    gaussian: tuple[np.ndarray, np.ndarray], dims: int
) -> tuple[np.ndarray, np.ndarray]:
    mean, covariance = gaussian
    return mean[:dims], covariance[:dims, :dims]


def _log_likelihood(points: np.ndarray, mean: np.ndarray, covariance: np.ndarray) -> np.ndarray:
    inverse = np.linalg.inv(covariance)
    _, log_det = np.linalg.slogdet(covariance)
    centred = points - mean
    return -0.5 * (np.einsum("ni,ij,nj->n", centred, inverse, centred) + log_det)


def square_change(prev_rectified: np.ndarray, rectified: np.ndarray) -> np.ndarray:
    """Mean absolute difference per square between two rectified grids, float32 (15, 15).

    Grey levels 0..255 averaged over each square's pixels and channels; the images must have the
    same shape (15 squares a side, no margin).

    >>> import numpy as np
    >>> a = np.zeros((150, 150, 3), np.uint8)
    >>> b = a.copy()
    >>> b[0:10, 140:150] = 200
    >>> change = square_change(a, b)
    >>> float(change[0, 14]), float(change.sum())
    (200.0, 200.0)
    """
    if prev_rectified.shape != rectified.shape:
        raise ValueError(
            f"images differ in shape: {prev_rectified.shape} and {rectified.shape}"
        )
    if rectified.shape[0] % SIZE or rectified.shape[0] != rectified.shape[1]:
        raise ValueError(f"not a rectified grid of 15 squares a side: shape {rectified.shape}")
    difference = cv2.absdiff(prev_rectified, rectified)
    if difference.ndim == 3:
        difference = difference.reshape(difference.shape[0], difference.shape[1], -1)
    # Area resampling onto 15x15 is the exact block mean when the side divides by 15.
    means = cv2.resize(difference, (SIZE, SIZE), interpolation=cv2.INTER_AREA).astype(np.float32)
    return means.mean(axis=2) if means.ndim == 3 else means
