"""A real photo with a shadow across part of the board (a player's arm or body between the lamp
and the table): the light is evened out of the straightened board (:mod:`vision.light`) before
colour and ink decide which squares hold tiles and which bare squares are blanks."""

from __future__ import annotations

import numpy as np
import pytest

from tests.real_photos import JHEIDEL, known_board, real_photo, shadowed
from vision.light import UNEVEN_FROM, evened, light_over_board, uneven
from vision.locate import locate_board
from vision.read import MOTION_WARNING, read_board
from vision.rectified import SQUARE_PX, inner, occupancy_grid, rectify_with_margin


@pytest.mark.parametrize(("reach", "tilt"), [(0.3, -0.08), (0.45, 0.0)])
def test_a_shadow_across_a_real_game_reads_as_the_photo_as_taken(reach, tilt):
    """Unevened, the shaded blank at O10 was read as an empty square (sure, 1.0, or 0.5 with
    an empty square in the shade taken for the blank instead) and the shaded I at the board's
    edge (A13) as an empty square, 0.83 sure."""
    name = "IMG_20151016_170803.jpg"
    image = real_photo(JHEIDEL / name)
    reading = read_board(shadowed(image, reach, tilt), None, "en")
    assert reading.board == known_board(name)


def test_the_light_is_measured_and_evened_where_the_shadow_lies():
    image = real_photo(JHEIDEL / "IMG_20151016_170219.jpg")
    corners = np.asarray(locate_board(image, quality=False).corners, np.float32)
    board = np.array([[ch != "." for ch in row] for row in known_board(
        "IMG_20151016_170219.jpg")])
    for seen, shaded in ((image, False), (shadowed(image, 0.4, 0.0), True)):
        straightened = rectify_with_margin(seen, corners)
        light = light_over_board(occupancy_grid(inner(straightened)), board)
        assert uneven(light) == shaded
        if shaded:
            # The lower rows in shadow, the upper ones lit, each within a fifth of the truth
            # (ln 0.55 = -0.6) away from the shadow's soft edge.
            assert np.all(light[:14] > -0.2) and np.all(np.abs(light[-6:] + 0.6) < 0.2)
            lifted = evened(straightened, light, SQUARE_PX)
            again = light_over_board(occupancy_grid(inner(lifted)), board)
            assert again.min() > -UNEVEN_FROM / 2
        else:
            assert light.min() > -UNEVEN_FROM


def test_a_photo_in_even_light_is_left_as_it_is():
    # Evened only where a shadow is measured: the real photos as taken keep their pixels.
    image = real_photo(JHEIDEL / "IMG_20141025_163920.jpg")
    corners = np.asarray(locate_board(image, quality=False).corners, np.float32)
    straightened = rectify_with_margin(image, corners, SQUARE_PX)
    reading = read_board(image, None, "en")
    occupied = np.array([[ch != "." for ch in row] for row in reading.board])
    assert not uneven(light_over_board(occupancy_grid(inner(straightened)), occupied))


@pytest.mark.parametrize(("reach", "tilt"), [(0.3, 0.0), (0.45, -0.08)])
def test_a_blurred_photo_under_a_shadow_is_still_said_to_be_blurred(reach, tilt):
    """The shadow's soft edge, a blur of its own across the board, hid the camera's: the
    blurred real photo 164048 under it was taken for sharp (0.0) or nearly (0.115), with no
    warning and its letters read from the photo as taken.  The shadow lifted first, the blur
    is that of the photo as taken (0.2 of a square)."""
    image = real_photo(JHEIDEL / "IMG_20141025_164048.jpg")
    reading = read_board(shadowed(image, reach, tilt), None, "en")
    assert reading.motion_blur >= MOTION_WARNING
    assert any("blur" in warning for warning in reading.warnings())
