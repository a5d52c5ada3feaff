"""Real photos blurred by the camera's motion (a phone moved while the shutter was open, by about
a fifth of a square, as on the real blurred photo ``jheidel`` 164048): the grid is still found
where it is, the photo is said to be blurred, and no square read wrong is reported sure."""

from __future__ import annotations

import cv2
import numpy as np

from tests.real_photos import GAME, GAME_SQUARE_PX, JHEIDEL, as_read, game_boards, real_photo
from vision.letters import Blur
from vision.read import UNSURE_SHOWN, read_board
from vision.rectified import UNSURE


def shaken(image: np.ndarray, length: float, angle: float) -> np.ndarray:
    """``image`` blurred by a straight motion ``length`` squares long in direction ``angle``."""
    return Blur(motion=length, angle=angle).apply(image, GAME_SQUARE_PX)  # type: ignore[arg-type]


def corners_apart(a: np.ndarray, b: np.ndarray) -> float:
    """The largest distance between two grids' corners, in squares of the game's photos."""
    return float(np.hypot(*(np.asarray(a) - np.asarray(b)).T).max()) / GAME_SQUARE_PX


def test_a_full_board_smeared_diagonally_is_still_found():
    """Move 24's board (few empty squares left) smeared by 0.2 of a square at 148 degrees: the
    thin grid lines spread wider than the line filter picks out at every resolution tried
    before, and no board was found.  Farthest, along strokes, they are lines again."""
    image = real_photo(GAME / "image-24.jpg")
    reading = read_board(shaken(image, 0.2, 148.0), None, "de")
    assert corners_apart(reading.corners, read_board(image, None, "de").corners) < 0.25
    assert any("blurred" in warning for warning in reading.warnings())


def test_a_bent_grid_from_a_few_squares_gives_way_to_the_farthest_look():
    """Move 21's board smeared by 0.14 of a square across the rows: the only lattice found
    rests on squares bunched in part of the board and bends, its far corner 40 pixels off
    (the tiles there read empty or as other letters).  The farthest look places it right."""
    image = real_photo(GAME / "image-21.jpg")
    reading = read_board(shaken(image, 0.14, 107.0), None, "de")
    assert corners_apart(reading.corners, read_board(image, None, "de").corners) < 0.25


def test_no_square_of_a_blurred_photo_is_read_wrong_unflagged():
    """Move 18's board smeared by 0.21 of a square at 42 degrees: Tesseract was sure of an O
    for an Ö (0.98), and an E, its letter wiped into its face, was read a blank, sure.  Now a
    letter is sure only where the classifier finds its glyph likeliest to be that letter:
    wrong squares may remain, but each is named unsure."""
    image = real_photo(GAME / "image-18.jpg")
    known = as_read(game_boards()[18])
    reading = read_board(shaken(image, 0.21, 42.0), None, "de")
    assert any("blurred" in warning for warning in reading.warnings())
    wrong = [(r, c) for r in range(15) for c in range(15) if reading.board[r][c] != known[r][c]]
    assert len(wrong) < 20
    unflagged = [(r, c, known[r][c], reading.board[r][c], float(reading.confidence[r, c]))
                 for r, c in wrong
                 if reading.confidence[r, c] >= UNSURE_SHOWN
                 and not (reading.board[r][c] == "." and reading.confidence[r, c] <= UNSURE)]
    assert unflagged == []
    # The letters the photo shows plainly are still read sure.
    sure = sum(1 for r in range(15) for c in range(15)
               if known[r][c] != "." and reading.board[r][c] == known[r][c]
               and reading.confidence[r, c] >= UNSURE_SHOWN)
    assert sure >= 20


def grainy(image: np.ndarray, seed: int) -> np.ndarray:
    """``image`` as a small sensor at high gain takes it: noise of 9 levels, coarser than a
    pixel, then compressed as JPEG of quality 70."""
    h, w = image.shape[:2]
    noise = np.random.default_rng(seed).normal(0.0, 9.0, ((h + 1) // 2, (w + 1) // 2, 3))
    noise = cv2.resize(noise.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    noisy = np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    return cv2.imdecode(cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, 70])[1],
                        cv2.IMREAD_COLOR)


def test_a_blurred_photo_with_grain_is_still_said_to_be_blurred():
    """The real photo blurred by a fifth of a square (jheidel 164048), grainy as a dim room's
    photo is: at the letters' scale the blur (9.5 pixels) reaches past the shifts measured,
    and the grain let the fit take it for a short motion in another direction, unclear: the
    photo was read as sharp, with no warning.  Measured again at two thirds of the scale it
    shows clearly; it is said, and not undone from so rough a measure."""
    image = real_photo(JHEIDEL / "IMG_20141025_164048.jpg")
    reading = read_board(grainy(image, 1), None, "en")
    assert 0.17 <= reading.motion_blur <= 0.28, reading.motion_blur
    assert any("blurred" in warning for warning in reading.warnings())


def test_a_blurred_photo_shaken_further_is_still_said_to_be_blurred():
    """The real photo blurred by a fifth of a square (jheidel 164048) shaken further, by 0.16
    of a square at 150 degrees: within the shifts measured at the letters' scale the two
    motions fitted a defocus of 1.5 pixels, a smear of 0.11 of a square, below the warning;
    an I whose bar the blur wiped out was read a blank, sure.  A blur seen clearly is
    measured again at two thirds of the scale, where the longer one shows and is said."""
    image = real_photo(JHEIDEL / "IMG_20141025_164048.jpg")
    corners = np.asarray(read_board(image, None, "en").corners, np.float64)
    square_px = float(np.hypot(*(np.roll(corners, -1, axis=0) - corners).T).mean()) / 15
    blurred = Blur(motion=0.163, angle=150.4).apply(image, square_px)  # type: ignore[arg-type]
    reading = read_board(blurred, None, "en")
    assert reading.motion_blur >= 0.2, reading.motion_blur
    assert any("blurred" in warning for warning in reading.warnings())
    assert all(reading.confidence[r, c] < UNSURE_SHOWN for r in range(15) for c in range(15)
               if reading.board[r][c] == "?")
