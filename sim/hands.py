"""Hands and arms pasted into a photo of a board: a player still placing, or a finger resting on
a tile, in any photo (rendered or real) whose grid corners are known.

:func:`paste_hand` draws with :mod:`sim.render`'s hand (a height field of rounded limbs: shaded
fingers, palm and forearm, a sleeve sometimes, a soft shadow cast on the board away from the
lamp), posed so that it comes in from an edge of the picture and covers about the asked
fraction of the playing grid, then makes it look taken by the same camera: its skin tone
follows the photo's exposure and colour cast, it gets the photo's grain and a JPEG pass.

Skin tones run from light to dark (the renderer's five, each varied a little); the lamp's side,
and so the shadow's, is drawn from ``rng`` as well.  The same ``rng`` state gives the same hand.

>>> import numpy as np
>>> photo = np.full((240, 320, 3), 120, np.uint8)
>>> corners = [(60, 20), (260, 20), (260, 220), (60, 220)]
>>> image, mask = paste_hand(photo, corners, 0.25, np.random.default_rng(1))
>>> image.shape == photo.shape, mask.dtype.name
(True, 'bool')
>>> 0.18 < board_cover(mask, corners) < 0.32
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from sim.render import _SKINS, _SLEEVES, HandPose, RenderConfig, _draw_hand, _square_px

#: The playing grid's corners in grid units (column, row), in the order the corners are given.
_GRID = np.array([[0, 0], [15, 0], [15, 15], [0, 15]], np.float64)
#: How close to the asked cover a hand is posed (fraction of the grid's area).
_COVER_TOLERANCE = 0.01
#: Size of the picture the pose is searched in (its longer side, pixels): cover is a ratio.
_SEARCH_SIDE = 320


def grid_homography(grid_corners: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
    """Grid units (x = column, y = row, 0..15) to image pixels, from the grid's corners
    (top-left, top-right, bottom-right, bottom-left of the board)."""
    corners = np.asarray(grid_corners, np.float64).reshape(4, 2)
    return cv2.getPerspectiveTransform(_GRID.astype(np.float32), corners.astype(np.float32))


def grid_mask(shape: tuple[int, ...], grid_corners: np.ndarray | Sequence[Sequence[float]]
              ) -> np.ndarray:
    """The pixels inside the playing grid, as a boolean image of ``shape[:2]``."""
    mask = np.zeros(shape[:2], np.uint8)
    corners = np.asarray(grid_corners, np.float64).reshape(4, 2)
    cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 1)
    return mask.astype(bool)


def board_cover(mask: np.ndarray, grid_corners: np.ndarray | Sequence[Sequence[float]]) -> float:
    """The fraction of the playing grid's pixels that ``mask`` covers."""
    inside = grid_mask(mask.shape, grid_corners)
    return float((mask.astype(bool) & inside).sum()) / max(1, int(inside.sum()))


def paste_hand(photo: np.ndarray, grid_corners: np.ndarray | Sequence[Sequence[float]],
               cover: float, rng: np.random.Generator | int | None,
               finger_on_tile: bool = False, *,
               square: tuple[int, int] | None = None, moving: float = 0.0,
               textured: bool = False, look: np.random.Generator | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """``photo`` with a hand and arm over the board, and the mask of the pixels it covers.

    ``grid_corners`` are the playing grid's corners in the photo (top-left, top-right,
    bottom-right, bottom-left of the board).  The hand reaches in from an edge of the picture
    and covers about ``cover`` (0.1..0.4 is a player placing a tile) of the grid's area.

    ``finger_on_tile``: instead, a hand resting beside the board with one finger on a tile near
    its edge (``square``, row and column 0..14, when given; else a square one or two from a
    random edge); ``cover`` is then ignored.  The shadow falls close (the hand rests on the
    board).  The mask is boolean, True where the hand or its sleeve is.

    ``textured``: the skin with a real hand's unevenness (blotches, knuckle creases, a shine
    where it faces the lamp) rather than one smooth shade.  ``moving``: the hand caught moving
    while the shutter was open, smeared this many squares of the board along a random
    direction: the board shows through it where it passed only part of the exposure, as a
    real hand reaching in does (the mask is then where it covered at least half the time).
    Neither draws from ``rng`` unless asked for, so a hand without them stays the same;
    ``look``, when given, draws them instead (the same hand, pose and shadow, as without).
    """
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    height, width = photo.shape[:2]
    corners = np.asarray(grid_corners, np.float64).reshape(4, 2)
    grid_h = grid_homography(corners)
    config = RenderConfig(size=(width, height), light_azimuth=float(rng.uniform(0.0, 360.0)),
                          scene_seed=int(rng.integers(0, 2**31 - 1)))
    skin = _skin_tone(photo, corners, rng)
    sleeve = None if rng.random() < 0.45 else _SLEEVES[int(rng.integers(1, len(_SLEEVES)))]
    if finger_on_tile:
        pose = _finger_pose(grid_h, rng, square)
        pose = replace(pose, skin=skin, sleeve=sleeve)
        lift = float(rng.uniform(0.06, 0.12))
    else:
        if not 0.0 < cover < 0.9:
            raise ValueError(f"cover {cover} is outside 0..0.9")
        pose = _covering_pose(corners, grid_h, (width, height), cover, rng, skin, sleeve)
        lift = float(rng.uniform(0.3, 0.45))
    out = photo.copy()
    mask = _draw_hand(out, pose, config, None, grid_h, lift=lift)
    look = rng if look is None else look
    if textured:
        out = _uneven_skin(out, mask, look, _square_side(corners))
    if moving > 0:
        out, mask = _smeared(out, photo, mask, moving * _square_side(corners),
                             float(look.uniform(0.0, 180.0)))
    out = _as_photographed(out, photo, rng)
    return out, mask > 0


def _square_side(corners: np.ndarray) -> float:
    """A square's side in pixels, from the grid's corners."""
    return float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).mean()) / 15


def _uneven_skin(drawn: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
                 square: float) -> np.ndarray:
    """``drawn`` with the hand's skin made uneven: blotches a square or so across (±6 %),
    fine creases and pores (±2 %), and a shine of up to a fifth of the way to white on the
    parts lit most."""
    inside = mask > 0
    if not inside.any():
        return drawn
    height, width = mask.shape
    coarse = rng.normal(0.0, 1.0, (max(2, int(height / square) + 2),
                                   max(2, int(width / square) + 2))).astype(np.float32)
    blotches = cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC)
    fine = cv2.GaussianBlur(rng.normal(0.0, 1.0, (height, width)).astype(np.float32),
                            (0, 0), max(0.6, square / 30))
    fine /= max(float(fine.std()), 1e-6)
    factor = 1.0 + 0.06 * blotches + 0.02 * fine
    out = drawn.astype(np.float32)
    grey = out.mean(axis=2)
    lit = grey >= np.percentile(grey[inside], 93)
    shine = np.where(inside & lit, 0.2 * float(rng.uniform(0.3, 1.0)), 0.0).astype(np.float32)
    shine = cv2.GaussianBlur(shine, (0, 0), max(1.0, square / 10))
    out[inside] *= factor[inside][:, None]
    out += shine[..., None] * (255.0 - out)
    return np.clip(out, 0, 255).astype(np.uint8)


def _smeared(drawn: np.ndarray, photo: np.ndarray, mask: np.ndarray, length: float,
             angle: float) -> tuple[np.ndarray, np.ndarray]:
    """The hand in ``drawn`` (where ``mask``) smeared ``length`` pixels along ``angle``
    (degrees) over the board as ``photo`` shows it (its shadow left where it fell): each pixel
    mixes the hand and the board by the share of the exposure the hand covered it.  And the
    mask where the hand covered it at least half the time."""
    reach = int(math.ceil(length / 2)) + 1
    kernel = np.zeros((2 * reach + 1, 2 * reach + 1), np.float32)
    dx = length / 2 * math.cos(math.radians(angle))
    dy = length / 2 * math.sin(math.radians(angle))
    cv2.line(kernel, (round(reach - dx), round(reach - dy)), (round(reach + dx), round(reach + dy)),
             1.0, 1, cv2.LINE_AA)
    kernel /= kernel.sum()
    alpha = (mask > 0).astype(np.float32)
    behind = drawn.copy()
    behind[mask > 0] = photo[mask > 0]
    covered = cv2.filter2D(alpha, -1, kernel, borderType=cv2.BORDER_REPLICATE)
    hand = cv2.filter2D(drawn.astype(np.float32) * alpha[..., None], -1, kernel,
                        borderType=cv2.BORDER_REPLICATE)
    out = behind.astype(np.float32) * (1.0 - covered[..., None]) + hand
    return np.clip(out, 0, 255).astype(np.uint8), (covered >= 0.5).astype(np.uint8)


# ------------------------------------------------------------------------------- posing


def _skin_tone(photo: np.ndarray, corners: np.ndarray, rng: np.random.Generator
               ) -> tuple[int, int, int]:
    """One of the renderer's skin tones, varied a little, under the photo's light: as bright as
    its exposure makes the board's lightest things (the tiles), with half its colour cast."""
    base = np.array(_SKINS[int(rng.integers(0, len(_SKINS)))], np.float64)
    base *= rng.uniform(0.93, 1.07, 3)
    inside = grid_mask(photo.shape, corners)
    pixels = photo[inside].astype(np.float64) if inside.any() else photo.reshape(-1, 3)
    grey = pixels.mean(axis=1)
    bright = pixels[grey >= np.percentile(grey, 95)].mean(axis=0)
    exposure = float(np.clip(bright.mean() / 215.0, 0.6, 1.15))
    cast = bright / max(bright.mean(), 1.0)
    base *= exposure * (1.0 + 0.5 * (cast - 1.0))
    return tuple(int(v) for v in np.clip(base, 10, 250))  # type: ignore[return-value]


def _image_point(grid_h: np.ndarray, x: float, y: float) -> np.ndarray:
    return cv2.perspectiveTransform(np.array([[[x, y]]], np.float64), grid_h).reshape(2)


def _covering_pose(corners: np.ndarray, grid_h: np.ndarray, size: tuple[int, int], cover: float,
                   rng: np.random.Generator, skin: tuple[int, int, int],
                   sleeve: tuple[int, int, int] | None) -> HandPose:
    """A hand from an edge of the picture toward a point of the board, pushed in along that
    line (and, if it must, made larger: nearer the camera) until it covers ``cover``."""
    width, height = size
    edge = int(rng.choice([0, 0, 1, 2, 3]))  # 0: bottom, 1: right, 2: top, 3: left
    t = rng.uniform(0.3, 0.7)
    start = np.array([(t * width, height * 1.2), (width * 1.2, t * height),
                      (t * width, -0.2 * height), (-0.2 * width, t * height)][edge])
    aim = _image_point(grid_h, *rng.uniform(4.0, 11.0, 2))
    direction = (aim - start) / (np.linalg.norm(aim - start) + 1e-9)
    enter, leave = _crossing(corners, start, direction)
    angle = math.degrees(math.atan2(direction[1], direction[0])) + float(rng.normal(0, 6))
    pose = HandPose(tip=(float(enter[0]), float(enter[1])), angle=angle,
                    size=_square_px(grid_h) * float(rng.uniform(4.0, 5.0)), skin=skin,
                    sleeve=sleeve, curl=float(rng.uniform(0.2, 0.9)))

    # The search runs on a small picture: a cover is a ratio of areas.
    scale = _SEARCH_SIDE / max(width, height)
    small = (max(8, round(width * scale)), max(8, round(height * scale)))
    small_corners = corners * scale
    small_h = grid_homography(small_corners)
    small_config = RenderConfig(size=small)
    inside = grid_mask((small[1], small[0]), small_corners)
    area = max(1, int(inside.sum()))

    def posed(depth: float, grow: float) -> HandPose:
        tip = enter + depth * (leave - enter)
        return replace(pose, tip=(float(tip[0]), float(tip[1])), size=pose.size * grow)

    def covered(candidate: HandPose) -> float:
        canvas = np.zeros((small[1], small[0], 3), np.uint8)
        shrunk = replace(candidate, tip=(candidate.tip[0] * scale, candidate.tip[1] * scale),
                         size=candidate.size * scale)
        mask = _draw_hand(canvas, shrunk, small_config, None, small_h) > 0
        return float((mask & inside).sum()) / area

    grow = 1.0
    for _ in range(8):
        if covered(posed(1.0, grow)) >= cover:
            break
        grow *= 1.2
    if covered(posed(0.0, grow)) > cover:  # even at the edge too much: a smaller hand
        while grow > 0.3 and covered(posed(0.0, grow)) > cover:
            grow /= 1.2
    lo, hi = 0.0, 1.0
    for _ in range(14):
        mid = (lo + hi) / 2.0
        got = covered(posed(mid, grow))
        if abs(got - cover) <= _COVER_TOLERANCE:
            lo = hi = mid
            break
        if got < cover:
            lo = mid
        else:
            hi = mid
    return posed((lo + hi) / 2.0, grow)


def _crossing(corners: np.ndarray, start: np.ndarray, direction: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Where the ray from ``start`` along ``direction`` enters and leaves the grid's outline
    (its nearest and farthest crossing; ``start`` itself when it misses)."""
    hits: list[float] = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        edge = b - a
        denom = direction[0] * edge[1] - direction[1] * edge[0]
        if abs(denom) < 1e-9:
            continue
        diff = a - start
        along = (diff[0] * edge[1] - diff[1] * edge[0]) / denom
        where = (diff[0] * direction[1] - diff[1] * direction[0]) / denom
        if along > 0 and 0.0 <= where <= 1.0:
            hits.append(float(along))
    if not hits:
        return start.copy(), start.copy()
    return start + min(hits) * direction, start + max(hits) * direction


def _finger_pose(grid_h: np.ndarray, rng: np.random.Generator,
                 square: tuple[int, int] | None) -> HandPose:
    """A hand beside the board, coming in across the edge nearest ``square``, its index finger
    stretched onto that square's tile and the other fingers curled."""
    if square is None:
        side = int(rng.integers(0, 4))
        along, depth = int(rng.integers(2, 13)), int(rng.integers(0, 2))
        square = [(depth, along), (along, 14 - depth), (14 - depth, along), (along, depth)][side]
    row, col = square
    # Outward, in grid units, across the nearest edge (top, right, bottom, left).
    distances = [row, 14 - col, 14 - row, col]
    outward = [(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)][int(np.argmin(distances))]
    centre = np.array([col + 0.5, row + 0.5])
    tilt = rng.normal(0.0, 0.25)
    away = centre + 12.0 * np.array([outward[0] + tilt * outward[1],
                                     outward[1] + tilt * outward[0]])
    target = _image_point(grid_h, *centre)
    start = _image_point(grid_h, *away)
    direction = (target - start) / (np.linalg.norm(target - start) + 1e-9)
    # The fingertip a little past the tile's middle: the finger's pad rests on the tile.
    tip = target + direction * 0.25 * _square_px(grid_h)
    return HandPose(tip=(float(tip[0]), float(tip[1])),
                    angle=math.degrees(math.atan2(direction[1], direction[0])),
                    size=_square_px(grid_h) * float(rng.uniform(3.6, 4.6)),
                    curl=float(rng.uniform(0.8, 1.0)))


# ------------------------------------------------------------------------------- camera


def _as_photographed(drawn: np.ndarray, photo: np.ndarray, rng: np.random.Generator
                     ) -> np.ndarray:
    """What changed visibly, given the photo's grain and a JPEG pass (only there: the rest of
    the photo stays as it was, but for the faint edge of the shadow)."""
    changed = np.abs(drawn.astype(np.int16) - photo.astype(np.int16)).max(axis=2) > 2
    if not changed.any():
        return drawn
    sigma = _grain(photo)
    noisy = drawn.astype(np.float32)
    noisy[changed] += rng.normal(0.0, sigma, (int(changed.sum()), 3)).astype(np.float32)
    noisy = np.clip(noisy, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(82, 95))])
    if ok:
        noisy = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    near = cv2.dilate(changed.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    out = photo.copy()
    out[near] = noisy[near]
    return out


def _grain(photo: np.ndarray) -> float:
    """The photo's sensor grain (grey levels): the median absolute Laplacian, scaled."""
    grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY).astype(np.float32)
    lap = cv2.Laplacian(grey, cv2.CV_32F)
    return float(np.clip(np.median(np.abs(lap)) / 2.0, 0.5, 6.0))
