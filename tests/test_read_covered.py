"""A photo taken with a hand over the board: the squares it covers are said to be covered and not
read (no letter invented from the skin's folds), and a photo with nothing over the board has
none (``vision.covered``)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from sim.hands import paste_hand
from sim.objects import paste_pen
from tests.real_photos import GAME, PHOTOS, as_read, game_boards, known_board
from tests.real_photos import real_photo as photo
from vision.covered import covered_squares
from vision.glyphs import crop_margin_px
from vision.read import UNSURE_SHOWN, read_board
from vision.rectified import SQUARE_PX, rectify_with_margin


@pytest.mark.parametrize("path", [
    PHOTOS / "jheidel" / "IMG_20141025_163953.jpg",
    PHOTOS / "jheidel" / "IMG_20151016_170803.jpg",
    PHOTOS / "scrabscrap-game01" / "image-27.jpg",
])
def test_a_real_photo_with_nothing_over_the_board_has_no_square_covered(path):
    reading = read_board(photo(path), None, "de" if "game01" in str(path) else "en")
    assert reading.covered == ()
    assert not any("covers" in warning for warning in reading.warnings())
    assert reading.to_json()["covered"] == []


def test_a_hand_over_a_real_board_is_said_to_cover_its_squares_and_no_letter_is_invented():
    """jheidel 163953 with a hand over 30 % of the grid: before, three letters were read on
    the hand (an S, an I and a blank) and the tiles under it were read empty, unflagged."""
    name = "IMG_20141025_163953.jpg"
    image = photo(PHOTOS / "jheidel" / name)
    known = known_board(name)
    corners = read_board(image, None, "en").corners
    handed, mask = paste_hand(image, corners, 0.3, np.random.default_rng(2))
    reading = read_board(handed, None, "en")
    covered = set(reading.covered)
    # The hand's share of each square, from its mask seen from above.
    margin = crop_margin_px(SQUARE_PX)
    top_down = rectify_with_margin(mask.astype(np.uint8) * 255, reading.corners)
    side = 15 * SQUARE_PX
    share = top_down[margin : margin + side, margin : margin + side].reshape(
        15, SQUARE_PX, 15, SQUARE_PX).mean(axis=(1, 3)) / 255
    under = {(r, c) for r in range(15) for c in range(15) if share[r, c] > 0.5}
    clear = {(r, c) for r in range(15) for c in range(15) if share[r, c] < 0.05}
    assert len(covered & under) >= 0.8 * len(under), (sorted(under - covered))
    assert len(covered & clear) <= 2, sorted(covered & clear)
    invented = [(r, c) for r in range(15) for c in range(15)
                if known[r][c] == "." and reading.board[r][c] != "."]
    assert invented == []
    for r, c in covered:
        assert reading.board[r][c] == "." and reading.confidence[r, c] <= 0.5
    assert any("covers" in warning for warning in reading.warnings())
    assert json.loads(json.dumps(reading.to_json()))["covered"] == reading.covered_squares()
    # Outside the hand every square reads as labelled.
    wrong = [(r, c) for r in range(15) for c in range(15)
             if (r, c) not in covered and reading.board[r][c] != known[r][c]]
    assert wrong == []


def test_a_board_whose_lines_all_show_has_none_covered_and_an_arm_from_its_edge_has():
    side, margin = SQUARE_PX, crop_margin_px(SQUARE_PX)
    board = np.full((15 * side + 2 * margin,) * 2, 150, np.uint8)
    for k in range(16):
        board[margin + k * side - 1 : margin + k * side + 2, :] = 230
        board[:, margin + k * side - 1 : margin + k * side + 2] = 230
    assert not covered_squares(board, side, margin).any()
    # A patch in the middle of the board, reaching no edge: glare, not an arm.
    middle = board.copy()
    middle[margin + 5 * side : margin + 9 * side, margin + 5 * side : margin + 9 * side] = 200
    assert not covered_squares(middle, side, margin).any()
    arm = board.copy()
    arm[margin + 9 * side :, margin + 2 * side : margin + 5 * side] = 190
    hidden = covered_squares(arm, side, margin)
    assert hidden[10:, 2:5].all() and hidden.sum() <= 3 * 6 + 6


def test_a_hand_over_a_full_board_leaves_the_tiles_in_sight_read():
    """game01's last photo (97 tiles) with a hand over a fifth of the grid, as
    ``bench/eval_real_views.py`` pastes it: the squares under the hand were counted as tiles
    by the uncalibrated occupancy (the skin is like a wooden face), so the tiles came to more
    than a set has, the face's look was dropped for the green board's, and 23 tiles far from
    the hand were read empty, unflagged."""
    path = PHOTOS / "scrabscrap-game01" / "image-27.jpg"
    image = photo(path)
    known = read_board(image, None, "de").board  # read exactly as labelled (eval_real)
    corners = read_board(image, None, "de").corners
    handed = paste_hand(image, corners, 0.2, np.random.default_rng(sum(map(ord, path.name))))[0]
    reading = read_board(handed, None, "de")
    covered = set(reading.covered)
    assert len(covered) >= 30
    wrong = [(r, c) for r in range(15) for c in range(15)
             if (r, c) not in covered and reading.board[r][c] != known[r][c]]
    unflagged = [sq for sq in wrong if reading.confidence[sq] > 0.5]
    assert len(wrong) <= 5 and unflagged == [], (wrong, unflagged)
    # Beside the hand nothing is sure, and no blank is seen in its edge.
    for r, c in covered:
        for sq in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if sq not in covered and 0 <= min(sq) and max(sq) < 15:
                assert reading.confidence[sq] <= 0.5
                assert reading.board[sq[0]][sq[1]] != "?" or known[sq[0]][sq[1]] == "?"


def test_a_finger_beyond_the_hand_found_is_no_sure_blank():
    """The real game's photo after move 3 with a hand reaching in from the right, its fingers
    over KÖDER and MÖSEN (``sim.hands.paste_hand``, seed 8897): the finger tips at C11 and D11
    lie beyond the squares whose lines the hand hides, nearer in colour to the cream faces
    than to the green squares, and showing no letter they were read as two blanks, sure.
    They show the hand's colours: they are covered, read empty and unsure."""
    image = photo(GAME / "image-3.jpg")
    corners = read_board(image, None, "de").corners
    seen = paste_hand(image, corners, 0.2, np.random.default_rng(8897))[0]
    reading = read_board(seen, None, "de")
    known = as_read(game_boards()[3])
    sure_blanks = [(r, c) for r in range(15) for c in range(15)
                   if reading.board[r][c] == "?" != known[r][c]
                   and reading.confidence[r, c] >= UNSURE_SHOWN]
    assert sure_blanks == []
    assert {(10, 2), (10, 3)} <= set(reading.covered)
    assert reading.board[10][2:4] == ".."


def test_fingers_beyond_the_lines_a_hand_hides_are_covered_where_they_show_its_colours():
    """A hand caught moving, its skin uneven (``paste_hand(moving=1.5, textured=True)``, as
    ``bench/eval_real_views.py``'s view "moving hand" pastes it), over the real game's photo
    after move 10: its smeared fingers hide the E of MÖSEN (E10) and the N of KÖDER's column
    beside it without hiding the squares' lines.  The E was read empty, sure, and the N as an
    I, sure.  The hand's colours, learnt where its lines are hidden, reach them: covered."""
    name = "image-10.jpg"
    image = photo(GAME / name)
    corners = read_board(image, None, "en").corners
    rng = np.random.default_rng(sum(map(ord, name)) + 7919)
    smear = float(rng.uniform(0.5, 2.0))
    seen = paste_hand(image, corners, 0.2, rng, moving=smear, textured=True)[0]
    reading = read_board(seen, None, "de")
    known = as_read(game_boards()[10])
    unflagged = [(r, c) for r in range(15) for c in range(15)
                 if reading.board[r][c] != known[r][c] and (
                     reading.confidence[r, c] > 0.5 if reading.board[r][c] == "."
                     else reading.confidence[r, c] >= UNSURE_SHOWN)]
    assert unflagged == []
    assert {(9, 4), (10, 4)} <= set(reading.covered)


@pytest.mark.parametrize("name, squares", [("image-24.jpg", 0.09), ("image-27.jpg", 0.07)])
def test_a_full_board_out_of_focus_has_no_square_covered(name, squares):
    """The real game's nearly full boards out of focus (every point spread over a disc
    ``squares`` of a square in radius, as ``bench/eval_real_views.py``'s view "defocus"
    does): the faint lines between the empty squares at the board's edges went under the
    blur, beside the tile edges that set the typical line, and 29 and 16 squares were said
    to be covered by a hand.  Their lines still show at a quarter of the typical side; a hand
    leaves a tenth."""
    image = photo(GAME / name)
    radius = squares * 56.0
    reach = int(np.ceil(radius))
    ys, xs = np.mgrid[-reach:reach + 1, -reach:reach + 1].astype(np.float32)
    disc = np.clip(radius + 0.5 - np.hypot(xs, ys), 0.0, 1.0)
    blurred = cv2.filter2D(image, -1, disc / disc.sum(), borderType=cv2.BORDER_REFLECT)
    reading = read_board(blurred, None, "de")
    assert reading.covered == ()
    assert not any("covers" in warning for warning in reading.warnings())


@pytest.mark.parametrize("n, draw", [(5, 0), (11, 1), (20, 1)])
def test_a_pen_lying_across_a_tile_leaves_no_sure_blank(n, draw):
    """A pen left lying on the real game's board (``sim.objects.paste_pen``) across a tile:
    the letter under it is found no more (its stroke joins the pen's), and the face, a fifth
    of it the pen's colour, was read as a blank, sure (the Ö of MÖSEN, the I of FIRNS).  A
    blank's face is the tiles' colour all over: a face less than four fifths of it is unsure."""
    image = photo(GAME / f"image-{n}.jpg")
    corners = read_board(image, None, "de").corners
    seen = paste_pen(image, corners, np.random.default_rng([len(f"image-{n}.jpg"), draw]))[0]
    reading = read_board(seen, None, "de")
    known = as_read(game_boards()[n])
    sure_wrong = [(r, c) for r in range(15) for c in range(15)
                  if reading.board[r][c] != known[r][c] and (
                      reading.confidence[r, c] > 0.5 if reading.board[r][c] == "."
                      else reading.confidence[r, c] >= UNSURE_SHOWN)]
    assert sure_wrong == []
