"""Realistic camera photos of a board position, for tests and the demo.

One file, about 1,700 lines, on purpose: the board, the camera, the light and the hands are
drawn in one scene's coordinates from one :class:`RenderConfig`, which every stage reads.

The renderer builds the scene the way a camera sees it: a flat board (frame, grid lines,
premium squares in the colours of an :mod:`edition <sim.editions>`) with tiles standing a
little above it, lying on a table among a rack, a bag and loose tiles; a pinhole camera tilted
and rolled over it; then a lamp (gradient, vignette, soft shadows, glare), a hand, a lens with
barrel distortion, defocus or motion blur, sensor noise and JPEG compression.

Two stages keep video frames cheap.  :func:`render_flat` draws the board and its tiles once, seen
from straight above (:class:`FlatBoard`, cached by position, edition and seed; the edition's
print and the clutter are cached apart, so a new tile costs little); :func:`render_frame`
projects a flat board through a camera and adds the photographic effects: about 60 ms of CPU
for 1280x720 with a new camera, about 25 ms for another frame from the same camera, whose
projected scene is cached.  :func:`render_board` does both; :func:`animate_move` yields the
frames of a hand laying a move tile by tile; :func:`grid_corners` tells where a camera puts
the grid without rendering.

Rows are 15 strings of 15 characters: ``"."`` an empty square, an upper-case letter a tile, a
lower-case letter a blank standing for that letter (drawn as a tile without a face).

>>> rows = ["." * 15] * 7 + ["...HELLO......."] + ["." * 15] * 7
>>> photo = render_board(rows, edition="green", seed=1, config=RenderConfig(size=(640, 360)))
>>> photo.image.shape, photo.image.dtype, photo.corners.shape
((360, 640, 3), dtype('uint8'), (4, 2))

Fonts: the tile faces use the DejaVu fonts shipped in ``sim/data`` (Bitstream Vera licence,
``sim/data/DejaVu-LICENSE.txt``), rasterised with Pillow.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import cache, lru_cache
from pathlib import Path

import cv2
import numpy as np

from scorer.squares import PREMIUM_LAYOUT, SIZE
from scorer.tiles import TileSet, is_blank
from sim.editions import Edition
from sim.editions import edition as find_edition

DATA_DIR = Path(__file__).resolve().parent / "data"

#: Tile-face fonts by the name a :class:`RenderConfig` gives them.
FONTS: dict[str, str] = {
    "sans": "DejaVuSans-Bold.ttf",
    "serif": "DejaVuSerif-Bold.ttf",
    "condensed": "DejaVuSansCondensed-Bold.ttf",
}
TILE_STYLES = ("ivory", "wood")
TABLES = ("wood", "carpet", "cloth", "plain")

#: How far the clutter area reaches beyond the board's frame, in squares.
_CLUTTER_MARGIN = 5.0
#: Board (cardboard) thickness, in squares; tiles stand on top of it.
_BOARD_THICKNESS = 0.12
#: Supersampling of the printed board, for anti-aliased lines and labels.
_SUPERSAMPLE = 2

BGR = tuple[int, int, int]


class RenderError(ValueError):
    """A position or setting that cannot be rendered (says which and why)."""


# --------------------------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True)
class RenderConfig:
    """Everything that makes one photo look the way it does.

    Angles are in degrees.  ``tilt`` leans the camera away from straight down toward
    ``tilt_azimuth`` (0: the camera stands beyond the right edge of the board, 90: beyond the
    bottom edge); ``rotation`` turns the picture about the lens axis (the board appears turned
    counter-clockwise by it).  ``board_scale`` is the fraction of the image (in its tighter
    direction) that the board's outer edge fills; ``board_offset`` moves the board within the
    room left, -1..1 in x and y.  ``k1`` is barrel distortion (0..0.2).  Lengths given
    ``per square`` are fractions of a board square.
    """

    size: tuple[int, int] = (1280, 720)  # width, height
    # camera
    tilt: float = 0.0
    tilt_azimuth: float = 90.0
    rotation: float = 0.0
    fov: float = 55.0  # horizontal field of view of the lens
    board_scale: float = 0.88
    board_offset: tuple[float, float] = (0.0, 0.0)
    k1: float = 0.0
    # light
    light_azimuth: float = 225.0  # where the lamp stands, seen from the board (board coords)
    light_gradient: float = 0.12  # brightness change across the image, fraction
    gradient_angle: float = 30.0  # image direction in which brightness grows
    vignette: float = 0.2
    shadows: int = 0  # soft shadow polygons (a person, a lamp arm) falling on the scene
    shadow_strength: float = 0.3
    glare: float = 0.0  # 0..1 strength of a lamp's specular reflection
    glare_pos: tuple[float, float] = (0.6, 0.35)  # fraction of the image width and height
    glare_size: float = 0.18  # fraction of the image's short side
    exposure: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains
    # sensor and lens
    noise: float = 2.0  # standard deviation in grey levels
    defocus: float = 0.5  # Gaussian sigma in pixels
    motion_blur: float = 0.0  # length in pixels
    motion_angle: float = 0.0
    sharpen: float = 0.0  # unsharp-mask amount, as phone cameras apply (0..1)
    jpeg_quality: int = 90  # 0 keeps the image uncompressed
    # tiles
    font: str = "sans"  # a name of FONTS, or the path of a .ttf/.otf file
    tile_style: str = "auto"  # "auto" takes the edition's tiles
    tile_color_jitter: float = 0.04
    tile_jitter: float = 0.03  # per square
    tile_rotation_jitter: float = 2.0
    tile_size: float = 0.92  # per square
    tile_height: float = 0.2  # per square
    show_values: bool = True
    # scene
    hand: bool = False
    clutter: bool = True
    table: str = "wood"
    scene_seed: int = 0  # places shadows, clutter and the hand
    pixels_per_square: int = 48

    def __post_init__(self) -> None:
        width, height = self.size
        if width < 32 or height < 32:
            raise RenderError(f"output size {self.size} is too small (at least 32x32)")
        if not 0.0 <= self.tilt <= 60.0:
            raise RenderError(f"tilt {self.tilt} is outside 0..60 degrees")
        if not 0.05 <= self.board_scale <= 1.5:
            raise RenderError(f"board_scale {self.board_scale} is outside 0.05..1.5")
        if self.font not in FONTS and not (
            self.font.lower().endswith((".ttf", ".otf")) and Path(self.font).is_file()
        ):
            raise RenderError(
                f"unknown font {self.font!r}; known: {', '.join(FONTS)}, or a .ttf/.otf file"
            )
        if self.tile_style != "auto" and self.tile_style not in TILE_STYLES:
            raise RenderError(
                f"unknown tile style {self.tile_style!r}; known: auto, {', '.join(TILE_STYLES)}"
            )
        if self.table not in TABLES:
            raise RenderError(f"unknown table {self.table!r}; known: {', '.join(TABLES)}")
        if not 0 <= self.jpeg_quality <= 100:
            raise RenderError(f"jpeg_quality {self.jpeg_quality} is outside 0..100")
        if not 12 <= self.pixels_per_square <= 200:
            raise RenderError(f"pixels_per_square {self.pixels_per_square} is outside 12..200")

    @staticmethod
    def random(seed: int, max_tilt: float = 35.0, *, size: tuple[int, int] = (1280, 720),
               hand_probability: float = 0.25) -> RenderConfig:
        """A varied, realistic configuration drawn from ``seed``.

        The whole playing grid always stays inside the picture.

        >>> RenderConfig.random(3) == RenderConfig.random(3)
        True
        >>> RenderConfig.random(3, max_tilt=0).tilt
        0.0
        """
        rng = np.random.default_rng([seed, 0x5EED])
        kind = rng.random()
        if kind < 0.5:
            rotation = rng.normal(0.0, 4.0)
        elif kind < 0.75:
            rotation = float(rng.choice([90.0, 180.0, 270.0])) + rng.normal(0.0, 3.0)
        else:
            rotation = rng.uniform(-180.0, 180.0)
        blur_kind = rng.random()
        return RenderConfig(
            size=size,
            tilt=float(max_tilt * rng.random() ** 1.2),
            tilt_azimuth=float(rng.uniform(0.0, 360.0)),
            rotation=float(rotation),
            fov=float(rng.uniform(45.0, 70.0)),
            board_scale=float(rng.uniform(0.62, 0.95)),
            board_offset=(float(rng.uniform(-0.9, 0.9)), float(rng.uniform(-0.9, 0.9))),
            k1=float(rng.uniform(0.0, 0.08)) if rng.random() < 0.5 else 0.0,
            light_azimuth=float(rng.uniform(0.0, 360.0)),
            light_gradient=float(rng.uniform(0.0, 0.35)),
            gradient_angle=float(rng.uniform(0.0, 360.0)),
            vignette=float(rng.uniform(0.0, 0.5)),
            shadows=int(rng.choice([0, 0, 1, 1, 2])),
            shadow_strength=float(rng.uniform(0.15, 0.45)),
            glare=float(rng.uniform(0.3, 0.9)) if rng.random() < 0.4 else 0.0,
            glare_pos=(float(rng.uniform(0.15, 0.85)), float(rng.uniform(0.15, 0.85))),
            glare_size=float(rng.uniform(0.08, 0.3)),
            exposure=float(rng.uniform(0.75, 1.15)),
            white_balance=tuple(float(g) for g in rng.uniform(0.92, 1.08, 3)),
            # Measured on the real photos: about 1.2 grey levels of fine grain on a flat square,
            # which noise=2 reproduces; a dim room now and then gives more.
            noise=float(rng.uniform(0.8, 3.5) if rng.random() < 0.85 else rng.uniform(3.5, 6.0)),
            defocus=float(rng.uniform(0.0, 1.6)) if blur_kind < 0.85 else 0.3,
            motion_blur=float(rng.uniform(2.0, 7.0)) if blur_kind >= 0.85 else 0.0,
            motion_angle=float(rng.uniform(0.0, 180.0)),
            sharpen=float(rng.uniform(0.2, 0.9)) if rng.random() < 0.5 else 0.0,
            jpeg_quality=int(rng.integers(55, 96)),
            font=str(rng.choice(list(FONTS))),
            tile_style="auto" if rng.random() < 0.8 else str(rng.choice(TILE_STYLES)),
            tile_color_jitter=float(rng.uniform(0.02, 0.08)),
            tile_jitter=float(rng.uniform(0.0, 0.05)),
            tile_rotation_jitter=float(rng.uniform(0.0, 4.0)),
            tile_size=float(rng.uniform(0.88, 0.95)),
            tile_height=float(rng.uniform(0.14, 0.26)),
            hand=bool(rng.random() < hand_probability),
            clutter=bool(rng.random() < 0.75),
            table=str(rng.choice(TABLES)),
            scene_seed=int(seed),
        )

    def flat_key(self) -> tuple:
        """The settings that change the flat (top-down) board, for caching it."""
        # Tile height casts the tiles' shadows on the flat board.
        return (self.font, self.tile_style, round(self.tile_color_jitter, 4),
                round(self.tile_jitter, 4), round(self.tile_rotation_jitter, 3),
                round(self.tile_size, 4), round(self.tile_height, 4), self.show_values,
                self.clutter,
                round(self.light_azimuth % 360.0, 1), self.scene_seed, self.pixels_per_square)


@dataclass(frozen=True)
class HandPose:
    """A hand over the picture: ``tip`` is where the index fingertip is (image pixels),
    ``angle`` the direction from the wrist to the fingertip (degrees, image x toward y), ``size``
    the width of the palm in pixels.  ``holding`` is a tile held between thumb and finger."""

    tip: tuple[float, float]
    angle: float
    size: float
    skin: BGR = (120, 150, 200)
    sleeve: BGR | None = (90, 60, 40)
    curl: float = 0.5  # 0: fingers stretched, 1: curled
    holding: str | None = None


@dataclass(eq=False)
class RenderedPhoto:
    """One rendered photo.

    ``corners`` are the image positions of the playing grid's outer corners in the order
    top-left, top-right, bottom-right, bottom-left of the *board* (top-left is the outer corner
    of A1), wherever they land in the picture.  ``hand_mask`` marks the pixels a hand covers
    (None without a hand).
    """

    image: np.ndarray
    corners: np.ndarray
    config: RenderConfig
    homography: np.ndarray  # grid units (column, row; 0..15) -> undistorted image pixels
    hand_mask: np.ndarray | None = None

    def grid_to_image(self, points: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """Image positions of board-plane points given in squares (x = column, y = row),
        with the lens distortion applied: ``(0, 0)`` is the top-left grid corner,
        ``(7.5, 7.5)`` the middle of H8."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        projected = cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)
        return _distort_points(projected, self.config.size, self.config.k1).astype(np.float32)

    def square_centre(self, row: int, col: int) -> tuple[float, float]:
        """Image position of the middle of square (row, col), 0-based."""
        x, y = self.grid_to_image([[col + 0.5, row + 0.5]])[0]
        return float(x), float(y)


# --------------------------------------------------------------------------------------------
# Validation


def _check_rows(rows: Sequence[str], tileset: TileSet) -> tuple[str, ...]:
    if len(rows) != SIZE:
        raise RenderError(f"expected {SIZE} rows, got {len(rows)}")
    for r, row in enumerate(rows):
        if len(row) != SIZE:
            raise RenderError(f"row {r + 1} has {len(row)} characters, expected {SIZE}: {row!r}")
        for c, ch in enumerate(row):
            if ch == ".":
                continue
            if ch.upper() not in tileset.counts or ch == "?":
                raise RenderError(
                    f"square {'ABCDEFGHIJKLMNO'[c]}{r + 1} holds {ch!r}, which is not a letter "
                    f"of the {tileset.name} tile set"
                )
    return tuple(rows)


# --------------------------------------------------------------------------------------------
# Glyphs


@cache
def _font(name: str, size: int):  # noqa: ANN202 - a PIL font object
    from PIL import ImageFont

    # A name of FONTS, or (to learn letters from other typefaces) a font file's path.
    return ImageFont.truetype(str(DATA_DIR / FONTS[name]) if name in FONTS else name, size)


@cache
def _cap_ratio(name: str) -> float:
    """Cap height of the font as a fraction of its size."""
    font = _font(name, 200)
    left, top, right, bottom = font.getbbox("H")
    return (bottom - top) / 200.0


@cache
def _glyph(font_name: str, text: str, cap_px: int) -> np.ndarray:
    """Ink of ``text`` (float32 0..1, cropped to the ink) whose capitals are ``cap_px`` tall."""
    from PIL import Image, ImageDraw

    size = max(4, int(round(cap_px / _cap_ratio(font_name))))
    font = _font(font_name, size)
    left, top, right, bottom = font.getbbox(text)
    image = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(image).text((2 - left, 2 - top), text, font=font, fill=255)
    ink = np.asarray(image, dtype=np.float32) / 255.0
    ys, xs = np.nonzero(ink > 0.02)
    if len(xs) == 0:
        return np.zeros((1, 1), np.float32)
    return np.ascontiguousarray(ink[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1])


def _stamp(canvas: np.ndarray, ink: np.ndarray, centre: tuple[float, float], color: Sequence[float],
           alpha: float = 1.0) -> None:
    """Paint ``ink`` (a coverage mask) in ``color`` on ``canvas`` centred at ``centre``."""
    h, w = ink.shape
    x0 = int(round(centre[0] - w / 2.0))
    y0 = int(round(centre[1] - h / 2.0))
    _paint(canvas, ink, x0, y0, color, alpha)


def _paint(canvas: np.ndarray, ink: np.ndarray, x0: int, y0: int, color: Sequence[float],
           alpha: float = 1.0) -> None:
    h, w = ink.shape
    ch, cw = canvas.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(cw, x0 + w), min(ch, y0 + h)
    if xa >= xb or ya >= yb:
        return
    a = ink[ya - y0: yb - y0, xa - x0: xb - x0, None] * alpha
    region = canvas[ya:yb, xa:xb]
    col = np.asarray(color, dtype=np.float32)
    if canvas.dtype == np.uint8:
        region[:] = (region * (1.0 - a) + col * a).astype(np.uint8)
    else:
        region[:] = region * (1.0 - a) + col * a


def _rotated(ink: np.ndarray, quarter_turns: int) -> np.ndarray:
    return np.ascontiguousarray(np.rot90(ink, quarter_turns))


# --------------------------------------------------------------------------------------------
# The flat board


@dataclass(eq=False)
class FlatBoard:
    """A board position drawn from straight above, ready to be photographed.

    Both layers are premultiplied BGRA (uint8) on the same canvas, ``pixels_per_square`` pixels
    to a square, with the top-left grid corner at pixel boundary ``(origin, origin)``: ``board``
    is the board's printed surface with the tiles' shadows and the clutter on the table around
    it, ``tiles`` the tops of the tiles (on the board and loose ones on the table).
    """

    rows: tuple[str, ...]
    tileset: str
    edition: Edition
    tile_style: str
    board: np.ndarray
    tiles: np.ndarray
    board_edge: np.ndarray  # the board's cardboard edge: its outline, darkened (BGRA)
    tiles_box: tuple[int, int, int, int] | None  # canvas box (x0, y0, x1, y1) holding tiles
    origin: int
    pixels_per_square: int
    seed: int
    key: tuple = field(default=())  # what the flat board was made from (for caches)

    @property
    def canvas_size(self) -> int:
        return self.board.shape[0]

    def world_to_canvas(self) -> np.ndarray:
        """3x3 matrix taking board squares (x = column, y = row) to canvas pixel centres."""
        s = float(self.pixels_per_square)
        o = self.origin - 0.5
        return np.array([[s, 0.0, o], [0.0, s, o], [0.0, 0.0, 1.0]])


_FLAT_CACHE: OrderedDict[tuple, FlatBoard] = OrderedDict()
_FLAT_CACHE_SIZE = 12


def render_flat(rows: Sequence[str], *, tileset: str = "en", edition: str = "green",
                seed: int = 0, config: RenderConfig | None = None) -> FlatBoard:
    """The board with its tiles seen from straight above (cached).

    Each tile's colour, jitter and grain depend only on ``seed`` and its square, so adding a
    tile leaves the others where they were.
    """
    config = config or RenderConfig()
    tiles = TileSet.named(tileset)
    rows = _check_rows(rows, tiles)
    ed = find_edition(edition)
    key = (rows, tiles.code, ed.name, int(seed), config.flat_key())
    cached = _FLAT_CACHE.get(key)
    if cached is not None:
        _FLAT_CACHE.move_to_end(key)
        return cached
    flat = _build_flat(rows, tiles, ed, int(seed), config)
    flat.key = key
    _FLAT_CACHE[key] = flat
    if len(_FLAT_CACHE) > _FLAT_CACHE_SIZE:
        _FLAT_CACHE.popitem(last=False)
    return flat


def _tile_style(config: RenderConfig, ed: Edition) -> str:
    return ed.tile_style if config.tile_style == "auto" else config.tile_style


def _light_vector(azimuth: float) -> np.ndarray:
    """Unit vector (board x, y) pointing from the board toward the lamp."""
    a = math.radians(azimuth)
    return np.array([math.cos(a), math.sin(a)])


@dataclass(frozen=True)
class _FlatBase:
    """What a flat board is before its tiles go on: the printed board with the clutter on the
    table (premultiplied BGRA uint8), loose and rack tiles, and the board's edge."""

    board: np.ndarray
    tops: np.ndarray
    edge: np.ndarray
    origin: int


_BASE_CACHE: OrderedDict[tuple, _FlatBase] = OrderedDict()
_BASE_CACHE_SIZE = 4


def _flat_base(tiles: TileSet, ed: Edition, seed: int, config: RenderConfig) -> _FlatBase:
    key = (tiles.code, ed.name, seed, config.flat_key())
    cached = _BASE_CACHE.get(key)
    if cached is not None:
        _BASE_CACHE.move_to_end(key)
        return cached
    pps = config.pixels_per_square
    margin = ed.frame_width + _CLUTTER_MARGIN
    origin = int(math.ceil(margin * pps))
    n = 2 * origin + SIZE * pps
    board, outline = _draw_board(ed, pps, origin, n, seed)
    tops = np.zeros((n, n, 4), np.uint8)
    if config.clutter:
        scene_rng = np.random.default_rng([config.scene_seed, seed, 0xC1A7])
        _draw_clutter(board, tops, ed, tiles, _tile_style(config, ed), config,
                      _World(origin, pps), scene_rng, _light_vector(config.light_azimuth))
    edge = np.zeros((n, n, 4), np.uint8)
    edge_color = (np.array(ed.frame[0].color) * 0.55).astype(np.uint8)
    edge[..., :3] = (outline[..., None] // 255) * edge_color
    edge[..., 3] = outline
    # Values are never negative here, so the saturating conversion is a clip and a cast.
    base = _FlatBase(board=cv2.convertScaleAbs(board), tops=tops, edge=edge, origin=origin)
    _BASE_CACHE[key] = base
    if len(_BASE_CACHE) > _BASE_CACHE_SIZE:
        _BASE_CACHE.popitem(last=False)
    return base


def _build_flat(rows: tuple[str, ...], tiles: TileSet, ed: Edition, seed: int,
                config: RenderConfig) -> FlatBoard:
    pps = config.pixels_per_square
    style = _tile_style(config, ed)
    light = _light_vector(config.light_azimuth)
    base = _flat_base(tiles, ed, seed, config)
    origin = base.origin
    n = base.board.shape[0]
    board = base.board.copy()
    tops = base.tops.copy()
    placed = np.zeros((n, n), np.uint8)  # the board's tiles alone, for their shadows
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == ".":
                continue
            rng = np.random.default_rng([seed, r, c, 0x711E])
            centre = (origin + (c + 0.5) * pps - 0.5, origin + (r + 0.5) * pps - 0.5)
            jitter = rng.normal(0.0, config.tile_jitter / 2.0, 2).clip(
                -config.tile_jitter, config.tile_jitter) * pps
            angle = float(np.clip(rng.normal(0.0, config.tile_rotation_jitter / 2.0),
                                  -config.tile_rotation_jitter, config.tile_rotation_jitter))
            letter = None if is_blank(ch) else ch
            value = tiles.value(ch) if letter and config.show_values else None
            sprite = _tile_sprite(letter, value, style, config.font,
                                  config.tile_size * pps, light, config.tile_color_jitter, rng)
            _place_sprite(tops, sprite, (centre[0] + jitter[0], centre[1] + jitter[1]), angle)
    # Tile shadows only matter on and around the grid: work in that box.
    lo = max(0, origin - pps)
    hi = min(n, origin + (SIZE + 1) * pps)
    placed = tops[lo:hi, lo:hi, 3].astype(np.float32) / 255.0
    if placed.any():
        # A tile's cast shadow falls away from the lamp; contact shadow hugs its edge.
        shift = -light * config.tile_height * 0.6 * pps
        m = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
        cast = cv2.warpAffine(placed, m, (hi - lo, hi - lo))
        cast = cv2.GaussianBlur(cast, (0, 0), 0.05 * pps)
        contact = cv2.GaussianBlur(placed, (0, 0), 0.03 * pps)
        shade = np.clip(1.0 - 0.35 * cast - 0.2 * contact, 0.3, 1.0)
        region = board[lo:hi, lo:hi]
        lit = cv2.multiply(region[..., :3].astype(np.float32),
                           cv2.merge([shade, shade, shade]))
        region[..., :3] = np.clip(lit, 0, 255).astype(np.uint8)
    ys, xs = np.nonzero(tops[..., 3])
    tiles_box = ((int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
                 if len(xs) else None)
    return FlatBoard(rows=rows, tileset=tiles.code, edition=ed, tile_style=style,
                     board=board, tiles=tops, board_edge=base.edge, tiles_box=tiles_box,
                     origin=origin, pixels_per_square=pps, seed=seed)


@dataclass(frozen=True)
class _World:
    """Board squares to canvas pixel boundaries."""

    origin: int
    pps: float

    def px(self, x: float, scale: float = 1.0) -> float:
        return (self.origin + x * self.pps) * scale


def _draw_board(ed: Edition, pps: int, origin: int, n: int,
                seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The printed board with its print grain (premultiplied BGRA float32) and its outline."""
    world = _World(origin, pps)
    fw = ed.frame_width
    board = _printed_board(ed.name, pps, origin, n).astype(np.float32)
    outline = np.zeros((n, n), np.uint8)
    lo, hi = int(round(world.px(-fw))), int(round(world.px(SIZE + fw)))
    outline[lo:hi, lo:hi] = 255

    # Print grain: blotchy low-frequency tone and fine speckle.
    rng = np.random.default_rng([seed, 0xB0A2D])
    low = cv2.resize(rng.normal(0.0, 1.0, (24, 24)).astype(np.float32), (n, n),
                     interpolation=cv2.INTER_CUBIC)
    fine = rng.standard_normal((n, n), dtype=np.float32)
    board += (ed.grain * (0.8 * low + 0.6 * fine))[..., None]
    np.clip(board, 0, 255, out=board)

    alpha = outline.astype(np.float32) / 255.0
    # The board's soft drop shadow on the table.
    shadow = cv2.GaussianBlur(alpha, (0, 0), 0.18 * pps) * 0.55
    shadow = np.maximum(shadow, alpha)
    # Premultiplied: shadow pixels are black with partial alpha.
    layer = np.empty((n, n, 4), np.float32)
    layer[..., :3] = board * alpha[..., None]
    layer[..., 3] = shadow * 255.0
    return layer, outline


@lru_cache(maxsize=6)
def _printed_board(edition_name: str, pps: int, origin: int, n: int) -> np.ndarray:
    """The board's print (BGR uint8): frame, grid, premium squares and labels.  The same for
    every photo of an edition, so it is drawn once."""
    ed = find_edition(edition_name)
    ss = _SUPERSAMPLE
    big_n = n * ss
    world = _World(origin, pps)
    canvas = np.zeros((big_n, big_n, 3), np.uint8)

    def rect(x0: float, y0: float, x1: float, y1: float, color: BGR) -> None:
        a = (int(round(world.px(x0, ss))), int(round(world.px(y0, ss))))
        b = (int(round(world.px(x1, ss))) - 1, int(round(world.px(y1, ss))) - 1)
        cv2.rectangle(canvas, a, b, color, thickness=-1)

    fw = ed.frame_width
    inset = 0.0
    for band in ed.frame:
        rect(-fw + inset, -fw + inset, SIZE + fw - inset, SIZE + fw - inset, band.color)
        inset += band.width
    if ed.frame_text:
        _draw_frame_text(canvas, ed, world, ss)

    # Grid: lines are what is left between the squares.
    lw = ed.grid_line_width
    outer = lw * 1.5
    rect(-outer, -outer, SIZE + outer, SIZE + outer, ed.grid_line_color)
    for r in range(SIZE):
        for c in range(SIZE):
            code = PREMIUM_LAYOUT[r][c]
            color = ed.premium_color(code)
            if code != "." and ed.premium_style == "jagged":
                rect(c + lw / 2, r + lw / 2, c + 1 - lw / 2, r + 1 - lw / 2, ed.square_color)
                _jagged_square(canvas, world, ss, r, c, lw, color)
            else:
                rect(c + lw / 2, r + lw / 2, c + 1 - lw / 2, r + 1 - lw / 2, color)
    if ed.premium_style == "teeth":
        _draw_teeth(canvas, ed, world, ss)
    _draw_labels(canvas, ed, world, ss)

    board = cv2.resize(canvas, (n, n), interpolation=cv2.INTER_AREA)
    if ed.fold:
        # Folding boards show their hinge: a thin dark crease across the middle, and the two
        # halves catching the light a little differently.
        mid = int(round(world.px(SIZE / 2.0)))
        lo, hi = int(round(world.px(-ed.frame_width))), int(round(world.px(SIZE + ed.frame_width)))
        half = board[lo:hi, mid:hi].astype(np.float32) * 0.97
        board[lo:hi, mid:hi] = half.astype(np.uint8)
        width = max(1, int(round(0.03 * pps)))
        crease = board[lo:hi, mid - width: mid + width].astype(np.float32) * 0.45
        board[lo:hi, mid - width: mid + width] = crease.astype(np.uint8)
    board.flags.writeable = False  # shared by every photo of the edition
    return board


def _draw_frame_text(canvas: np.ndarray, ed: Edition, world: _World, ss: int) -> None:
    widest = max(ed.frame, key=lambda b: b.width)
    if widest.width < 0.6:
        return
    start = 0.0
    for band in ed.frame:
        if band is widest:
            break
        start += band.width
    fw = ed.frame_width
    middle = -fw + start + widest.width / 2.0  # distance of the band's middle from the grid
    cap = int(widest.width * 0.55 * world.pps * ss)
    text = " ".join(ed.frame_text) if ed.name == "classic" else ed.frame_text
    ink = _glyph("serif" if ed.name != "classic" else "sans", text, cap)
    y_bottom = world.px(SIZE - middle, ss)
    y_top = world.px(middle, ss)
    cx = world.px(SIZE / 2.0, ss)
    _stamp(canvas, ink, (cx, y_bottom), ed.frame_text_color)
    _stamp(canvas, _rotated(ink, 2), (cx, y_top), ed.frame_text_color)


def _draw_teeth(canvas: np.ndarray, ed: Edition, world: _World, ss: int) -> None:
    """Small dots in the premium colour just outside each edge of a premium square."""
    dot, gap, off = 0.09, 0.08, 0.04
    for r in range(SIZE):
        for c in range(SIZE):
            code = PREMIUM_LAYOUT[r][c]
            if code == ".":
                continue
            color = ed.premium_color(code)
            count = 3 if code in ("TW", "TL") else 2
            span = count * dot + (count - 1) * gap
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                nr, nc = r + dr, c + dc
                if not (0 <= nr < SIZE and 0 <= nc < SIZE) or PREMIUM_LAYOUT[nr][nc] != ".":
                    continue
                for k in range(count):
                    along = 0.5 - span / 2 + k * (dot + gap)
                    if dr:
                        x0 = c + along
                        y0 = r - off - dot if dr < 0 else r + 1 + off
                        x1, y1 = x0 + dot, y0 + dot
                    else:
                        y0 = r + along
                        x0 = c - off - dot if dc < 0 else c + 1 + off
                        x1, y1 = x0 + dot, y0 + dot
                    cv2.rectangle(
                        canvas,
                        (int(round(world.px(x0, ss))), int(round(world.px(y0, ss)))),
                        (int(round(world.px(x1, ss))) - 1, int(round(world.px(y1, ss))) - 1),
                        color, thickness=-1,
                    )


def _jagged_square(canvas: np.ndarray, world: _World, ss: int, r: int, c: int, lw: float,
                   color: BGR) -> None:
    """A premium square with a saw-tooth outline, as vintage boards print them."""
    teeth, depth = 6, 0.07
    inner = lw / 2 + depth
    pts: list[tuple[float, float]] = []
    corners = [(c + inner, r + inner), (c + 1 - inner, r + inner),
               (c + 1 - inner, r + 1 - inner), (c + inner, r + 1 - inner)]
    for i in range(4):
        (x0, y0), (x1, y1) = corners[i], corners[(i + 1) % 4]
        # outward normal of this edge
        nx, ny = (y1 - y0), -(x1 - x0)
        norm = math.hypot(nx, ny)
        nx, ny = nx / norm, ny / norm
        for k in range(teeth * 2):
            t = k / (teeth * 2)
            out = depth * 0.9 if k % 2 else 0.0
            pts.append((x0 + (x1 - x0) * t - nx * out, y0 + (y1 - y0) * t - ny * out))
    poly = np.array([[world.px(x, ss), world.px(y, ss)] for x, y in pts], np.int32)
    cv2.fillPoly(canvas, [poly], color, lineType=cv2.LINE_AA)


def _draw_labels(canvas: np.ndarray, ed: Edition, world: _World, ss: int) -> None:
    sq = world.pps * ss
    for r in range(SIZE):
        for c in range(SIZE):
            code = PREMIUM_LAYOUT[r][c]
            cx, cy = world.px(c + 0.5, ss), world.px(r + 0.5, ss)
            if code == "*":
                if ed.star_color is not None:
                    _star(canvas, (cx, cy), 0.3 * sq, ed.star_color)
                continue
            lines = ed.labels.get(code)
            if not lines:
                continue
            color = ed.label_colors.get(code, (245, 245, 245))
            cap = 0.11 * sq if len(lines) > 1 else 0.3 * sq
            inks = [_glyph("condensed", line, int(cap)) for line in lines]
            widest = max(ink.shape[1] for ink in inks)
            limit = 0.8 * sq
            if widest > limit:
                scale = limit / widest
                inks = [_glyph("condensed", line, max(3, int(cap * scale))) for line in lines]
            step = cap * 1.55 if len(lines) > 1 else 0
            for i, ink in enumerate(inks):
                _stamp(canvas, ink, (cx, cy + (i - (len(inks) - 1) / 2) * step), color)


def _star(canvas: np.ndarray, centre: tuple[float, float], radius: float, color: BGR) -> None:
    pts = []
    for k in range(10):
        rad = radius if k % 2 == 0 else radius * 0.42
        a = -math.pi / 2 + k * math.pi / 5
        pts.append((centre[0] + rad * math.cos(a), centre[1] + rad * math.sin(a)))
    cv2.fillPoly(canvas, [np.array(pts, np.int32)], color, lineType=cv2.LINE_AA)


# --------------------------------------------------------------------------------------------
# Tiles


_IVORY: BGR = (208, 228, 234)
_WOOD: BGR = (138, 166, 198)


def _tile_sprite(letter: str | None, value: int | None, style: str, font: str, size_px: float,
                 light: np.ndarray, color_jitter: float, rng: np.random.Generator,
                 face_down: bool = False) -> np.ndarray:
    """One tile seen from above: premultiplied BGRA float32, the tile centred in the sprite."""
    p = int(math.ceil(size_px)) + 4
    c = (p - 1) / 2.0
    ys, xs = np.mgrid[0:p, 0:p].astype(np.float32)
    half = size_px / 2.0
    radius = size_px * (0.1 if style == "ivory" else 0.05)
    qx = np.abs(xs - c) - (half - radius)
    qy = np.abs(ys - c) - (half - radius)
    outside = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0))
    sdf = outside + np.minimum(np.maximum(qx, qy), 0) - radius
    alpha = np.clip(0.5 - sdf, 0.0, 1.0)

    base = np.array(_IVORY if style == "ivory" else _WOOD, np.float32)
    base *= 1.0 + rng.normal(0.0, color_jitter, 3).astype(np.float32) * 0.5
    base *= 1.0 + rng.normal(0.0, color_jitter)
    color = np.empty((p, p, 3), np.float32)
    color[:] = base
    if style == "wood":
        # Grain: stripes along a random direction, wobbling, with darker streaks.
        a = rng.uniform(-0.25, 0.25) + (0.0 if rng.random() < 0.5 else math.pi / 2)
        u = xs * math.cos(a) + ys * math.sin(a)
        v = -xs * math.sin(a) + ys * math.cos(a)
        wobble = cv2.resize(rng.normal(0, 1, (4, 4)).astype(np.float32), (p, p),
                            interpolation=cv2.INTER_CUBIC)
        freq = rng.uniform(0.25, 0.6) / max(size_px / 40.0, 0.5)
        grain = np.sin(v * freq + 2.5 * wobble + u * 0.02)
        streak = np.sin(v * freq * 3.1 + 1.3 * wobble) ** 8
        color *= (1.0 + 0.05 * grain - 0.08 * streak)[..., None]
        color *= (1.0 + 0.03 * wobble)[..., None]
    else:
        mottle = cv2.resize(rng.normal(0, 1, (3, 3)).astype(np.float32), (p, p),
                            interpolation=cv2.INTER_CUBIC)
        color *= (1.0 + 0.015 * mottle)[..., None]

    # Bevelled edge: the rim facing the lamp is lit, the far rim darker.
    bevel = max(1.5, size_px * 0.07)
    gy, gx = np.gradient(sdf)
    norm = np.hypot(gx, gy) + 1e-6
    facing = (gx * light[0] + gy * light[1]) / norm
    rim = np.clip(1.0 + sdf / bevel, 0.0, 1.0) ** 1.5
    shade = 1.0 + 0.22 * rim * facing - 0.08 * rim
    color *= shade[..., None]

    if letter and not face_down:
        ink_color = (28, 28, 32) if style == "ivory" else (22, 24, 30)
        cap = int(round(size_px * 0.55))
        ink = _glyph(font, letter, cap)
        if ink.shape[1] > size_px * 0.72:
            ink = _glyph(font, letter, int(cap * size_px * 0.72 / ink.shape[1]))
        offset = size_px * (0.04 if value is not None else 0.0)
        _stamp(color, ink, (c - offset, c - offset * 0.8), ink_color, alpha=0.96)
        if value is not None:
            digits = _glyph(font, str(value), max(3, int(round(size_px * 0.15))))
            right = c + half * 0.80
            bottom = c + half * 0.80
            _paint(color, digits, int(round(right - digits.shape[1])),
                   int(round(bottom - digits.shape[0])), ink_color, alpha=0.95)
    sprite = np.empty((p, p, 4), np.float32)
    sprite[..., :3] = color * alpha[..., None]
    sprite[..., 3] = alpha * 255.0
    return sprite


def _place_sprite(canvas: np.ndarray, sprite: np.ndarray, centre: tuple[float, float],
                  angle: float, squash: float = 1.0) -> None:
    """Composite a premultiplied sprite onto a premultiplied canvas, rotated and centred."""
    p = sprite.shape[0]
    c = (p - 1) / 2.0
    a = math.radians(angle)
    cos, sin = math.cos(a), math.sin(a)
    reach = int(math.ceil(p * 0.75)) + 2
    x0, y0 = int(math.floor(centre[0])) - reach, int(math.floor(centre[1])) - reach
    size = 2 * reach + 1
    # sprite pixel -> canvas region pixel: rotate, squash along y, translate
    m = np.array([
        [cos, -sin * squash, centre[0] - x0 - (cos * c - sin * squash * c)],
        [sin, cos * squash, centre[1] - y0 - (sin * c + cos * squash * c)],
    ], np.float32)
    warped = cv2.warpAffine(sprite, m, (size, size), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    n_h, n_w = canvas.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(n_w, x0 + size), min(n_h, y0 + size)
    if xa >= xb or ya >= yb:
        return
    src = warped[ya - y0: yb - y0, xa - x0: xb - x0]
    dst = canvas[ya:yb, xa:xb]
    a_src = src[..., 3:4] / 255.0
    # A 3-channel canvas is an opaque picture: the same "over" rule, without its alpha.
    over = src[..., : dst.shape[2]] + dst * (1.0 - a_src)
    dst[:] = np.clip(over, 0, 255) if canvas.dtype == np.uint8 else over


# --------------------------------------------------------------------------------------------
# Clutter around the board


def _draw_clutter(board: np.ndarray, tops: np.ndarray, ed: Edition, tiles: TileSet, style: str,
                  config: RenderConfig, world: _World, rng: np.random.Generator,
                  light: np.ndarray) -> None:
    pps = world.pps
    fw = ed.frame_width
    letters = [t for t in tiles.letters if len(t) == 1]
    # A rack in front of one or two players, holding up to seven tiles.
    sides = [0] if rng.random() < 0.6 else [0, 2]
    first = int(rng.integers(0, 4))
    for k in sides:
        side = (first + k) % 4
        length = rng.uniform(8.5, 10.5)
        depth = rng.uniform(1.1, 1.4)
        gap = rng.uniform(0.4, 1.6)
        along = rng.uniform(0.5, SIZE - length - 0.5)
        rack_color = (28, 30, 34) if rng.random() < 0.5 else (40, 75, 120)
        rack_tiles = [str(rng.choice(letters)) for _ in range(int(rng.integers(3, 8)))]
        _draw_rack(board, tops, world, side, along, length, depth, fw + gap, rack_color,
                   rack_tiles, tiles, style, config, rng, light)
    # A cloth bag in a corner.
    if rng.random() < 0.7:
        corner = rng.integers(0, 4)
        dx, dy = rng.uniform(1.0, 2.0, 2)
        cx = -fw - dx if corner in (0, 3) else SIZE + fw + dx
        cy = -fw - dy if corner in (0, 1) else SIZE + fw + dy
        _draw_bag(board, world, (cx, cy), rng.uniform(1.3, 1.9), rng)
    # A few loose tiles on the table, some face down.
    for _ in range(int(rng.integers(0, 4))):
        side = rng.integers(0, 4)
        d = fw + rng.uniform(0.5, 3.5)
        t = rng.uniform(-1.0, SIZE + 1.0)
        x, y = [(t, -d), (SIZE + d, t), (t, SIZE + d), (-d, t)][side]
        sprite = _tile_sprite(str(rng.choice(letters)), None, style, config.font,
                              config.tile_size * pps, light, config.tile_color_jitter, rng,
                              face_down=rng.random() < 0.5)
        _place_sprite(tops, sprite, (world.px(x) - 0.5, world.px(y) - 0.5),
                      float(rng.uniform(0, 360)))


def _draw_rack(board: np.ndarray, tops: np.ndarray, world: _World, side: int, along: float,
               length: float, depth: float, distance: float, color: BGR, letters: list[str],
               tiles: TileSet, style: str, config: RenderConfig, rng: np.random.Generator,
               light: np.ndarray) -> None:
    """A rack lying parallel to one side of the board; its tiles lean back, so they look
    foreshortened from above."""
    pps = world.pps
    # Rack in a local frame (u along the side, v away from the board), then placed.
    def to_world(u: float, v: float) -> tuple[float, float]:
        if side == 0:  # beyond the bottom edge
            return along + u, SIZE + distance + v
        if side == 1:  # beyond the right edge
            return SIZE + distance + v, SIZE - along - u
        if side == 2:  # beyond the top edge
            return SIZE - along - u, -distance - v
        return -distance - v, along + u

    quad = [to_world(0, 0), to_world(length, 0), to_world(length, depth), to_world(0, depth)]
    lip = [to_world(0, depth * 0.72), to_world(length, depth * 0.72), to_world(length, depth),
           to_world(0, depth)]
    poly = np.array([[world.px(x), world.px(y)] for x, y in quad], np.float32)
    box = _window(board.shape[0], poly, 0.6 * pps)
    if box is None:
        return
    x0, y0, x1, y1 = box
    origin = np.float32([x0, y0])
    rgb = board[y0:y1, x0:x1, :3]
    alpha = board[y0:y1, x0:x1, 3]
    mask = np.zeros(alpha.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(poly - origin).astype(np.int32)], 255, lineType=cv2.LINE_AA)
    shadow = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 0.15 * pps)
    m = mask.astype(np.float32)[..., None] / 255.0
    # Shadow first (only where nothing opaque is yet), then the rack, lit along its length.
    alpha[:] = np.maximum(alpha, shadow * 140.0)
    rack_rgb = np.array(color, np.float32)
    rgb[:] = rgb * (1.0 - m) + rack_rgb * m
    alpha[:] = np.maximum(alpha, m[..., 0] * 255.0)
    # A lighter lip along the front edge.
    lip_poly = np.array([[world.px(x), world.px(y)] for x, y in lip], np.float32) - origin
    lip_mask = np.zeros(alpha.shape, np.uint8)
    cv2.fillPoly(lip_mask, [np.round(lip_poly).astype(np.int32)], 255, lineType=cv2.LINE_AA)
    lm = lip_mask.astype(np.float32)[..., None] / 255.0
    rgb[:] = rgb * (1.0 - lm) + np.minimum(rack_rgb * 1.35 + 12.0, 255.0) * lm

    rotation = {0: 0.0, 1: -90.0, 2: 180.0, 3: 90.0}[side]
    step = length / 7.4
    for i, letter in enumerate(letters):
        u = 0.3 + step * (i + 0.5)
        x, y = to_world(u, depth * 0.4)
        value = tiles.value(letter) if config.show_values else None
        sprite = _tile_sprite(letter, value, style, config.font, config.tile_size * pps, light,
                              config.tile_color_jitter, rng)
        _place_sprite(tops, sprite, (world.px(x) - 0.5, world.px(y) - 0.5),
                      rotation + float(rng.normal(0, 2)), squash=0.7)


def _draw_bag(board: np.ndarray, world: _World, centre: tuple[float, float], radius: float,
              rng: np.random.Generator) -> None:
    pps = world.pps
    n = board.shape[0]
    palette = [(70, 30, 60), (80, 40, 30), (40, 60, 30), (30, 30, 110), (60, 60, 60)]
    color = np.array(palette[int(rng.integers(0, len(palette)))], np.float32)
    # A rounded outline: a circle whose radius wanders smoothly, with a gathered neck.
    k = 48
    angles = np.linspace(0, 2 * math.pi, k, endpoint=False)
    harmonics = sum(rng.normal(0, 0.12 / h) * np.cos(h * angles + rng.uniform(0, 6.3))
                    for h in range(1, 5))
    radii = radius * (1.0 + harmonics)
    neck = rng.uniform(0, 2 * math.pi)
    near = np.abs(np.angle(np.exp(1j * (angles - neck)))) < 0.35
    radii = np.where(near, radii * 1.35, radii)
    pts = np.stack([world.px(centre[0]) + np.cos(angles) * radii * pps,
                    world.px(centre[1]) + np.sin(angles) * radii * pps * 0.85], 1)
    box = _window(n, pts, 1.2 * pps)
    if box is None:
        return
    x0, y0, x1, y1 = box
    h, w = y1 - y0, x1 - x0
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(pts - (x0, y0)).astype(np.int32)], 255, lineType=cv2.LINE_AA)
    mask_f = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 0.08 * pps)
    # Folds: a few soft dark creases, and rounded shading from the outline inward.
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
    body = np.clip(dist / (0.8 * pps), 0, 1) ** 0.6
    folds = cv2.resize(rng.normal(0, 1, (4, 4)).astype(np.float32), (w, h),
                       interpolation=cv2.INTER_CUBIC)
    shade = (0.55 + 0.45 * body) * (1.0 + 0.25 * np.sin(folds * 3.0))
    rgb = board[y0:y1, x0:x1, :3]
    alpha = board[y0:y1, x0:x1, 3]
    shadow = cv2.GaussianBlur(mask_f, (0, 0), 0.3 * pps)
    a = mask_f[..., None]
    rgb[:] = rgb * (1.0 - a) + (color * shade[..., None]) * a
    alpha[:] = np.maximum(np.maximum(alpha, shadow * 150.0), mask_f * 255.0)


def _window(n: int, points: np.ndarray, margin: float) -> tuple[int, int, int, int] | None:
    """Box (x0, y0, x1, y1) around ``points`` grown by ``margin``, clipped to an n x n canvas."""
    x0 = max(0, int(math.floor(points[:, 0].min() - margin)))
    y0 = max(0, int(math.floor(points[:, 1].min() - margin)))
    x1 = min(n, int(math.ceil(points[:, 0].max() + margin)))
    y1 = min(n, int(math.ceil(points[:, 1].max() + margin)))
    return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None


# --------------------------------------------------------------------------------------------
# Camera


@dataclass(frozen=True)
class _Camera:
    """Pinhole camera over the board: ``plane(z)`` maps board squares (x, y) on the plane at
    height ``z`` squares above the table to undistorted image pixels."""

    k: np.ndarray
    r: np.ndarray
    t: np.ndarray
    post: np.ndarray  # image-space zoom and shift

    def plane(self, z: float) -> np.ndarray:
        # World z grows away from the camera (into the table), so a height is a negative z.
        m = np.column_stack([self.r[:, 0], self.r[:, 1], self.r[:, 2] * (-z) + self.t])
        h = self.post @ self.k @ m
        return h / h[2, 2]


def _rodrigues(axis: np.ndarray, angle: float) -> np.ndarray:
    norm = np.linalg.norm(axis)
    if norm < 1e-12 or abs(angle) < 1e-12:
        return np.eye(3)
    rot, _ = cv2.Rodrigues((axis / norm * angle).reshape(3, 1))
    return rot


def _camera(config: RenderConfig, ed: Edition) -> _Camera:
    width, height = config.size
    f = (width / 2.0) / math.tan(math.radians(config.fov) / 2.0)
    k = np.array([[f, 0, width / 2.0], [0, f, height / 2.0], [0, 0, 1.0]])
    extent = SIZE + 2 * ed.frame_width
    distance = f * extent / (config.board_scale * min(width, height))
    tilt, az = math.radians(config.tilt), math.radians(config.tilt_azimuth)
    target = np.array([SIZE / 2.0, SIZE / 2.0, 0.0])
    away = np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az),
                     -math.cos(tilt)])
    centre = target + distance * away
    forward = -away
    lean = _rodrigues(np.cross([0.0, 0.0, 1.0], forward), tilt)
    x_axis, y_axis = lean @ np.array([1.0, 0, 0]), lean @ np.array([0, 1.0, 0])
    roll = math.radians(config.rotation)
    # Rolling the camera clockwise about its axis turns the picture counter-clockwise.
    x_cam = math.cos(roll) * x_axis + math.sin(roll) * y_axis
    y_cam = -math.sin(roll) * x_axis + math.cos(roll) * y_axis
    rot = np.vstack([x_cam, y_cam, forward])
    t = -rot @ centre
    cam = _Camera(k, rot, t, np.eye(3))

    # Fit the board's outline into the picture: zoom, then shift within the room left.
    fwid = ed.frame_width
    outline = np.array([[-fwid, -fwid], [SIZE + fwid, -fwid], [SIZE + fwid, SIZE + fwid],
                        [-fwid, SIZE + fwid]], np.float64).reshape(-1, 1, 2)
    pts = cv2.perspectiveTransform(outline, cam.plane(_BOARD_THICKNESS)).reshape(-1, 2)
    lo, hi = pts.min(0), pts.max(0)
    span = hi - lo
    scale = config.board_scale * min(width / span[0], height / span[1])
    room = np.array([width, height]) - span * scale
    mid = np.array([width / 2.0, height / 2.0]) + np.asarray(config.board_offset) * room / 2.0
    shift = mid - (lo + hi) / 2.0 * scale
    post = np.array([[scale, 0, shift[0]], [0, scale, shift[1]], [0, 0, 1.0]])
    return _Camera(k, rot, t, post)


# --------------------------------------------------------------------------------------------
# Lens distortion


@cache
def _distortion_maps(size: tuple[int, int], k1: float) -> tuple[np.ndarray, np.ndarray]:
    width, height = size
    cx, cy = (width - 1) / 2.0, (height - 1) / 2.0
    norm = math.hypot(cx, cy)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    dx, dy = xs - cx, ys - cy
    r2 = (dx * dx + dy * dy) / (norm * norm)
    # Output pixel at radius r shows what the pinhole saw at r * (1 + k1 r^2), scaled so the
    # picture's corners stay filled.
    factor = (1.0 + k1 * r2) / (1.0 + k1)
    return (cx + dx * factor).astype(np.float32), (cy + dy * factor).astype(np.float32)


def _distort_points(points: np.ndarray, size: tuple[int, int], k1: float) -> np.ndarray:
    """Where undistorted image points land in the distorted picture."""
    if k1 == 0.0:
        return np.asarray(points, np.float64)
    width, height = size
    centre = np.array([(width - 1) / 2.0, (height - 1) / 2.0])
    norm = math.hypot(*centre)
    u = (np.asarray(points, np.float64) - centre)
    d = u.copy()
    for _ in range(30):
        r2 = (d ** 2).sum(1, keepdims=True) / norm ** 2
        d = u * (1.0 + k1) / (1.0 + k1 * r2)
    return d + centre


# --------------------------------------------------------------------------------------------
# Table


def _periodic_noise(rng: np.random.Generator, shape: tuple[int, int], sigma_y: float,
                    sigma_x: float) -> np.ndarray:
    """Smooth noise that wraps around seamlessly (unit variance), with features about
    ``sigma_y`` by ``sigma_x`` pixels: white noise low-passed in the frequency domain."""
    h, w = shape
    white = rng.standard_normal((h, w))
    fy = np.fft.fftfreq(h)[:, None]
    fx = np.fft.fftfreq(w)[None, :]
    gain = np.exp(-2.0 * math.pi ** 2 * ((fy * sigma_y) ** 2 + (fx * sigma_x) ** 2))
    smooth = np.fft.ifft2(np.fft.fft2(white) * gain).real
    smooth -= smooth.mean()
    return (smooth / (smooth.std() + 1e-12)).astype(np.float32)


@cache
def _table_texture(kind: str, seed: int) -> tuple[np.ndarray, float]:
    """A seamlessly tiling texture of the table top and its pixels per square."""
    rng = np.random.default_rng([seed, 0x7AB1E])
    n = 512
    if kind == "wood":
        base = np.array(rng.choice([(60, 100, 150), (45, 75, 120), (90, 140, 185),
                                    (30, 55, 95)]), np.float32)
        ys = np.mgrid[0:n, 0:n][0].astype(np.float32)
        # Grain runs along x: features are long in x, narrow in y.
        bend = _periodic_noise(rng, (n, n), 40.0, 120.0)
        rings = np.sin(ys / n * 2 * math.pi * 12 + bend * 3.0)
        fibres = _periodic_noise(rng, (n, n), 0.8, 40.0)
        tone = 1.0 + 0.07 * rings + 0.07 * fibres
        planks = (ys.astype(np.int32) % (n // 4)) < 2  # seams between planks
        tone[planks] *= 0.55
        plank_tone = rng.normal(0, 0.05, 4).astype(np.float32)
        tone *= 1.0 + plank_tone[(ys.astype(np.int32) // (n // 4)) % 4]
        tex = base * tone[..., None]
        per_square = 10.0
    elif kind == "carpet":
        n = 1024
        base = np.array(rng.choice([(120, 130, 145), (95, 115, 135), (150, 155, 160),
                                    (80, 100, 125)]), np.float32)
        speck = _periodic_noise(rng, (n, n), 1.2, 1.2)
        tufts = _periodic_noise(rng, (n, n), 3.0, 3.0)
        low = _periodic_noise(rng, (n, n), 60.0, 60.0)
        tex = base * (1.0 + 0.09 * speck + 0.09 * tufts + 0.04 * low)[..., None]
        per_square = 32.0
    elif kind == "cloth":
        base = np.array(rng.choice([(200, 215, 222), (185, 200, 210), (220, 220, 215)]),
                        np.float32)
        ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
        weave = 0.03 * np.sin(xs * 2 * math.pi / 4) * np.sin(ys * 2 * math.pi / 4)
        low = _periodic_noise(rng, (n, n), 30.0, 30.0)
        folds = _periodic_noise(rng, (n, n), 18.0, 45.0)
        tex = base * (1.0 + weave + 0.03 * low + 0.025 * folds)[..., None]
        per_square = 24.0
    else:
        base = np.array(rng.choice([(180, 182, 185), (120, 122, 125), (210, 205, 200)]),
                        np.float32)
        low = _periodic_noise(rng, (n, n), 50.0, 50.0)
        fine = _periodic_noise(rng, (n, n), 0.6, 0.6)
        tex = base * (1.0 + 0.03 * low + 0.01 * fine)[..., None]
        per_square = 10.0
    return np.clip(tex, 0, 255).astype(np.uint8), per_square


# --------------------------------------------------------------------------------------------
# Frames


def render_board(rows: Sequence[str], *, tileset: str = "en", edition: str = "green",
                 seed: int = 0, config: RenderConfig | None = None) -> RenderedPhoto:
    """A photo of the position ``rows`` on a board of ``edition``.

    Without ``config`` a varied realistic one is drawn from ``seed``
    (:meth:`RenderConfig.random`).  The same arguments always give the same picture.
    """
    if config is None:
        config = RenderConfig.random(seed)
    flat = render_flat(rows, tileset=tileset, edition=edition, seed=seed, config=config)
    return render_frame(flat, config, seed=seed)


def render_frame(flat: FlatBoard, config: RenderConfig, *, seed: int = 0,
                 hand: HandPose | None | str = "auto") -> RenderedPhoto:
    """Photograph a flat board through the camera and light of ``config``.

    ``hand`` is a :class:`HandPose`, None for no hand, or ``"auto"`` for a hand placed from
    ``config.scene_seed`` when ``config.hand`` is set.  ``seed`` draws the sensor noise.
    Frames that share the flat board and the camera reuse the projected scene, so only light,
    hand and sensor are redone (what an animation with a fixed camera needs).
    """
    width, height = config.size
    cam = _camera(config, flat.edition)
    scene_key = (flat.key, config.size, config.tilt, config.tilt_azimuth, config.rotation,
                 config.fov, config.board_scale, config.board_offset, config.tile_height,
                 config.table, config.scene_seed % 8)
    cached = _SCENE_CACHE.get(scene_key)
    if cached is not None:
        _SCENE_CACHE.move_to_end(scene_key)
        image = cached.copy()
    else:
        image = _scene(flat, config, cam)
        _SCENE_CACHE[scene_key] = image.copy()
        if len(_SCENE_CACHE) > _SCENE_CACHE_SIZE:
            _SCENE_CACHE.popitem(last=False)

    grid_h = cam.plane(_BOARD_THICKNESS)
    hand_mask = None
    if hand == "auto":
        hand = _random_hand(config, grid_h) if config.hand else None
    if hand is not None:
        hand_mask = _draw_hand(image, hand, config, flat, grid_h)

    if config.k1 != 0.0:
        map_x, map_y = _distortion_maps((width, height), float(config.k1))
        image = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        if hand_mask is not None:
            hand_mask = cv2.remap(hand_mask, map_x, map_y, cv2.INTER_NEAREST)
    image = _sensor(_photograph(image, config, flat.edition.gloss), config, seed)

    corners_world = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], np.float64)
    undistorted = cv2.perspectiveTransform(corners_world.reshape(-1, 1, 2), grid_h).reshape(-1, 2)
    corners = _distort_points(undistorted, config.size, config.k1).astype(np.float32)
    return RenderedPhoto(image=image, corners=corners, config=config, homography=grid_h,
                         hand_mask=hand_mask)


_SCENE_CACHE: OrderedDict[tuple, np.ndarray] = OrderedDict()
_SCENE_CACHE_SIZE = 4


def _scene(flat: FlatBoard, config: RenderConfig, cam: _Camera) -> np.ndarray:
    """Table, board and tiles seen through the camera, before light, hand and sensor."""
    width, height = config.size
    to_canvas = np.linalg.inv(flat.world_to_canvas())
    image = _table(config, cam, width, height)
    h_board = cam.plane(_BOARD_THICKNESS) @ to_canvas
    h_base = cam.plane(0.0) @ to_canvas
    whole = (0, 0, flat.canvas_size, flat.canvas_size)
    roi = _roi([h_board, h_base], whole, width, height)
    if roi is None:
        return image
    # The board's cardboard edge shows between the table and its printed top, when the
    # camera leans enough to see it.
    if _displacement(h_base, h_board, flat) > 0.6:
        _composite(image, flat.board_edge, h_base, roi)
    _composite(image, flat.board, h_board, roi)
    # Tiles: their sides as copies of the tops at lower heights, darker, then the tops.
    layers = [(cam.plane(_BOARD_THICKNESS + config.tile_height * frac) @ to_canvas, shade)
              for frac, shade in ((0.0, 0.55), (0.5, 0.7), (1.0, 1.0))]
    tiles_roi = (_roi([h for h, _ in layers], flat.tiles_box, width, height)
                 if flat.tiles_box else None)
    if tiles_roi is not None:
        for h_tiles, shade in layers:
            _composite(image, flat.tiles, h_tiles, tiles_roi, shade=shade)
    return image


def _displacement(h_a: np.ndarray, h_b: np.ndarray, flat: FlatBoard) -> float:
    """Largest image distance between where two homographies put the canvas corners."""
    n = flat.canvas_size
    corners = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64).reshape(-1, 1, 2)
    a = cv2.perspectiveTransform(corners, h_a)
    b = cv2.perspectiveTransform(corners, h_b)
    return float(np.abs(a - b).max())


def grid_corners(config: RenderConfig, edition: str = "green") -> np.ndarray:
    """Where the playing grid's corners (TL, TR, BR, BL) land in a photo taken with
    ``config``, without rendering it (float32, shape (4, 2))."""
    cam = _camera(config, find_edition(edition))
    corners_world = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], np.float64)
    undistorted = cv2.perspectiveTransform(corners_world.reshape(-1, 1, 2),
                                           cam.plane(_BOARD_THICKNESS)).reshape(-1, 2)
    return _distort_points(undistorted, config.size, config.k1).astype(np.float32)


def _roi(homographies: list[np.ndarray], box: tuple[int, int, int, int], width: int,
         height: int) -> tuple[int, int, int, int] | None:
    """Bounding box (x0, y0, x1, y1) in the image of a canvas box under the homographies."""
    bx0, by0, bx1, by1 = box
    corners = np.array([[bx0, by0], [bx1, by0], [bx1, by1], [bx0, by1]],
                       np.float64).reshape(-1, 1, 2)
    pts = np.vstack([cv2.perspectiveTransform(corners, h).reshape(-1, 2) for h in homographies])
    x0, y0 = np.floor(pts.min(0)).astype(int)
    x1, y1 = np.ceil(pts.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
    if x0 >= x1 or y0 >= y1:
        return None
    return x0, y0, x1, y1


def _composite(image: np.ndarray, layer: np.ndarray, h: np.ndarray,
               roi: tuple[int, int, int, int], shade: float = 1.0) -> None:
    """Warp a premultiplied BGRA layer with ``h`` and lay it over ``image`` inside ``roi``."""
    x0, y0, x1, y1 = roi
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
    warped = cv2.warpPerspective(layer, shift @ h, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    # Channel views of a BGRA array are slow in OpenCV: split into planes instead.
    planes = cv2.split(warped)
    alpha = planes[3]
    if not cv2.countNonZero(alpha):
        return
    region = image[y0:y1, x0:x1]
    colour = cv2.merge(planes[:3])
    if shade != 1.0:
        colour = cv2.convertScaleAbs(colour, alpha=shade)
    keep = cv2.cvtColor(255 - alpha, cv2.COLOR_GRAY2BGR)
    region[:] = cv2.add(cv2.multiply(region, keep, scale=1.0 / 255.0), colour)


def _table(config: RenderConfig, cam: _Camera, width: int, height: int) -> np.ndarray:
    # A handful of textures per kind is variety enough, and keeps them cached.
    tex, per_square = _table_texture(config.table, config.scene_seed % 8)
    tex_to_world = np.array([[1 / per_square, 0, -40.0], [0, 1 / per_square, -40.0], [0, 0, 1]])
    h = cam.plane(0.0) @ tex_to_world
    return cv2.warpPerspective(tex, h, (width, height), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_WRAP)


def _photograph(image: np.ndarray, config: RenderConfig, gloss: float) -> np.ndarray:
    """The lamp: overall gradient and vignette, shadows, glare, exposure and white balance.

    Returns the lit picture as float32 (0..255, not yet clipped)."""
    width, height = config.size
    sw, sh = max(8, width // 8), max(8, height // 8)
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
    nx, ny = (xs + 0.5) / sw - 0.5, (ys + 0.5) / sh - 0.5
    a = math.radians(config.gradient_angle)
    gain = 1.0 + config.light_gradient * 2.0 * (nx * math.cos(a) + ny * math.sin(a))
    gain *= 1.0 - config.vignette * (nx * nx + ny * ny) * 2.0
    if config.shadows:
        rng = np.random.default_rng([config.scene_seed, 0x5AD0])
        mask = np.zeros((sh, sw), np.float32)
        for _ in range(config.shadows):
            centre = rng.uniform(0.0, 1.0, 2) * (sw, sh)
            k = int(rng.integers(4, 8))
            angles = np.sort(rng.uniform(0, 2 * math.pi, k))
            radius = rng.uniform(0.2, 0.6) * max(sw, sh)
            pts = np.stack([centre[0] + np.cos(angles) * radius * rng.uniform(0.5, 1.2, k),
                            centre[1] + np.sin(angles) * radius * rng.uniform(0.5, 1.2, k)], 1)
            cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), max(sw, sh) * 0.04)
        gain *= 1.0 - config.shadow_strength * np.clip(mask, 0, 1)
    gain = np.clip(gain * config.exposure, 0.05, 3.0).astype(np.float32)
    gain = cv2.resize(gain, (width, height), interpolation=cv2.INTER_LINEAR)
    wb = config.white_balance
    gain3 = cv2.merge([gain * float(wb[0]), gain * float(wb[1]), gain * float(wb[2])])
    out = cv2.multiply(image.astype(np.float32), gain3)
    if config.glare > 0.0:
        r = config.glare_size * min(width, height)
        gx, gy = config.glare_pos[0] * width, config.glare_pos[1] * height
        rng = np.random.default_rng([config.scene_seed, 0x61A2E])
        ratio, tilt = rng.uniform(0.4, 1.0), rng.uniform(0, math.pi)
        px, py = (xs + 0.5) * width / sw - gx, (ys + 0.5) * height / sh - gy
        u = (px * math.cos(tilt) + py * math.sin(tilt)) / r
        v = (-px * math.sin(tilt) + py * math.cos(tilt)) / (r * ratio)
        blob = np.exp(-(u * u + v * v) * 1.5) + 0.6 * np.exp(-(u * u + v * v) * 8.0)
        strength = config.glare * (0.5 + 0.5 * gloss) * np.clip(blob, 0, 1.2)
        strength = cv2.resize(strength.astype(np.float32), (width, height),
                              interpolation=cv2.INTER_LINEAR)
        # A reflection washes colours out toward white.
        keep = cv2.merge([1.0 - 0.75 * np.clip(strength, 0, 1)] * 3)
        out = cv2.multiply(out, keep)
        out = cv2.add(out, cv2.merge([strength * (255.0 * 0.85)] * 3))
    return out


@cache
def _noise_field(width: int, height: int) -> np.ndarray:
    """Sensor noise (unit luma plus blotchy chroma), larger than the picture so that frames
    can take shifted windows of it."""
    rng = np.random.default_rng(0x401E)
    h, w = height + 64, width + 64
    # Demosaicing and the camera's own denoising leave grain a little wider than a pixel.
    luma = cv2.GaussianBlur(rng.standard_normal((h, w), np.float32), (0, 0), 0.6)
    luma /= luma.std()
    chroma = rng.standard_normal((h // 2 + 1, w // 2 + 1, 3), np.float32)
    chroma = cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
    chroma /= chroma.std()
    return np.ascontiguousarray(0.8 * luma[..., None] + 0.6 * chroma)


def _sensor(image: np.ndarray, config: RenderConfig, seed: int) -> np.ndarray:
    """Focus, motion, noise and JPEG, on the lit float32 picture."""
    if config.defocus > 0.05:
        image = cv2.GaussianBlur(image, (0, 0), config.defocus)
    if config.motion_blur >= 1.0:
        length = int(round(config.motion_blur))
        kernel = np.zeros((length * 2 + 1, length * 2 + 1), np.float32)
        a = math.radians(config.motion_angle)
        c = length
        dx, dy = math.cos(a) * length / 2.0, math.sin(a) * length / 2.0
        cv2.line(kernel, (int(round(c - dx)), int(round(c - dy))),
                 (int(round(c + dx)), int(round(c + dy))), 1.0, 1, cv2.LINE_AA)
        kernel /= kernel.sum()
        image = cv2.filter2D(image, -1, kernel)
    if config.sharpen > 0.0:
        soft = cv2.GaussianBlur(image, (0, 0), 1.5)
        image = cv2.addWeighted(image, 1.0 + config.sharpen, soft, -config.sharpen, 0.0)
    if config.noise > 0.0:
        h, w = image.shape[:2]
        field_ = _noise_field(w, h)
        rng = np.random.default_rng([seed, config.scene_seed, 0x401E])
        dx, dy = (int(v) for v in rng.integers(0, 64, 2))
        image = cv2.scaleAdd(field_[dy: dy + h, dx: dx + w], float(config.noise), image)
    image = np.clip(image, 0, 255, out=image).astype(np.uint8)
    if config.jpeg_quality > 0:
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, config.jpeg_quality])
        if not ok:
            raise RenderError("JPEG encoding failed")
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return image


# --------------------------------------------------------------------------------------------
# Hands


_SKINS: tuple[BGR, ...] = ((150, 175, 225), (125, 155, 210), (100, 135, 190), (70, 100, 150),
                           (45, 65, 105))
_SLEEVES: tuple[BGR | None, ...] = (None, (90, 60, 40), (40, 40, 40), (200, 200, 205),
                                    (60, 40, 130), (50, 110, 60))


def _square_px(grid_h: np.ndarray) -> float:
    """Side of a square in image pixels near the middle of the board."""
    pts = np.array([[7, 7], [8, 7], [7, 8]], np.float64).reshape(-1, 1, 2)
    p = cv2.perspectiveTransform(pts, grid_h).reshape(-1, 2)
    return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 2.0)


def hand_towards(target: tuple[float, float], config: RenderConfig, grid_h: np.ndarray,
                 *, seed: int, holding: str | None = None, edge: int | None = None) -> HandPose:
    """A hand reaching to image point ``target`` from an edge of the picture (0: bottom,
    1: right, 2: top, 3: left; random when None), sized for the board's scale."""
    rng = np.random.default_rng([seed, 0x4A4D])
    width, height = config.size
    if edge is None:
        edge = int(rng.choice([0, 0, 0, 1, 2, 3]))
    t = rng.uniform(0.25, 0.75)
    start = [(t * width, height * 1.3), (width * 1.3, t * height), (t * width, -0.3 * height),
             (-0.3 * width, t * height)][edge]
    angle = math.degrees(math.atan2(target[1] - start[1], target[0] - start[0]))
    angle += rng.normal(0, 8)
    return HandPose(tip=(float(target[0]), float(target[1])), angle=angle,
                    size=_square_px(grid_h) * rng.uniform(4.0, 5.0),
                    skin=_SKINS[int(rng.integers(0, len(_SKINS)))],
                    sleeve=_SLEEVES[int(rng.integers(0, len(_SLEEVES)))],
                    curl=float(rng.uniform(0.2, 0.9)), holding=holding)


def _random_hand(config: RenderConfig, grid_h: np.ndarray) -> HandPose:
    rng = np.random.default_rng([config.scene_seed, 0x4A4E])
    square = rng.uniform(1.0, SIZE - 1.0, 2)
    tip = cv2.perspectiveTransform(square.reshape(1, 1, 2), grid_h).reshape(2)
    return hand_towards((float(tip[0]), float(tip[1])), config, grid_h,
                        seed=config.scene_seed)


def _capsule_height(u: np.ndarray, v: np.ndarray, a: tuple[float, float],
                    b: tuple[float, float], r0: float, r1: float) -> np.ndarray:
    """Height (0..1) of a rounded limb from ``a`` to ``b`` whose radius runs r0 -> r1: a
    half-cylinder with round ends, in the hand's own units."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    length2 = dx * dx + dy * dy
    t = np.clip(((u - ax) * dx + (v - ay) * dy) / length2, 0.0, 1.0)
    px, py = u - (ax + t * dx), v - (ay + t * dy)
    radius = r0 + (r1 - r0) * t
    q = 1.0 - (px * px + py * py) / (radius * radius)
    return np.sqrt(np.clip(q, 0.0, 1.0))


def _hand_parts(pose: HandPose) -> tuple[list[tuple], list[tuple]]:
    """Skin limbs and sleeve limbs of a hand, in units of the palm width with the index
    fingertip at the origin and the fingers pointing along +u (v: toward the little finger)."""
    curl = pose.curl
    skin = [
        # index finger: knuckle to the tip
        ((-0.95, -0.02), (-0.09, 0.0), 0.105, 0.09),
        # middle, ring and little fingers, shorter the more they curl under the palm
        ((-0.95, 0.2), (-0.2 - 0.3 * curl, 0.2), 0.11, 0.095),
        ((-1.0, 0.4), (-0.32 - 0.3 * curl, 0.4), 0.105, 0.09),
        ((-1.1, 0.57), (-0.5 - 0.25 * curl, 0.58), 0.09, 0.075),
        # thumb, from the heel of the hand toward the fingertip
        ((-1.25, -0.3), (-0.62, -0.32), 0.14, 0.12),
        ((-0.62, -0.32), (-0.12, -0.17), 0.12, 0.1),
        # palm: two broad limbs make a rounded, slightly tapering block
        ((-1.35, 0.18), (-0.95, 0.22), 0.44, 0.42),
        ((-1.3, 0.05), (-0.9, 0.3), 0.36, 0.36),
        # wrist and forearm, widening toward the elbow
        ((-1.6, 0.16), (-9.0, 0.2), 0.3, 0.48),
    ]
    sleeve = [((-2.7, 0.17), (-9.5, 0.2), 0.5, 0.6)] if pose.sleeve is not None else []
    return skin, sleeve


def _draw_hand(image: np.ndarray, pose: HandPose, config: RenderConfig, flat: FlatBoard | None,
               grid_h: np.ndarray, *, lift: float = 0.35) -> np.ndarray:
    """Draw a hand (with its shadow and any held tile) on ``image``; return its mask.

    The hand is a height field of rounded limbs (fingers, thumb, palm, forearm): lighting it
    by height gives the creases between fingers and the darker outline of a real hand.  All
    the work happens inside the box the hand and its shadow cover.  ``lift`` is how far the
    shadow falls from the hand, in palm widths (a hand resting on the board casts it close);
    ``flat`` is needed only for a held tile (:mod:`sim.hands` pastes hands without one)."""
    height, width = image.shape[:2]
    mask_out = np.zeros((height, width), np.uint8)
    s = float(pose.size)
    a = math.radians(pose.angle)
    fwd = np.array([math.cos(a), math.sin(a)])
    side = np.array([-fwd[1], fwd[0]])
    tip = np.asarray(pose.tip, np.float64)
    skin_parts, sleeve_parts = _hand_parts(pose)

    light = _light_vector(config.light_azimuth)
    board_dir = grid_h[:2, :2] @ light  # lamp direction in image space (roughly)
    board_dir /= np.linalg.norm(board_dir) + 1e-9
    offset = -board_dir * lift * s
    blur = 0.18 * s * max(lift / 0.35, 0.25)

    # The box the limbs (and their shadow) can reach, clipped to the picture.
    ends = np.array([p for p0, p1, _, _ in skin_parts + sleeve_parts for p in (p0, p1)])
    pts = tip + np.outer(ends[:, 0], fwd) * s + np.outer(ends[:, 1], side) * s
    margin = 0.65 * s + abs(offset).max() + 3 * blur
    x0 = int(max(0, math.floor(pts[:, 0].min() - margin)))
    y0 = int(max(0, math.floor(pts[:, 1].min() - margin)))
    x1 = int(min(width, math.ceil(pts[:, 0].max() + margin)))
    y1 = int(min(height, math.ceil(pts[:, 1].max() + margin)))
    if x0 >= x1 or y0 >= y1:
        return mask_out
    rw, rh = x1 - x0, y1 - y0

    # The field is computed at half resolution: it is smooth, and this is a per-frame path.
    step = 2
    hh, hw = (rh + step - 1) // step, (rw + step - 1) // step
    ys, xs = np.mgrid[0:hh, 0:hw].astype(np.float32)
    # Python floats keep the arrays float32 (NumPy scalars would promote them).
    fx, fy, sx, sy = (float(t) for t in (*fwd, *side))
    dx = (xs * step + (x0 + (step - 1) / 2.0 - float(tip[0]))) / s
    dy = (ys * step + (y0 + (step - 1) / 2.0 - float(tip[1]))) / s
    u = dx * fx + dy * fy
    v = dx * sx + dy * sy
    skin_h = np.zeros((hh, hw), np.float32)
    for p0, p1, r0, r1 in skin_parts:
        skin_h = np.maximum(skin_h, _capsule_height(u, v, p0, p1, r0, r1))
    sleeve_h = np.zeros((hh, hw), np.float32)
    for p0, p1, r0, r1 in sleeve_parts:
        sleeve_h = np.maximum(sleeve_h, _capsule_height(u, v, p0, p1, r0, r1))
    # Coverage, anti-aliased: a limb's height rises steeply from its outline.
    edge = max(1.0, s * 0.012) / step
    skin_a = np.clip(skin_h * (s / step) * 0.5 / edge, 0.0, 1.0)
    sleeve_a = np.clip(sleeve_h * (s / step) * 0.5 / edge, 0.0, 1.0)
    cover_half = np.maximum(skin_a, sleeve_a)

    # The hand's shadow, offset away from the lamp and soft (the hand is well above the board).
    m = np.float32([[1, 0, offset[0] / step], [0, 1, offset[1] / step]])
    shadow = cv2.warpAffine(cover_half, m, (hw, hh))
    shadow = cv2.GaussianBlur(shadow, (0, 0), blur / step)

    rng = np.random.default_rng([config.scene_seed, 0x5C1])
    tone = cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (hw, hh),
                      interpolation=cv2.INTER_LINEAR)
    lit = (0.58 + 0.5 * skin_h ** 0.7 + 0.08 * skin_h ** 12) * (1 + 0.04 * tone)
    # Nearer the camera than the board, so a little out of focus.
    lit = cv2.GaussianBlur(lit, (0, 0), max(0.5, s * 0.006 / step))
    folds = cv2.resize(rng.normal(0, 1, (5, 5)).astype(np.float32), (hw, hh),
                       interpolation=cv2.INTER_LINEAR)
    cloth = (0.5 + 0.55 * sleeve_h ** 0.6) * (1.0 + 0.08 * folds)

    def full(field: np.ndarray) -> np.ndarray:
        return cv2.resize(field, (rw, rh), interpolation=cv2.INTER_LINEAR)

    region = image[y0:y1, x0:x1]
    dark = full(1.0 - 0.45 * shadow)
    img_f = cv2.multiply(region.astype(np.float32), cv2.merge([dark, dark, dark]))
    if pose.holding is not None and flat is not None:
        _draw_held_tile(img_f, (x0, y0), pose, config, flat, grid_h, fwd, side, tip, s)
    lit, skin_a = full(lit), full(skin_a)
    skin = cv2.merge([lit * float(c) for c in pose.skin])
    img_f = cv2.blendLinear(skin, img_f, skin_a, 1.0 - skin_a)
    if pose.sleeve is not None:
        cloth, sleeve_a = full(cloth), full(sleeve_a)
        sleeve = cv2.merge([cloth * float(c) for c in pose.sleeve])
        img_f = cv2.blendLinear(sleeve, img_f, sleeve_a, 1.0 - sleeve_a)
    region[:] = np.clip(img_f, 0, 255).astype(np.uint8)
    mask_out[y0:y1, x0:x1] = (full(cover_half) > 0.5).astype(np.uint8) * 255
    return mask_out


#: How far ahead of the fingertip a held tile's middle is, in squares.
_HELD_TILE_AHEAD = 0.4


def _draw_held_tile(img_f: np.ndarray, origin: tuple[int, int], pose: HandPose,
                    config: RenderConfig, flat: FlatBoard, grid_h: np.ndarray, fwd: np.ndarray,
                    side: np.ndarray, tip: np.ndarray, s: float) -> None:
    """A tile pinched between thumb and index finger, a little larger (nearer the camera).
    ``img_f`` is a float32 region of the picture whose top-left pixel is ``origin``."""
    square = _square_px(grid_h) * 1.12
    tiles = TileSet.named(flat.tileset)
    letter = None if is_blank(pose.holding) else pose.holding
    value = tiles.value(pose.holding) if letter and config.show_values else None
    rng = np.random.default_rng([config.scene_seed, 0x7113])
    sprite = _tile_sprite(letter, value, flat.tile_style, config.font, square * config.tile_size,
                          _light_vector(config.light_azimuth), config.tile_color_jitter, rng)
    # Orient the tile the way the board runs in the picture.
    board_angle = math.degrees(math.atan2(grid_h[1, 0], grid_h[0, 0]))
    centre = tip + fwd * (_HELD_TILE_AHEAD * square) + side * (-0.05 * s)
    _place_sprite(img_f, sprite, (float(centre[0] - origin[0]), float(centre[1] - origin[1])),
                  board_angle)


# --------------------------------------------------------------------------------------------
# Animation


def animate_move(prev_rows: Sequence[str], next_rows: Sequence[str], seed: int, *,
                 tileset: str = "en", edition: str = "green",
                 config: RenderConfig | None = None, approach_frames: int = 8,
                 hold_frames: int = 4, still_frames: int = 10) -> Iterator[np.ndarray]:
    """Frames of a hand laying the tiles that ``next_rows`` adds to ``prev_rows``, one by one.

    The hand comes in from the player's side, pauses over each square, leaves the tile and
    goes on to the next; then it withdraws and the board stays still for ``still_frames``.
    The light drifts slowly throughout.  Squares that differ by anything other than a new
    tile (a tile removed or changed) are simply shown in their new state.
    """
    tiles = TileSet.named(tileset)
    prev = _check_rows(prev_rows, tiles)
    nxt = _check_rows(next_rows, tiles)
    if config is None:
        config = replace(RenderConfig.random(seed, max_tilt=20), hand=False, motion_blur=0.0)
    placed = [(r, c) for r in range(SIZE) for c in range(SIZE)
              if prev[r][c] == "." and nxt[r][c] != "."]
    current = [list(row) for row in prev]
    # Tiles the new position changes in other ways appear at once.
    for r in range(SIZE):
        for c in range(SIZE):
            if (r, c) not in placed:
                current[r][c] = nxt[r][c]
    rng = np.random.default_rng([seed, 0xA1])
    edge = int(rng.choice([0, 0, 1, 3]))
    frame_no = 0

    def frame(hand: HandPose | None) -> np.ndarray:
        nonlocal frame_no
        drift = replace(config, gradient_angle=config.gradient_angle + 1.5 * frame_no,
                        exposure=config.exposure * (1.0 + 0.02 * math.sin(frame_no / 9.0)),
                        glare_pos=(config.glare_pos[0] + 0.002 * frame_no, config.glare_pos[1]))
        flat = render_flat(["".join(row) for row in current], tileset=tileset, edition=edition,
                           seed=seed, config=drift)
        photo = render_frame(flat, drift, seed=seed * 1000 + frame_no, hand=hand)
        frame_no += 1
        return photo.image

    cam = _camera(config, find_edition(edition))
    grid_h = cam.plane(_BOARD_THICKNESS + config.tile_height)
    width, height = config.size
    reach = 1.3 * max(width, height)  # far enough back that the hand is out of the picture

    def pose_for(r: int, c: int, holding: str | None) -> HandPose:
        """The hand with the held tile's middle over square (r, c)."""
        target = cv2.perspectiveTransform(np.array([[[c + 0.5, r + 0.5]]], np.float64),
                                          grid_h).reshape(2)
        pose = hand_towards((float(target[0]), float(target[1])), config, grid_h, seed=seed,
                            edge=edge, holding=holding)
        a = math.radians(pose.angle)
        tip = target - np.array([math.cos(a), math.sin(a)]) * _HELD_TILE_AHEAD * _square_px(
            grid_h) * 1.12
        return replace(pose, tip=(float(tip[0]), float(tip[1])))

    def moved(pose: HandPose, tip: np.ndarray, holding: str | None) -> HandPose:
        return replace(pose, tip=(float(tip[0]), float(tip[1])), holding=holding)

    def direction(pose: HandPose) -> np.ndarray:
        a = math.radians(pose.angle)
        return np.array([math.cos(a), math.sin(a)])

    pose: HandPose | None = None
    for r, c in placed:
        letter = nxt[r][c]
        goal = pose_for(r, c, letter)
        target = np.array(goal.tip)
        start = target - direction(goal) * reach if pose is None else np.array(pose.tip)
        for k in range(1, approach_frames + 1):
            t = k / approach_frames
            ease = t * t * (3 - 2 * t)
            yield frame(moved(goal, start + (target - start) * ease, letter))
        for _ in range(hold_frames // 2):
            yield frame(goal)
        current[r][c] = letter
        lifted = target - direction(goal) * 0.15 * goal.size
        pose = moved(goal, lifted, None)
        for _ in range(hold_frames - hold_frames // 2):
            yield frame(pose)
    if pose is not None:
        start = np.array(pose.tip)
        away = start - direction(pose) * reach
        for k in range(1, approach_frames + 1):
            t = k / approach_frames
            yield frame(moved(pose, start + (away - start) * t * t, None))
    for _ in range(still_frames):
        yield frame(None)


def config_summary(config: RenderConfig) -> str:
    """A one-line description of the settings that matter most for recognition."""
    d = asdict(config)
    keys = ("tilt", "rotation", "board_scale", "k1", "glare", "noise", "defocus", "motion_blur",
            "jpeg_quality", "font", "tile_style", "hand", "table")
    parts = []
    for k in keys:
        v = d[k]
        parts.append(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}")
    return " ".join(parts)
