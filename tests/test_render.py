"""Tests of the board photo renderer: geometry of the returned corners, determinism, editions,
blanks, hands, sizes and the animation helper."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from scorer.squares import PREMIUM_LAYOUT
from sim.editions import EDITIONS, edition
from sim.render import (
    HandPose,
    RenderConfig,
    RenderError,
    animate_move,
    grid_corners,
    render_board,
    render_flat,
    render_frame,
)

EMPTY = ["." * 15] * 15

#: A clean camera: no noise, blur, glare, shadows or clutter, so colours can be sampled.
CLEAN = RenderConfig(size=(960, 720), noise=0.0, defocus=0.0, jpeg_quality=0, vignette=0.0,
                     light_gradient=0.0, clutter=False, pixels_per_square=32)


def with_word(row: int, col: int, word: str, rows: list[str] | None = None) -> list[str]:
    rows = list(rows or EMPTY)
    line = rows[row]
    rows[row] = line[:col] + word + line[col + len(word):]
    return rows


def grid_homography(corners: np.ndarray) -> np.ndarray:
    """Grid units (column, row) -> image, from the four returned corners alone."""
    src = np.float32([[0, 0], [15, 0], [15, 15], [0, 15]])
    return cv2.getPerspectiveTransform(src, corners.astype(np.float32))


def to_image(h: np.ndarray, x: float, y: float) -> tuple[float, float]:
    p = cv2.perspectiveTransform(np.array([[[x, y]]], np.float64), h)[0, 0]
    return float(p[0]), float(p[1])


def is_red(bgr: np.ndarray) -> bool:
    b, g, r = (float(v) for v in bgr)
    return r > 150 and r > 2.5 * g and r > 2.5 * b


TW_SQUARES = [(r, c) for r in range(15) for c in range(15) if PREMIUM_LAYOUT[r][c] == "TW"]


@pytest.mark.parametrize("tilt, azimuth, rotation", [
    (0.0, 90.0, 0.0), (30.0, 70.0, 0.0), (0.0, 90.0, 90.0), (20.0, 200.0, 180.0),
    (35.0, 300.0, 37.0), (10.0, 0.0, 270.0),
])
def test_corners_locate_the_red_triple_word_squares(tilt, azimuth, rotation):
    """The centroid of each red triple-word square in the picture is where the returned corners
    say its middle is (to within a pixel and a half)."""
    config = replace(CLEAN, tilt=tilt, tilt_azimuth=azimuth,
                             rotation=rotation)
    photo = render_board(EMPTY, edition="green", seed=4, config=config)
    image = photo.image.astype(np.int32)
    b, g, r = image[..., 0], image[..., 1], image[..., 2]
    red = ((r > 150) & (r > 2.5 * g) & (r > 2.5 * b)).astype(np.uint8)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(red)
    blobs = [centroids[i] for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] > 200]
    assert len(blobs) == len(TW_SQUARES) == 8
    h = grid_homography(photo.corners)
    for row, col in TW_SQUARES:
        expected = np.array(to_image(h, col + 0.5, row + 0.5))
        nearest = min(blobs, key=lambda c: float(np.linalg.norm(c - expected)))
        assert np.linalg.norm(nearest - expected) < 1.5, (row, col, nearest, expected)


def test_corners_follow_barrel_distortion():
    """With a strongly distorted lens the corners still sit on the grid's corners: the
    triple-word square just inside each is red, the frame just outside is not."""
    config = replace(CLEAN, k1=0.2, board_scale=0.98, tilt=15.0)
    photo = render_board(EMPTY, edition="green", seed=2, config=config)
    corners = photo.corners
    centre = corners.mean(0)
    for corner in corners:
        inward = (centre - corner) / np.linalg.norm(centre - corner)
        side = float(np.linalg.norm(corners[1] - corners[0])) / 15.0
        inside = corner + inward * side * 0.7
        outside = corner - inward * side * 0.35
        assert is_red(photo.image[int(round(inside[1])), int(round(inside[0]))])
        assert not is_red(photo.image[int(round(outside[1])), int(round(outside[0]))])
    # The corners the distorted picture reports differ from the pinhole ones.
    pinhole = grid_corners(replace(config, k1=0.0))
    assert np.abs(pinhole - corners).max() > 3.0


def test_rotation_turns_the_board_counter_clockwise():
    upright = grid_corners(RenderConfig(rotation=0.0))
    turned = grid_corners(RenderConfig(rotation=90.0))
    # Top-left of the board goes to the bottom-left of the picture.
    assert turned[0][0] < 640 and turned[0][1] > 360
    assert upright[0][0] < 640 and upright[0][1] < 360


def test_same_seed_same_picture_and_different_seed_different_picture():
    rows = with_word(7, 4, "QUIZ")
    a = render_board(rows, edition="red", seed=11)
    b = render_board(rows, edition="red", seed=11)
    c = render_board(rows, edition="red", seed=12)
    assert np.array_equal(a.image, b.image)
    assert np.array_equal(a.corners, b.corners)
    assert a.config == b.config
    assert not np.array_equal(a.image, c.image) or a.image.shape != c.image.shape


@pytest.mark.parametrize("name", sorted(EDITIONS))
def test_every_edition_renders_with_the_grid_in_view(name):
    config = RenderConfig.random(5, size=(640, 360))
    rows = with_word(7, 5, "AXE")
    photo = render_board(rows, edition=name, seed=5, config=config)
    assert photo.image.shape == (360, 640, 3)
    assert photo.image.dtype == np.uint8
    assert photo.corners.shape == (4, 2) and photo.corners.dtype == np.float32
    assert (photo.corners >= 0).all()
    assert (photo.corners[:, 0] <= 640).all() and (photo.corners[:, 1] <= 360).all()
    # The edition's colours are really there: the middle of a plain square is close to the
    # edition's plain colour in a clean render.
    clean = render_board(EMPTY, edition=name, seed=5, config=CLEAN)
    x, y = clean.square_centre(0, 1)
    sample = clean.image[int(y) - 2: int(y) + 3, int(x) - 2: int(x) + 3].reshape(-1, 3).mean(0)
    assert np.abs(sample - np.array(edition(name).square_color)).max() < 40


def test_output_size_follows_the_config():
    for size in ((320, 240), (720, 1280)):
        photo = render_board(EMPTY, seed=1, config=RenderConfig(size=size, pixels_per_square=24))
        assert photo.image.shape == (size[1], size[0], 3)


def ink_in_square(photo, row: int, col: int) -> float:
    """Fraction of dark pixels in the middle of a square."""
    x, y = photo.square_centre(row, col)
    side = float(np.linalg.norm(photo.corners[1] - photo.corners[0])) / 15.0
    half = int(side * 0.3)
    patch = cv2.cvtColor(photo.image[int(y) - half: int(y) + half, int(x) - half: int(x) + half],
                         cv2.COLOR_BGR2GRAY)
    return float((patch < 90).mean())


def test_blank_tiles_have_no_face():
    config = replace(CLEAN, table="plain")
    letters = render_board(with_word(7, 6, "MAW"), edition="green", seed=3, config=config)
    blanks = render_board(with_word(7, 6, "maw"), edition="green", seed=3, config=config)
    for col in (6, 7, 8):
        assert ink_in_square(letters, 7, col) > 0.05
        assert ink_in_square(blanks, 7, col) < 0.005
        # A blank is still a tile: light, not the dark green of the board.
        x, y = blanks.square_centre(7, col)
        assert blanks.image[int(y), int(x)].mean() > 150


def test_hand_covers_the_board_where_it_reaches():
    config = replace(CLEAN, table="plain")
    rows = with_word(7, 4, "JOKE")
    flat = render_flat(rows, edition="green", seed=6, config=config)
    bare = render_frame(flat, config, seed=6, hand=None)
    tip = bare.square_centre(7, 5)
    pose = HandPose(tip=tip, angle=-90.0, size=200.0, skin=(120, 150, 200), sleeve=None)
    covered = render_frame(flat, config, seed=6, hand=pose)
    assert bare.hand_mask is None
    mask = covered.hand_mask
    assert mask is not None and mask.shape == covered.image.shape[:2]
    # The palm, behind the fingertip (toward the bottom edge the arm comes from), is skin.
    x, y = int(tip[0]), int(tip[1] + 200)
    assert mask[y, x] > 0
    assert np.abs(covered.image[y, x].astype(int) - (120, 150, 200)).max() < 60
    assert np.abs(covered.image[y, x].astype(int) - bare.image[y, x].astype(int)).max() > 30
    # Far from the hand, nothing changed but its soft shadow.
    assert mask[20, 20] == 0
    assert np.array_equal(covered.corners, bare.corners)


def test_random_configs_keep_the_grid_inside_the_picture():
    for seed in range(150):
        config = RenderConfig.random(seed)
        corners = grid_corners(config, "red")
        width, height = config.size
        assert (corners >= 0).all() and (corners[:, 0] < width).all()
        assert (corners[:, 1] < height).all(), (seed, corners)
        assert 0.0 <= config.tilt <= 35.0


def test_positions_are_checked_with_the_square_named():
    rows = with_word(3, 2, "A1")
    with pytest.raises(RenderError, match="D4"):
        render_board(rows, seed=0)
    with pytest.raises(RenderError, match="15 rows"):
        render_board(EMPTY[:14], seed=0)
    with pytest.raises(RenderError, match="font"):
        RenderConfig(font="comic")
    with pytest.raises(KeyError, match="known"):
        render_board(EMPTY, edition="purple", seed=0)


def test_german_letters_render():
    photo = render_board(with_word(7, 5, "ÄÖÜ"), tileset="de", edition="green", seed=2,
                         config=CLEAN)
    assert all(ink_in_square(photo, 7, c) > 0.03 for c in (5, 6, 7))


def test_animation_lays_the_new_tiles_with_a_hand():
    before = with_word(7, 5, "CAT")
    after = with_word(8, 7, "O", with_word(9, 7, "P", before))
    config = replace(CLEAN, size=(480, 360), pixels_per_square=24)
    frames = list(animate_move(before, after, seed=3, config=config, approach_frames=3,
                               hold_frames=2, still_frames=2))
    assert len(frames) == 2 * (3 + 2) + 3 + 2
    assert all(f.shape == (360, 480, 3) for f in frames)
    final = render_board(after, seed=3, config=config)
    # The last frames show the new position without a hand; the first ones differ from it.
    assert np.abs(frames[-1].astype(int) - final.image.astype(int)).mean() < 5.0
    assert np.abs(frames[2].astype(int) - final.image.astype(int)).mean() > 8.0
