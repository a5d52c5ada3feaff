"""A real photo as a dim room gives it: dark and noisy.  Its letters are read from a smoothed
picture (:func:`vision.rectified.quieted`), as they were before the room got dark."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.rectified as rectified
from tests.real_photos import JHEIDEL, known_board
from vision.read import read_board
from vision.rectified import NOISY, noise_share, quieted, rectify_with_margin


def in_a_dim_room(image: np.ndarray, seed: int = 1) -> np.ndarray:
    """Levels down to 45 % with a gamma of 1.3, and sensor noise of 3 levels."""
    levels = 255.0 * (0.45 * image.astype(np.float32) / 255.0) ** 1.3
    noise = np.random.default_rng(seed).normal(0.0, 3.0, image.shape)
    return np.clip(levels + noise, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    path = JHEIDEL / "IMG_20141025_163920.jpg"
    if not path.is_file():
        pytest.skip(f"real photos not available: {path} is missing")
    return cv2.imread(str(path))


def test_the_noise_of_a_dim_photo_is_measured_above_the_limit_and_of_the_photo_below(photo):
    from vision.locate import locate_board

    corners = locate_board(photo, quality=False).corners
    grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    as_taken = noise_share(rectify_with_margin(grey, corners))
    dim = noise_share(rectify_with_margin(cv2.cvtColor(in_a_dim_room(photo), cv2.COLOR_BGR2GRAY),
                                          corners))
    assert as_taken < NOISY < dim, (as_taken, dim)


def test_a_clean_picture_is_left_as_it_is():
    board = np.kron(np.arange(64, dtype=np.uint8).reshape(8, 8) * 3, np.ones((32, 32), np.uint8))
    assert quieted(board) is board


def test_a_real_photo_in_a_dim_room_is_read_as_in_daylight(photo, monkeypatch):
    known = known_board("IMG_20141025_163920.jpg")
    assert read_board(photo, None, "en").board == known
    dim = in_a_dim_room(photo)
    assert read_board(dim, None, "en").board == known
    # Without the smoothing the noise's faint ink made the I at F8 an F.
    monkeypatch.setattr(rectified, "NOISY", 1.0)
    assert read_board(dim, None, "en").board != known


def test_a_game_reads_the_new_tiles_of_a_dim_photo_smoothed_too(photo, monkeypatch):
    """A game's pipeline reads the squares a move changed with ``glyphs_of``: in a dim room
    it draws them from the smoothed picture as ``read_board`` does."""
    from vision.rectified import glyphs_of
    from vision.stock import stock_classifier

    known = known_board("IMG_20141025_163920.jpg")
    dim = in_a_dim_room(photo)
    upright = rectify_with_margin(dim, read_board(photo, None, "en").corners)
    squares = [(r, c) for r in range(15) for c in range(15) if known[r][c] != "."]
    classifier = stock_classifier(frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))

    def wrong() -> list[tuple[int, int]]:
        glyphs = glyphs_of(upright, squares)
        guesses = classifier.predict(np.stack([g.normalised for g in glyphs]))
        return [sq for sq, guess in zip(squares, guesses, strict=True)
                if guess.letter != known[sq[0]][sq[1]]]

    smoothed = wrong()
    monkeypatch.setattr(rectified, "NOISY", 1.0)
    assert len(smoothed) < len(wrong()), smoothed


def test_tiles_a_blurred_photo_shows_no_letter_on_are_named_as_maybe_tiles():
    """jheidel 164048 (hand shake) as a camera turned a further 12 degrees each way would
    have taken it: the tiles of one word show no letter the readers can find.  They are read
    empty, but named as squares that looked like tiles, in the warnings and the JSON."""
    path = JHEIDEL / "IMG_20141025_164048.jpg"
    if not path.is_file():
        pytest.skip(f"real photos not available: {path} is missing")
    from vision.locate import locate_board

    image = cv2.imread(str(path))
    h, w = image.shape[:2]
    focal = float(max(h, w))
    k = np.array([[focal, 0, w / 2], [0, focal, h / 2], [0, 0, 1]])
    a = np.radians(12.0)
    turn_x = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    turn_y = np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])
    homography = k @ turn_y @ turn_x @ np.linalg.inv(k)
    corners = np.asarray(locate_board(image, quality=False).corners, np.float64)
    moved = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), homography).reshape(-1, 2)
    shift = np.array([w / 2, h / 2]) - (moved.min(axis=0) + moved.max(axis=0)) / 2
    homography = np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]]) @ homography
    turned = cv2.warpPerspective(image, homography, (w, h), borderMode=cv2.BORDER_REPLICATE)
    known = known_board("IMG_20141025_164048.jpg")
    reading = read_board(turned, None, "en")
    missed = [f"{chr(65 + c)}{r + 1}" for r in range(15) for c in range(15)
              if known[r][c] != "." and reading.board[r][c] == "."]
    assert missed, "every tile shows a letter: the test needs a harder view"
    assert set(missed) <= set(reading.maybe_tiles()), (missed, reading.maybe_tiles())
    assert any("showed no letter" in warning for warning in reading.warnings())
    assert reading.to_json()["maybe_tiles"] == reading.maybe_tiles()
