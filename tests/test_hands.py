"""``sim.hands``: a hand pasted over a photographed board (cover, colour, shadow, determinism,
a finger on a tile), and ``bench/eval_stills.py`` end to end on one short rendered game."""

from __future__ import annotations

import json
import runpy
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from sim.hands import board_cover, grid_mask, paste_hand
from sim.render import RenderConfig, render_board

ROOT = Path(__file__).resolve().parents[1]
ROWS = ["." * 15] * 6 + ["..CAT.........."] + ["....REVIEW....."] + ["." * 15] * 6 + [
    "....QUIZ.......",
]


@pytest.fixture(scope="module")
def photo():
    config = replace(RenderConfig(size=(800, 600)), table="plain", clutter=False)
    return render_board(ROWS, edition="green", seed=4, config=config)


@pytest.mark.parametrize("cover", [0.1, 0.25, 0.4])
def test_the_hand_covers_about_the_fraction_asked(photo, cover):
    image, mask = paste_hand(photo.image, photo.corners, cover, np.random.default_rng(3))
    assert mask.dtype == bool and mask.shape == image.shape[:2]
    assert abs(board_cover(mask, photo.corners) - cover) < 0.03
    # Only where the hand is does the picture change beyond its shadow and grain.
    assert image.shape == photo.image.shape and not np.array_equal(image, photo.image)


def test_the_hand_comes_in_from_an_edge_of_the_picture(photo):
    for seed in range(6):
        _, mask = paste_hand(photo.image, photo.corners, 0.2, np.random.default_rng(seed))
        border = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
        assert border.any(), seed


def test_the_hand_is_skin_coloured_light_or_dark(photo):
    brightness = []
    for seed in range(12):
        image, mask = paste_hand(photo.image, photo.corners, 0.25, np.random.default_rng(seed))
        # The hand on the board (a sleeve, when there is one, is on the forearm further out).
        core = cv2.erode(mask.astype(np.uint8), np.ones((7, 7), np.uint8)).astype(bool)
        core &= grid_mask(mask.shape, photo.corners)
        b, g, r = (image[core].astype(float).mean(axis=0))
        assert r > g > b, (seed, b, g, r)  # skin: red above green above blue, in any tone
        brightness.append((b + g + r) / 3)
    assert max(brightness) - min(brightness) > 50  # light and dark skins both drawn


def test_the_hand_casts_a_soft_shadow_on_the_board(photo):
    image, mask = paste_hand(photo.image, photo.corners, 0.3, np.random.default_rng(5))
    near = cv2.dilate(mask.astype(np.uint8), np.ones((61, 61), np.uint8)).astype(bool)
    beside = near & ~cv2.dilate(mask.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    darker = photo.image.astype(float).mean(axis=2) - image.astype(float).mean(axis=2)
    assert (darker[beside] > 10).mean() > 0.1  # darkened next to the hand
    far = ~cv2.dilate(mask.astype(np.uint8), np.ones((301, 301), np.uint8)).astype(bool)
    assert np.abs(darker[far]).max() <= 2  # far from it, the photo is as it was


def test_the_same_seed_gives_the_same_hand(photo):
    one = paste_hand(photo.image, photo.corners, 0.2, np.random.default_rng(9))
    two = paste_hand(photo.image, photo.corners, 0.2, np.random.default_rng(9))
    other = paste_hand(photo.image, photo.corners, 0.2, np.random.default_rng(10))
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])
    assert not np.array_equal(one[1], other[1])


def test_a_finger_rests_on_a_tile_near_the_edge(photo):
    image, mask = paste_hand(photo.image, photo.corners, 0.0, np.random.default_rng(2),
                             finger_on_tile=True, square=(14, 5))
    x, y = photo.square_centre(14, 5)
    # The finger lies on the tile (Q-U-I-Z on the bottom row), the hand mostly off the board.
    assert mask[int(y), int(x)]
    assert board_cover(mask, photo.corners) < 0.08
    assert not mask[int(photo.square_centre(7, 7)[1]), int(photo.square_centre(7, 7)[0])]


def test_eval_stills_runs_a_short_rendered_game(tmp_path):
    out = tmp_path / "stills.json"
    script = runpy.run_path(str(ROOT / "bench" / "eval_stills.py"), run_name="eval_stills")
    status = script["main"]([
        "--no-real", "--seeds", "1", "--turns", "5", "--size", "640x480", "--no-profile",
        "--hands", "1", "--fingers", "1", "--missing", "1", "--duplicates", "1",
        "--json", str(out),
    ])
    assert status == 0
    report = json.loads(out.read_text())
    (game,) = report["rendered"]["games"]
    assert game["turns"] == 5
    assert game["photos"] == 5 + 1 - 1 + 1  # a hand photo and a duplicate in, one left out
    assert set(game["perturbations"]) >= {"hands", "fingers", "missing", "duplicates"}
    assert 0.08 < game["perturbations"]["hand_cover"][0] < 0.42
    totals = report["rendered"]["totals"]
    assert totals["games"] == 1 and totals["turns"] == 5
    for key in ("invented", "missed", "tiles_invented", "final_exact", "questions"):
        assert key in totals
