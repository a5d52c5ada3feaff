"""The labelled real photos seen otherwise: tilted further, smaller, compressed, dimmer, under a
warm lamp, turned, their tiles askew, under a hand, a shadow or a lamp's glare, through a
distorting lens, on a board that is not flat, out of focus, in other light, through haze, grainy.
What a different phone or a different table would do to the same tiles.

    .venv/bin/python bench/eval_real_views.py [--sets ...] [--every N] [--views ...]
        [--draws N] [--jobs 2]

One draw of a view drawn at random (where a hand, a glare or a shadow lies) may miss where
it hurts: ``--draws 4`` reads each photo under four.

The photos and their known boards are those of ``bench/eval_real.py`` (``../shared/data/
photos/`` beside the repository; the run says so and stops, with status 0, where it is absent).
Each photo is read uncalibrated (``read_board(image, None, tileset)``, what ``tilecam read
--no-dictionary`` does on a first photo) as taken and in each of these views:

``tilted``
    The camera turned a further 12 degrees about its horizontal axis (the far edge of the
    board recedes), then 12 degrees about its vertical axis: a homography ``K R K^-1`` of the
    photo, which is exactly the picture a camera turned about its centre takes, tiles standing
    up from the board included (a turn about the centre shows no parallax).  The focal length
    is taken as the photo's longer side (a phone's usual field of view); the picture is then
    shifted so that the whole board stays inside it.
``steep``
    The board seen from lower down: the picture warped so that the board's quadrilateral
    becomes a trapezoid whose far edge is 0.65 of its near edge and whose depth is 0.6 of its
    width, as a phone about 50 degrees from overhead sees it (a homography of the board's
    plane: exact for the board, the tiles' faces a few millimetres above it shift a little less
    than they would).  The far rows are left with fewer pixels, as in such a photo.
``1080p``
    Scaled down so that its longer side is 1920 pixels (``INTER_AREA``), as a video frame.
``small``
    Scaled down so that the board is about 250 pixels across: a phone held far away, or a
    webcam over a whole table.
``jpeg``
    Compressed again at JPEG quality 35, as a messaging app sends a photo.
``dim``
    A dim room: levels multiplied by 0.45 and gamma 1.3, with sensor noise (sigma 3 levels).
``warm``
    A tungsten lamp without white balance: blue times 0.7, green times 0.9.
``turned``
    Turned a quarter (``cv2.ROTATE_90_CLOCKWISE``): a phone held the other way.
``diagonal``
    Turned 20 to 45 degrees either way (drawn per photo) about the picture's centre, on a
    picture grown to hold all of it (its edges repeated outward): a board lying aslant on the
    table before a player who photographs it from their seat.
``askew``
    Each tile's letter turned about the tile's centre by 6 to 12 degrees either way (drawn per
    tile): tiles laid by hand at a real table lie askew, more than the renderer that makes the
    stock letters' photos turns them (up to 4 degrees).  What is turned is the disc of the
    face inside the square (radius 0.45 of a square, in the board's plane, through the
    photo's own perspective); the tile's edges stay.
``hand``
    A hand over a fifth of the grid, reaching in from the picture's edge
    (:func:`sim.hands.paste_hand`: shaded skin of one of five tones, a shadow, the photo's
    grain): a player still placing when the photo was taken.  The squares under it cannot be
    read; what counts is that they are said to be covered (flagged), and no letter invented.
``moving hand``
    The same, the skin uneven (blotches, creases, a shine) and the hand caught moving: smeared
    0.5 to 2 squares along any direction, the board showing through where it passed only part
    of the exposure (``paste_hand(moving=..., textured=True)``).  Its fingers' smear crosses
    squares whose lines still show.
``shaken``
    The phone moved while the shutter was open: the whole picture blurred along one straight
    line (``vision.letters.Blur``) of 0.12 to 0.22 of a square's side in the photo, turned any
    way (both drawn per photo), as a photo taken by hand in a dim room is (the real motion-
    blurred photo ``jheidel`` 164048 is blurred by about a fifth of a square).  What counts
    is that the read says the photo is blurred, flags what it cannot read, and invents nothing.
``shadow``
    The photographer's shadow: the board darkened to 55 % over a band from one side (drawn per
    photo) to between a third and a half of the way across, its edge soft over about half a
    square, as a person or a phone held between the lamp and the board casts it.
``glare``
    A lamp's reflection on a glossy board or a plastic table cover: a soft ellipse of 2 by 3.5
    squares (half axes), turned any way and centred on a square drawn within the grid, where
    the colour is mixed with white, 80 % at its middle, falling off as a Gaussian.
``lens``
    A wide-angle lens whose distortion no software corrected (a webcam, a cheap phone): barrel
    distortion ``r' = r (1 + k r^2)`` about the picture's centre, ``r`` in units of the half
    diagonal, with ``k`` such that the corners of the picture move inward by 4 % of the
    half diagonal.  The grid's straight lines bow outward, most near the picture's edges.
``bowed``
    A board that does not lie flat: a folding board's two halves meet in a ridge along its
    hinge (the board's middle column of squares), raised by 2 % of the board's width (a
    centimetre on a 50 cm board) and falling straight to both edges.  A point raised by ``z``
    moves away from the picture's centre by ``z / (D - z)`` of its distance from it, the camera
    ``D`` (1.3 board widths) above the board; the board's quadrilateral then no longer holds
    the grid's inner lines where a plane would put them.
``defocus``
    The lens focused elsewhere (a fixed-focus webcam too near the board, a phone that focused
    on the table beyond it): every point spread over a disc of radius 0.06 to 0.12 of a
    square (drawn per photo), a lens's blur rather than a Gaussian.  What counts is that the
    read says the photo is blurred where its letters suffer, and invents nothing.
``cool``
    Daylight or a fluorescent tube without white balance: red times 0.72 (a blue-green cast).
``bright``
    Too much light for the exposure (a flash, the sun on the table): every level times 1.4,
    the lightest squares and faces clipped to white and the grid's light lines with them.
``vignette``
    A cheap lens's vignetting: the light falling off as the fourth power of the cosine of the
    angle off the axis, to 0.45 of the centre's in the picture's corners.
``hazy``
    A photo through a scratched plastic cover or a fogged lens: every level pulled toward a
    light grey, 0.55 of the contrast left.
``grainy``
    A small sensor at high gain: noise of 9 levels in each channel, coarser than a pixel, then
    compressed as a webcam's stream is (JPEG quality 70).

Reported per set and view: squares wrong of all, their kinds (no board found, tile read empty,
empty read as tile, letter, blank), how many of the wrong squares were not flagged unsure, and
boards perfect.  A view that reads much worse than the photo as taken points at a weakness the
photos kept aside for checking would find too.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from eval_real import (  # noqa: E402
    KIND_HEADINGS,
    KINDS,
    PhotoSet,
    Wrong,
    photo_sets,
    score,
)

from vision.locate import BoardNotFound, locate_board  # noqa: E402
from vision.read import read_board  # noqa: E402

TILT_DEGREES = 12.0
SMALL_BOARD_PX = 250
JPEG_QUALITY = 35
LENS_CORNER_SHIFT = 0.04
BOW_RISE = 0.02
BOW_DISTANCE = 1.3
BOARD_BORDER = 0.08
ASKEW_DEGREES = (6.0, 12.0)
ASKEW_RADIUS = 0.45
HAND_COVER = 0.2
#: How far a hand caught moving is smeared (squares of the board, drawn per photo).
HAND_SMEAR = (0.5, 2.0)
SHADOW_DEPTH = 0.45
GLARE_PEAK = 0.8
GLARE_SQUARES = (2.0, 3.5)
SHAKE_SQUARES = (0.12, 0.22)
DIAGONAL_DEGREES = (20.0, 45.0)
DEFOCUS_SQUARES = (0.06, 0.12)
OVEREXPOSED_GAIN = 1.4
VIGNETTE_CORNER = 0.45
HAZE_CONTRAST = 0.55
GRAIN_SIGMA = 9.0
SIZE = 15


def camera_turned(image: np.ndarray, pitch: float, yaw: float,
                  corners: np.ndarray | None = None) -> np.ndarray:
    """The picture a camera turned about its own centre by ``pitch`` then ``yaw`` degrees
    would have taken; shifted so that the board (its ``corners``, found in ``image`` where
    not given) stays wholly inside."""
    h, w = image.shape[:2]
    focal = float(max(h, w))
    k = np.array([[focal, 0, w / 2], [0, focal, h / 2], [0, 0, 1]], np.float64)
    a, b = np.radians(pitch), np.radians(yaw)
    rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0], [-np.sin(b), 0, np.cos(b)]])
    homography = k @ ry @ rx @ np.linalg.inv(k)
    if corners is None:
        corners = np.asarray(locate_board(image, quality=False).corners, np.float64)
    moved = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), homography).reshape(-1, 2)
    low, high = moved.min(axis=0), moved.max(axis=0)
    centre = (low + high) / 2
    shift = np.array([w / 2, h / 2]) - centre
    homography = np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]]) @ homography
    return cv2.warpPerspective(image, homography, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def seen_steeper(image: np.ndarray, far: float = 0.65, depth: float = 0.6) -> np.ndarray:
    """The picture warped so that the board's far edge is ``far`` of its near edge and its
    depth ``depth`` of its width, the near edge kept where it was in size."""
    corners = np.asarray(locate_board(image, quality=False).corners, np.float64)
    h, w = image.shape[:2]
    # The board's lowest edge in the picture is the near one.
    edges = [(i, (i + 1) % 4) for i in range(4)]
    near = max(edges, key=lambda e: corners[e[0], 1] + corners[e[1], 1])
    a, b = corners[near[0]], corners[near[1]]
    width = float(np.hypot(*(b - a)))
    centre_x = (a[0] + b[0]) / 2
    base = min(h - 1.0, max(a[1], b[1]))
    top = base - depth * width
    target = np.zeros((4, 2))
    # The near edge's ends, then the far edge's, in the corners' own order.
    far_of = {near[0]: (near[0] - 1) % 4, near[1]: (near[1] + 1) % 4}
    left, right = (near[0], near[1]) if a[0] <= b[0] else (near[1], near[0])
    target[left] = (centre_x - width / 2, base)
    target[right] = (centre_x + width / 2, base)
    target[far_of[left]] = (centre_x - far * width / 2, top)
    target[far_of[right]] = (centre_x + far * width / 2, top)
    shift = np.array([w / 2, h / 2]) - (target.min(axis=0) + target.max(axis=0)) / 2
    target += shift
    homography = cv2.getPerspectiveTransform(corners.astype(np.float32),
                                             target.astype(np.float32))
    return cv2.warpPerspective(image, homography, (w, h), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def scaled_to(image: np.ndarray, longer_side: int) -> np.ndarray:
    h, w = image.shape[:2]
    factor = longer_side / max(h, w)
    if factor >= 1:
        return image
    return cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)


def board_scaled(image: np.ndarray, board_px: int) -> np.ndarray:
    corners = np.asarray(locate_board(image, quality=False).corners, np.float64)
    side = float(np.hypot(*(np.roll(corners, -1, axis=0) - corners).T).mean())
    factor = board_px / side
    return cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)


def recompressed(image: np.ndarray, quality: int) -> np.ndarray:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def lens_distorted(image: np.ndarray, corner_shift: float = LENS_CORNER_SHIFT) -> np.ndarray:
    """The picture as a lens with barrel distortion takes it: a point at ``r`` (half
    diagonals from the centre) is seen at ``r (1 + k r^2)``, ``k = -corner_shift``."""
    h, w = image.shape[:2]
    centre = np.array([(w - 1) / 2, (h - 1) / 2])
    half_diagonal = float(np.hypot(w, h)) / 2
    k = -corner_shift
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    dx, dy = (xs - centre[0]) / half_diagonal, (ys - centre[1]) / half_diagonal
    seen = np.hypot(dx, dy)
    # Each pixel of the distorted picture shows the undistorted point at r with
    # r (1 + k r^2) = seen: two Newton steps from r = seen suffice for |k| of a few percent.
    r = seen.copy()
    for _ in range(3):
        r -= (r * (1 + k * r * r) - seen) / (1 + 3 * k * r * r)
    factor = np.divide(r, seen, out=np.ones_like(r), where=seen > 0)
    map_x = (centre[0] + dx * factor * half_diagonal).astype(np.float32)
    map_y = (centre[1] + dy * factor * half_diagonal).astype(np.float32)
    return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def bowed(image: np.ndarray, rise: float = BOW_RISE, distance: float = BOW_DISTANCE
          ) -> np.ndarray:
    """The picture of the board with its middle column raised by ``rise`` board widths (a
    ridge falling straight to both edges), the camera ``distance`` board widths away."""
    corners = np.asarray(locate_board(image, quality=False).corners, np.float32)
    h, w = image.shape[:2]
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    to_board = cv2.getPerspectiveTransform(corners, unit)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    points = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    board = cv2.perspectiveTransform(points, to_board).reshape(h, w, 2)
    u, v = board[..., 0], board[..., 1]
    # Height of the board under each pixel: the ridge along u = 0.5, falling to the board's
    # outer edge (its border is about a twelfth of the grid wide); the table stays flat.
    z = np.clip(rise * (1 - np.abs(2 * u - 1) / (1 + 2 * BOARD_BORDER)), 0, None)
    z[(np.abs(u - 0.5) > 0.5 + BOARD_BORDER) | (np.abs(v - 0.5) > 0.5 + BOARD_BORDER)] = 0
    grow = z / (distance - z)
    centre = np.array([(w - 1) / 2, (h - 1) / 2], np.float32)
    # A raised point is seen (1 + grow) times farther from the centre: each pixel shows the
    # flat picture's point that much nearer (the field changes slowly: its own value serves).
    map_x = (centre[0] + (xs - centre[0]) / (1 + grow)).astype(np.float32)
    map_y = (centre[1] + (ys - centre[1]) / (1 + grow)).astype(np.float32)
    return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def tiles_askew(image: np.ndarray, seed: int, low: float = ASKEW_DEGREES[0],
                high: float = ASKEW_DEGREES[1]) -> np.ndarray:
    """The picture with each tile's face (the disc inside its square) turned by ``low`` to
    ``high`` degrees either way, drawn per square."""
    reading = read_board(image, None, "en")
    board = reading.board
    corners = np.asarray(reading.corners, np.float32)
    h, w = image.shape[:2]
    grid = np.float32([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]])
    to_board = cv2.getPerspectiveTransform(corners, grid)
    to_photo = cv2.getPerspectiveTransform(grid, corners)
    rng = np.random.default_rng(seed)
    angles = np.zeros((SIZE, SIZE))
    for r in range(SIZE):
        for c in range(SIZE):
            if board[r][c] != ".":
                angles[r, c] = np.radians(rng.choice([-1.0, 1.0]) * rng.uniform(low, high))
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    points = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    q = cv2.perspectiveTransform(points, to_board).reshape(h, w, 2)
    col, row = np.floor(q[..., 0]).astype(int), np.floor(q[..., 1]).astype(int)
    inside = (col >= 0) & (col < SIZE) & (row >= 0) & (row < SIZE)
    theta = np.where(inside, angles[row.clip(0, SIZE - 1), col.clip(0, SIZE - 1)], 0.0)
    dx, dy = q[..., 0] - (col + 0.5), q[..., 1] - (row + 0.5)
    theta[np.hypot(dx, dy) > ASKEW_RADIUS] = 0.0
    # Each pixel of the turned face shows the flat picture's point turned back.
    cos, sin = np.cos(-theta), np.sin(-theta)
    source = np.stack([col + 0.5 + cos * dx - sin * dy, row + 0.5 + sin * dx + cos * dy],
                      axis=-1).astype(np.float32)
    maps = cv2.perspectiveTransform(source.reshape(-1, 1, 2), to_photo).reshape(h, w, 2)
    maps = np.where((theta != 0)[..., None], maps, np.stack([xs, ys], axis=-1))
    return cv2.remap(image, maps[..., 0].astype(np.float32), maps[..., 1].astype(np.float32),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def hand_over(image: np.ndarray, seed: int, cover: float = HAND_COVER) -> np.ndarray:
    """The picture with a hand over ``cover`` of the grid (drawn from ``seed``)."""
    from sim.hands import paste_hand

    corners = read_board(image, None, "en").corners
    return paste_hand(image, corners, cover, np.random.default_rng(seed))[0]


def moving_hand_over(image: np.ndarray, seed: int, cover: float = HAND_COVER) -> np.ndarray:
    """The picture with a hand over ``cover`` of the grid, its skin uneven and caught moving
    (smeared :data:`HAND_SMEAR` squares, drawn from ``seed``)."""
    from sim.hands import paste_hand

    corners = read_board(image, None, "en").corners
    rng = np.random.default_rng(seed)
    smear = float(rng.uniform(*HAND_SMEAR))
    return paste_hand(image, corners, cover, rng, moving=smear, textured=True)[0]


def shadowed(image: np.ndarray, seed: int, depth: float = SHADOW_DEPTH) -> np.ndarray:
    """The picture with a soft shadow, ``depth`` deep, over a band of the board from one side."""
    corners = np.asarray(locate_board(image, quality=False).corners, np.float32)
    h, w = image.shape[:2]
    rng = np.random.default_rng(seed)
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    to_photo = cv2.getPerspectiveTransform(unit, corners)
    reach = float(rng.uniform(0.33, 0.5))
    tilt = float(rng.uniform(-0.15, 0.15))
    # A band from the board's left side in board units, the far edge slanted; then turned to
    # one of the four sides.
    band = np.float32([[-1, -1], [reach - tilt, -1], [reach + tilt, 2], [-1, 2]])
    turns = int(rng.integers(0, 4))
    for _ in range(turns):
        band = np.stack([1 - band[:, 1], band[:, 0]], axis=1)
    polygon = cv2.perspectiveTransform(band.reshape(-1, 1, 2), to_photo).reshape(-1, 2)
    mask = np.zeros((h, w), np.float32)
    cv2.fillPoly(mask, [np.round(polygon).astype(np.int32)], 1.0)
    side = float(np.hypot(*(corners[1] - corners[0])))
    mask = cv2.GaussianBlur(mask, (0, 0), 0.5 * side / 15)
    factor = 1.0 - depth * mask
    return np.clip(image.astype(np.float32) * factor[..., None], 0, 255).astype(np.uint8)


def glared(image: np.ndarray, seed: int, peak: float = GLARE_PEAK) -> np.ndarray:
    """The picture with a lamp's reflection on the board: a soft ellipse, its half axes
    ``GLARE_SQUARES`` squares long and turned any way, centred on a square drawn within the
    grid, where the colour is mixed with white, ``peak`` of white at its middle and falling off
    as a Gaussian (a glossy board or a plastic table cover under a ceiling lamp)."""
    corners = np.asarray(locate_board(image, quality=False).corners, np.float32)
    h, w = image.shape[:2]
    rng = np.random.default_rng(seed)
    unit = np.float32([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]])
    to_photo = cv2.getPerspectiveTransform(unit, corners)
    centre = rng.uniform(3.0, SIZE - 3.0, 2)
    a, b = GLARE_SQUARES
    turn = float(rng.uniform(0, np.pi))
    # The ellipse in squares, then each photo pixel's place on the board.
    to_board = np.linalg.inv(to_photo)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    points = np.stack([xs, ys], axis=-1).reshape(-1, 1, 2)
    on_board = cv2.perspectiveTransform(points, to_board).reshape(h, w, 2) - centre
    u = on_board[..., 0] * np.cos(turn) + on_board[..., 1] * np.sin(turn)
    v = -on_board[..., 0] * np.sin(turn) + on_board[..., 1] * np.cos(turn)
    share = (peak * np.exp(-0.5 * ((u / a) ** 2 + (v / b) ** 2))).astype(np.float32)
    mixed = image.astype(np.float32) * (1 - share[..., None]) + 255.0 * share[..., None]
    return np.clip(mixed, 0, 255).astype(np.uint8)


def photo_square_px(image: np.ndarray) -> float:
    """The mean side of a square of the board found in ``image``, in pixels: the grid's four
    sides' mean over 15."""
    corners = np.asarray(locate_board(image, quality=False).corners, np.float32)
    return float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).mean()) / SIZE


def shaken(image: np.ndarray, seed: int, reach: tuple[float, float] = SHAKE_SQUARES
           ) -> np.ndarray:
    """The picture blurred by a straight motion of the camera, ``reach`` squares long (drawn
    between its two ends, in the board's squares as the photo shows them) in a direction
    drawn from ``seed``."""
    from vision.letters import Blur

    square_px = photo_square_px(image)
    rng = np.random.default_rng(seed)
    blur = Blur(motion=float(rng.uniform(*reach)), angle=float(rng.uniform(0.0, 180.0)))
    return blur.apply(image, square_px)  # type: ignore[arg-type]


def aslant(image: np.ndarray, seed: int, low: float = DIAGONAL_DEGREES[0],
           high: float = DIAGONAL_DEGREES[1]) -> np.ndarray:
    """The picture turned by ``low`` to ``high`` degrees either way (drawn from ``seed``) about
    its centre, on a square canvas as wide as its diagonal, the edges repeated outward."""
    rng = np.random.default_rng(seed)
    angle = float(rng.uniform(low, high)) * (1.0 if rng.random() < 0.5 else -1.0)
    h, w = image.shape[:2]
    side = int(np.ceil(np.hypot(h, w)))
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    turn[:, 2] += ((side - w) / 2, (side - h) / 2)
    return cv2.warpAffine(image, turn, (side, side), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def dim(image: np.ndarray, seed: int) -> np.ndarray:
    levels = 255.0 * (0.45 * image.astype(np.float32) / 255.0) ** 1.3
    noise = np.random.default_rng(seed).normal(0.0, 3.0, image.shape)
    return np.clip(levels + noise, 0, 255).astype(np.uint8)


def warm(image: np.ndarray) -> np.ndarray:
    return np.clip(image.astype(np.float32) * np.float32([0.7, 0.9, 1.0]), 0, 255).astype(
        np.uint8)


def cool(image: np.ndarray) -> np.ndarray:
    """Daylight or a fluorescent tube without white balance: red down, a green cast."""
    return np.clip(image.astype(np.float32) * np.float32([1.0, 1.0, 0.72]), 0, 255).astype(
        np.uint8)


def defocused(image: np.ndarray, seed: int, radius: tuple[float, float] = DEFOCUS_SQUARES
              ) -> np.ndarray:
    """The picture out of focus: every point spread over a disc (a lens's blur, not a
    Gaussian) of ``radius`` squares (drawn from ``seed``)."""
    r = float(np.random.default_rng(seed).uniform(*radius)) * photo_square_px(image)
    reach = int(np.ceil(r))
    ys, xs = np.mgrid[-reach:reach + 1, -reach:reach + 1].astype(np.float32)
    # Each kernel pixel weighted by how much of it lies inside the disc (its edge anti-aliased).
    disc = np.clip(r + 0.5 - np.hypot(xs, ys), 0.0, 1.0)
    return cv2.filter2D(image, -1, disc / disc.sum(), borderType=cv2.BORDER_REFLECT)


def overexposed(image: np.ndarray, gain: float = OVEREXPOSED_GAIN) -> np.ndarray:
    """Too much light for the exposure: every level times ``gain``, the light tile faces and
    squares clipped to white."""
    return np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def vignetted(image: np.ndarray, corner: float = VIGNETTE_CORNER) -> np.ndarray:
    """A cheap lens's vignetting: light falling off as the fourth power of the cosine of the
    angle off the axis, to ``corner`` of the centre's in the picture's corners."""
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xs - (w - 1) / 2) ** 2 + (ys - (h - 1) / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    # cos^4 of the angle off the axis is 1 / (1 + (r / f)^2)^2: f chosen so the corner's is
    # ``corner``.
    f2 = 1.0 / (corner ** -0.5 - 1.0)
    falloff = 1.0 / (1.0 + r2 / f2) ** 2
    return np.clip(image.astype(np.float32) * falloff[..., None], 0, 255).astype(np.uint8)


def hazy(image: np.ndarray, contrast: float = HAZE_CONTRAST) -> np.ndarray:
    """A photo through a scratched plastic cover or a fogged lens: every level pulled toward
    a light grey, ``contrast`` of the range left."""
    veil = 255.0 * (1.0 - contrast) * 0.8
    return np.clip(image.astype(np.float32) * contrast + veil, 0, 255).astype(np.uint8)


def grainy(image: np.ndarray, seed: int, sigma: float = GRAIN_SIGMA) -> np.ndarray:
    """A small sensor at high gain: noise of ``sigma`` levels in each channel, coarser than a
    pixel (demosaicing spreads it), then compressed as a webcam's stream is (JPEG 70)."""
    h, w = image.shape[:2]
    noise = np.random.default_rng(seed).normal(0.0, sigma, ((h + 1) // 2, (w + 1) // 2, 3))
    noise = cv2.resize(noise.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    return recompressed(np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8), 70)


VIEWS: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "as taken": lambda image, seed: image,
    "tilted": lambda image, seed: camera_turned(image, TILT_DEGREES, TILT_DEGREES),
    "steep": lambda image, seed: seen_steeper(image),
    "1080p": lambda image, seed: scaled_to(image, 1920),
    "small": lambda image, seed: board_scaled(image, SMALL_BOARD_PX),
    "jpeg": lambda image, seed: recompressed(image, JPEG_QUALITY),
    "dim": dim,
    "warm": lambda image, seed: warm(image),
    "turned": lambda image, seed: cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE),
    "diagonal": aslant,
    "askew": tiles_askew,
    "hand": hand_over,
    "moving hand": moving_hand_over,
    "shaken": shaken,
    "shadow": shadowed,
    "glare": glared,
    "lens": lambda image, seed: lens_distorted(image),
    "bowed": lambda image, seed: bowed(image),
    "defocus": defocused,
    "cool": lambda image, seed: cool(image),
    "bright": lambda image, seed: overexposed(image),
    "vignette": lambda image, seed: vignetted(image),
    "hazy": lambda image, seed: hazy(image),
    "grainy": grainy,
}


#: The views drawn at random (where the hand, the glare, the shadow lie, how far the camera
#: shook...): ``--draws`` reads each photo under several draws of these; the others are the
#: same at every draw, and read once.
DRAWN = frozenset({"dim", "diagonal", "askew", "hand", "moving hand", "shaken", "shadow",
                   "glare", "defocus", "grainy"})


def read_views(photos: PhotoSet, name: str, views: list[str], draw: int = 0
               ) -> dict[str, list[Wrong]]:
    """Each view of one photo read uncalibrated, scored against its known board; ``draw``
    above 0, only the views :data:`DRAWN`, each drawn afresh."""
    image = cv2.imread(str(photos.folder / name), cv2.IMREAD_COLOR)
    known = photos.boards[name]
    seed = sum(map(ord, name)) + 7919 * draw
    out: dict[str, list[Wrong]] = {}
    for view in views if draw == 0 else [v for v in views if v in DRAWN]:
        try:
            seen = VIEWS[view](image, seed)
            reading = read_board(seen, None, photos.tileset)
            out[view] = score(reading.board, known, reading.confidence)
        except BoardNotFound:
            out[view] = score(None, known)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="scrabscrap-game01,jheidel-20141025,jheidel-20151016")
    parser.add_argument("--every", type=int, default=3,
                        help="read every N-th photo of a set of more than 9 (default 3)")
    parser.add_argument("--views", default=",".join(VIEWS))
    parser.add_argument("--draws", type=int, default=1,
                        help="read each photo under N draws of the views drawn at random "
                             f"({', '.join(sorted(DRAWN))}; default 1): one draw may miss "
                             "where a view hurts")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    views = args.views.split(",")
    unknown = [v for v in views if v not in VIEWS]
    if unknown:
        parser.error(f"unknown views {unknown}; known: {', '.join(VIEWS)}")
    sets = photo_sets()
    tasks = []
    for set_name in args.sets.split(","):
        found = sets.get(set_name)
        if not isinstance(found, PhotoSet):
            print(f"{set_name}: skipped ({found or 'no such set'})")
            continue
        names = list(found.boards)
        if len(names) > 9:
            names = names[args.every - 1 :: args.every]
        tasks += [(found, name, draw) for name in names for draw in range(args.draws)]
    if not tasks:
        print("no labelled photos found: nothing to measure")
        return 0
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(read_views, [t[0] for t in tasks], [t[1] for t in tasks],
                                [views] * len(tasks), [t[2] for t in tasks]))
    header = (f"  {'view':10} {'photos':>6} {'wrong/squares':>14} {'err %':>7} {'unflagged':>9} "
              f"{'perfect':>8} " + " ".join(f"{h:>11}" for h in KIND_HEADINGS))
    for set_name in dict.fromkeys(t[0].name for t in tasks):
        mine = [(t, r) for t, r in zip(tasks, results, strict=True) if t[0].name == set_name]
        drawn = f", {args.draws} draws of the views drawn at random" if args.draws > 1 else ""
        print(f"\n== {set_name}: {sum(t[2] == 0 for t, _ in mine)} photos, "
              f"uncalibrated{drawn}")
        print(header)
        for view in views:
            wrongs = [r[view] for _, r in mine if view in r]
            total = sum(len(w) for w in wrongs)
            squares = 225 * len(wrongs)
            kinds: Counter[str] = Counter(x.kind for w in wrongs for x in w)
            unflagged = sum(x.unflagged for w in wrongs for x in w)
            perfect = sum(not w for w in wrongs)
            print(f"  {view:10} {len(wrongs):>6} {f'{total}/{squares}':>14} "
                  f"{100 * total / squares:>7.3f} {unflagged:>9} "
                  f"{f'{perfect}/{len(wrongs)}':>8} "
                  + " ".join(f"{kinds[k]:>11}" for k in KINDS))
        for (_, name, draw), r in mine:
            for view in views:
                if r.get(view) and view != "as taken":
                    if draw:
                        name = f"{name.split(' ')[0]} (draw {draw + 1})"
                    shown = ", ".join(f"{chr(65 + x.col)}{x.row + 1} {x.want}->{x.got or '-'}"
                                      for x in r[view][:8])
                    more = f" (+{len(r[view]) - 8})" if len(r[view]) > 8 else ""
                    print(f"    {name} {view}: {shown}{more}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
