"""Real photos out of focus (a fixed-focus webcam too near the board, a phone that focused on
the table beyond it): the photo is said to be blurred, as a photo shaken by the camera's motion
is, and the blur costs letters, never tiles; where no board can be found in a picture, the
refusal says what is wrong with it (blurred, overexposed)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.real_photos import GAME, GAME_SQUARE_PX, JHEIDEL, as_read, game_boards, real_photo
from vision.locate import BoardNotFound
from vision.read import MOTION_WARNING, read_board


def defocused(image: np.ndarray, radius_squares: float) -> np.ndarray:
    """``image`` as a lens out of focus takes it: every point spread over a disc (a lens's
    blur, not a Gaussian) of ``radius_squares`` of the game's squares."""
    radius = radius_squares * GAME_SQUARE_PX
    reach = int(np.ceil(radius))
    ys, xs = np.mgrid[-reach:reach + 1, -reach:reach + 1].astype(np.float32)
    disc = np.clip(radius + 0.5 - np.hypot(xs, ys), 0.0, 1.0)
    return cv2.filter2D(image, -1, disc / disc.sum(), borderType=cv2.BORDER_REFLECT)


def test_a_photo_out_of_focus_is_said_to_be_blurred_and_keeps_its_tiles():
    """Move 6's board through a lens out of focus by a disc of 0.11 of a square (six
    pixels): the defocus was measured (the largest candidate then, a Gaussian of 2.1 pixels
    where the letters are read) but only a motion counted as a blur, so the photo was read as
    sharp, without a word.  Its letters suffer (an M's middle spreads into an H's bar), which
    tiles there are does not."""
    image = real_photo(GAME / "image-6.jpg")
    known = as_read(game_boards()[6])
    reading = read_board(defocused(image, 0.11), None, "de")
    assert reading.motion_blur >= MOTION_WARNING
    assert any("blurred" in warning for warning in reading.warnings())
    occupancy_wrong = [(r, c) for r in range(15) for c in range(15)
                       if (reading.board[r][c] == ".") != (known[r][c] == ".")]
    assert occupancy_wrong == []


def test_a_photo_slightly_out_of_focus_reads_without_a_warning():
    """A disc of 0.04 of a square (two pixels) leaves every letter readable: no warning."""
    image = real_photo(GAME / "image-18.jpg")
    known = as_read(game_boards()[18])
    reading = read_board(defocused(image, 0.04), None, "de")
    assert reading.motion_blur < MOTION_WARNING
    assert not any("blurred" in warning for warning in reading.warnings())
    assert reading.board == known


def test_a_board_lost_in_a_blur_is_refused_saying_the_picture_is_blurred():
    """The final board (few empty squares left) out of focus by a disc of 0.11 of a square: its
    thin grid lines are gone and too few premium squares show; the refusal says why."""
    image = real_photo(GAME / "image-27.jpg")
    with pytest.raises(BoardNotFound, match="the picture looks blurred"):
        read_board(defocused(image, 0.11), None, "de")


def test_an_overexposed_board_is_refused_saying_so():
    """A light board in a phone's photo brightened until its squares and lines clip to white
    (levels times 1.6): no grid to find, and the refusal says the picture is overexposed."""
    image = real_photo(JHEIDEL / "IMG_20151016_170803.jpg")
    bright = np.clip(image.astype(np.float32) * 1.6, 0, 255).astype(np.uint8)
    with pytest.raises(BoardNotFound, match="overexposed"):
        read_board(bright, None, "en")
