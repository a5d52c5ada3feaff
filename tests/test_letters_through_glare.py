"""A lamp's reflection over tiles on a real photo: the letters still tell the tiles from the
empty squares it brightened (``vision.missed_letters.letters_through_glare``), where the
colour no longer does."""

from __future__ import annotations

import numpy as np

from tests.real_photos import GAME, game_boards, real_photo, reflected
from vision.letter_choice import like_a_letter
from vision.locate import locate_board
from vision.missed_letters import letters_through_glare
from vision.rectified import finder_of_frame
from vision.stock import stock_classifier


def test_a_reflection_over_a_move_leaves_its_letters_and_no_letter_elsewhere():
    """The real game's photo after move 26 (TOU.I laid across row 9 of the photo), with a
    reflection 0.8 white at the T: the T shows no glyph as the photo is read, and is found
    once its contrast is raised; the empty squares under the reflection show none."""
    image = real_photo(GAME / "image-26.jpg")
    corners = np.asarray(locate_board(image).corners, np.float32)
    seen = reflected(image, (8.5, 8.5), 0.3, corners=corners)
    board = game_boards()[26]
    finder = finder_of_frame(seen, corners, 0)
    near = [(r, c) for r in range(6, 11) for c in range(6, 11)]
    tiles = [square for square in near if board[square[0]][square[1]] != "."]
    empty = [square for square in near if board[square[0]][square[1]] == "."]
    assert (8, 8) in tiles and finder.glyphs([(8, 8)]) == [None]
    heights = [g.height for g in finder.glyphs([(7, 3), (7, 4), (7, 5), (7, 6)]) if g]
    stock = stock_classifier(set("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ"))
    lettered, white = letters_through_glare(
        finder, tiles + empty, float(np.median(heights)),
        lambda glyphs: like_a_letter(glyphs, [stock]))
    on_tiles, on_empty = lettered[: len(tiles)], lettered[len(tiles):]
    assert on_tiles.all(), [sq for sq, y in zip(tiles, on_tiles, strict=True) if not y]
    assert not on_empty.any(), [sq for sq, y in zip(empty, on_empty, strict=True) if y]
    assert not white.any()
