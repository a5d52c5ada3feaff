"""Glyph isolation and the calibrated classifier: crafted tiles, then real photos."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.letters import (
    BLANK,
    GLYPH_PX,
    LetterClassifier,
    crop_margin_px,
    extract_glyph,
    features,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GAME = SHARED / "data" / "photos" / "scrabscrap-game01"
S = 48
M = crop_margin_px(S)


def crafted_tile(letter: str | None, digit: str | None = "1", shift=(0, 0), turns: int = 0,
                 font: int = cv2.FONT_HERSHEY_SIMPLEX, thickness: int = 3) -> np.ndarray:
    """A square's crop (square plus margin): green board, a cream tile, a letter, a digit."""
    size = S + 2 * M
    crop = np.zeros((size, size, 3), np.uint8)
    crop[:] = (40, 120, 20)  # board green (BGR)
    tile = np.full((S - 4, S - 4, 3), (200, 225, 235), np.uint8)
    if letter:
        cv2.putText(tile, letter, (10, 33), font, 1.0, (30, 30, 30), thickness, cv2.LINE_AA)
    if digit:
        cv2.putText(tile, digit, (33, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.3, (30, 30, 30), 1,
                    cv2.LINE_AA)
    tile = np.rot90(tile, turns)
    y, x = M + 2 + shift[1], M + 2 + shift[0]
    crop[y : y + S - 4, x : x + S - 4] = tile
    return crop


def test_glyph_found_and_digit_left_out():
    with_digit = extract_glyph(crafted_tile("E", "10"), S)
    without = extract_glyph(crafted_tile("E", None), S)
    assert with_digit is not None and without is not None
    assert with_digit.normalised.shape == (GLYPH_PX, GLYPH_PX)
    # The digit changes nothing: the same glyph either way.
    assert np.abs(with_digit.normalised - without.normalised).max() < 0.05
    assert 0.3 < with_digit.height < 0.7
    dx, dy = with_digit.digit
    assert dx > 0 and dy > 0  # lower right of an upright tile
    assert without.digit is None


def test_turned_tile_moves_the_digit():
    glyph = extract_glyph(crafted_tile("E", "1", turns=1), S)
    assert glyph is not None
    dx, dy = glyph.digit
    assert dx > 0 and dy < 0  # np.rot90 turns counter-clockwise: lower right goes upper right


def test_blank_face_has_no_glyph_and_empty_square_neither():
    assert extract_glyph(crafted_tile(None, None), S) is None
    board_only = np.zeros((S + 2 * M, S + 2 * M, 3), np.uint8)
    board_only[:] = (40, 120, 20)
    assert extract_glyph(board_only, S) is None


def test_shifted_tile_is_still_read():
    centred = extract_glyph(crafted_tile("A"), S)
    shifted = extract_glyph(crafted_tile("A", shift=(-12, 10)), S)
    assert centred is not None and shifted is not None
    assert np.abs(centred.normalised - shifted.normalised).mean() < 0.05


def test_marks_above_are_part_of_the_glyph():
    tile = crafted_tile("A")
    plain = extract_glyph(tile, S)
    cv2.circle(tile, (M + 2 + 17, M + 2 + 7), 2, (30, 30, 30), -1)
    cv2.circle(tile, (M + 2 + 27, M + 2 + 7), 2, (30, 30, 30), -1)
    marked = extract_glyph(tile, S)
    assert plain is not None and marked is not None
    assert marked.marked and not plain.marked
    assert marked.height > plain.height


def _samples(letters: str, fonts: tuple[int, ...], thicknesses: tuple[int, ...]):
    glyphs, labels = [], []
    for letter in letters:
        for font in fonts:
            for thickness in thicknesses:
                g = extract_glyph(crafted_tile(letter, font=font, thickness=thickness), S)
                assert g is not None, letter
                glyphs.append(g.normalised)
                labels.append(letter)
    return np.stack(glyphs), labels


def test_classifier_learns_crafted_letters():
    letters = "AEIOUNRSTLMHKWZ"
    fonts = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX)
    train_x, train_y = _samples(letters, fonts, (2, 4))
    test_x, test_y = _samples(letters, fonts, (3,))
    classifier = LetterClassifier()
    classifier.fit(train_x, train_y)
    guesses = classifier.predict(test_x)
    right = sum(g.letter == y for g, y in zip(guesses, test_y, strict=True))
    assert right >= len(test_y) - 1
    assert classifier.letters == set(letters)


def test_unseen_letter_gets_low_confidence():
    fonts = (cv2.FONT_HERSHEY_SIMPLEX,)
    train_x, train_y = _samples("AEIOU", fonts, (2, 3, 4))
    classifier = LetterClassifier()
    classifier.fit(train_x, train_y)
    seen = classifier.predict(_samples("E", fonts, (3,))[0])[0]
    unseen = classifier.predict(_samples("W", fonts, (3,))[0])[0]
    assert seen.letter == "E" and seen.confidence > 0.7
    assert unseen.confidence < seen.confidence and unseen.confidence < 0.7


def test_empty_classifier_and_bad_input():
    classifier = LetterClassifier()
    assert classifier.predict(np.zeros((0, GLYPH_PX, GLYPH_PX))) == []
    assert classifier.predict(np.zeros((1, GLYPH_PX, GLYPH_PX)))[0].letter == BLANK
    with pytest.raises(ValueError, match="2 glyphs but 1 labels"):
        classifier.fit(np.zeros((2, GLYPH_PX, GLYPH_PX)), ["A"])
    assert features(np.zeros((0, GLYPH_PX, GLYPH_PX))).shape[0] == 0


def _real_frame(n: int):
    if not GAME.is_dir():
        pytest.skip(f"real photos not available: {GAME} is missing")
    from vision.locate import locate_board
    from vision.read import glyphs_of, rectify_with_margin

    boards = {}
    text = (GAME / "boards_after_each_move.txt").read_text("utf-8")
    for section in text.split("## after move ")[1:]:
        lines = section.splitlines()
        boards[int(lines[0].split()[0])] = lines[1:16]
    image = cv2.imread(str(GAME / f"image-{n}.jpg"))
    rectified = rectify_with_margin(image, locate_board(image).corners)
    squares = [(r, c) for r in range(15) for c in range(15) if boards[n][r][c] != "."]
    return [(boards[n][r][c], g) for (r, c), g in zip(squares, glyphs_of(rectified, squares),
                                                      strict=True)]


def test_real_tiles_learnt_from_earlier_photos():
    train = _real_frame(10) + _real_frame(14)
    test = _real_frame(22)
    # Blanks: never a glyph on a blank's face, a glyph on every letter tile.
    for letter, glyph in train + test:
        assert (glyph is None) == letter.islower(), letter
    classifier = LetterClassifier()
    classifier.fit(np.stack([g.normalised for _, g in train if g]), [y for y, g in train if g])
    seen = [(y, g) for y, g in test if g and y in classifier.letters]
    guesses = classifier.predict(np.stack([g.normalised for _, g in seen]))
    right = sum(p.letter == y for p, (y, _) in zip(guesses, seen, strict=True))
    assert len(seen) > 60
    assert right / len(seen) >= 0.98
