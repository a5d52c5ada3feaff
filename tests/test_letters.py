"""Glyph isolation and the calibrated classifier: crafted tiles, then real photos."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.real_photos import GAME, game_boards
from vision import glyphs
from vision.glyphs import BLANK, GLYPH_PX, crop_margin_px, extract_glyph
from vision.letters import AS_PHOTOGRAPHED, BLURS, BOXED, Blur, LetterClassifier, boxed, features

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


def _comb(arms: tuple[int, ...], arm_ink: float = 1.0, blur: float = 0.0) -> np.ndarray:
    """A normalised glyph of a stem with arms to its right at rows ``arms`` (an E or an F),
    the arms' shading ``arm_ink`` of the stem's, blurred by ``blur`` pixels."""
    glyph = np.zeros((GLYPH_PX, GLYPH_PX), np.float32)
    glyph[3:21, 6:10] = 1.0
    for row in arms:
        glyph[row : row + 2, 10:18] = arm_ink
    return cv2.GaussianBlur(glyph, (0, 0), blur) if blur else glyph


@pytest.mark.parametrize("arm_ink", [0.5, 0.3, 0.2])
def test_thin_strokes_a_blur_left_faint_still_count(arm_ink):
    """A blur leaves a thin stroke a fraction of a thick one's ink: an E whose arms kept a fifth
    of the stem's is still an E, not the F whose stem and upper arms it shares."""
    classifier = LetterClassifier()
    classifier.fit(np.stack([_comb((3, 11, 19)), _comb((3, 11))]), ["E", "F"])
    assert classifier.predict(_comb((3, 11, 19), arm_ink, blur=1.0)[None])[0].letter == "E"


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
    from vision.locate import locate_board
    from vision.rectified import glyphs_of, rectify_with_margin

    boards = game_boards()
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


def _motion_blurred(crop: np.ndarray, length: float, angle: float) -> np.ndarray:
    """The crop as a camera moving ``length`` squares at ``angle`` degrees would see it."""
    return Blur(motion=length, angle=angle).apply(crop, S)


SERIF = cv2.FONT_HERSHEY_COMPLEX


def test_blurred_letter_keeps_its_faint_strokes():
    # A crossbar thinner than the blur across it keeps a third of its contrast: the glyph must
    # still show it, or T, E and L all become the I of their stem.
    sharp = extract_glyph(crafted_tile("T", font=SERIF, thickness=2), S)
    blurred = extract_glyph(_motion_blurred(crafted_tile("T", font=SERIF, thickness=2), 0.25, 90),
                            S)
    assert sharp is not None and blurred is not None
    top = blurred.normalised[: GLYPH_PX // 3]
    # The bar spans the letter's width: ink well left and right of the stem's columns.
    columns = np.nonzero(top.max(axis=0) > 0.15)[0]
    assert columns.max() - columns.min() >= GLYPH_PX // 2


@pytest.mark.parametrize("blur", [None, (0.2, 30), (0.25, 90)])
def test_other_readers_get_the_ink_of_the_stricter_level(blur, monkeypatch):
    # Tesseract read the real game worse from the weaker ink that now holds a glyph together
    # (bench/eval_scrabscrap.py): what it is handed is the glyph as the stricter level finds it.
    tiles = [crafted_tile(letter, font=font, thickness=2)
             for letter in "TEILOXZ" for font in (SERIF, cv2.FONT_HERSHEY_SIMPLEX)]
    if blur is not None:
        tiles = [_motion_blurred(tile, *blur) for tile in tiles]
    assert glyphs.WEAK_LEVEL < glyphs.READER_INK_LEVEL
    found = [extract_glyph(tile, S) for tile in tiles]
    monkeypatch.setattr(glyphs, "WEAK_LEVEL", glyphs.READER_INK_LEVEL)
    stricter = [extract_glyph(tile, S) for tile in tiles]
    for glyph, strict in zip(found, stricter, strict=True):
        assert glyph is not None and strict is not None
        np.testing.assert_array_equal(glyph.ink, strict.ink)


def test_blurred_letters_read_after_calibration_on_sharp_ones():
    letters = "EFILTHNMOD"
    classifier = LetterClassifier()
    glyphs, labels, blurs = [], [], []
    for letter in letters:
        tile = crafted_tile(letter, font=SERIF, thickness=2)
        sharp = extract_glyph(tile, S)
        assert sharp is not None, letter
        glyphs.append(sharp.normalised)
        labels.append(letter)
        blurs.append(AS_PHOTOGRAPHED)
        # What Profile.extend learns besides: the same tile under each blur a photo may add.
        for blur in BLURS:
            found = extract_glyph(blur.apply(tile, S), S)
            if found is not None:
                glyphs.append(found.normalised)
                labels.append(letter)
                blurs.append(blur.tag)
    classifier.fit(np.stack(glyphs), labels, blurs)
    # A photo shaken across the letters' crossbars, at a length and angle between those learnt.
    photo = [extract_glyph(_motion_blurred(crafted_tile(letter, font=SERIF, thickness=2),
                                           0.24, 97), S) for letter in letters]
    assert all(g is not None for g in photo)
    guesses = classifier.predict(np.stack([g.normalised for g in photo]))
    read = "".join(g.letter for g in guesses)
    assert sum(a == b for a, b in zip(read, letters, strict=True)) >= len(letters) - 1, read


def test_blur_tags():
    for blur in BLURS:
        assert Blur.parse(blur.tag) == blur
    with pytest.raises(ValueError, match="not a blur: 'shaky'"):
        Blur.parse("shaky")
    flat = np.zeros((40, 40), np.uint8)
    flat[20, 20] = 255
    smeared = Blur(motion=0.25, angle=0).apply(flat, 48)
    ys, xs = np.nonzero(smeared)
    assert set(ys) == {20} and xs.max() - xs.min() >= 10  # along x only
    assert Blur(defocus=0.04).apply(flat, 48)[20, 20] < 255


def test_blurs_far_from_the_photos_are_left_out():
    bar = np.zeros((GLYPH_PX, GLYPH_PX), np.float32)
    bar[4:20, 10:14] = 1
    tee = bar.copy()
    tee[4:7, 4:20] = 1
    smeared_tee = cv2.blur(tee, (1, 9))  # its bar all but gone: close to a smeared I
    classifier = LetterClassifier()
    classifier.fit(np.stack([bar, tee, cv2.blur(bar, (1, 9)), smeared_tee]), ["I", "T", "I", "T"],
                   [AS_PHOTOGRAPHED, AS_PHOTOGRAPHED, "motion 0.2 90", "motion 0.2 90"])
    # Sharp glyphs are compared with sharp samples, whatever the blurred ones look like.
    assert [g.letter for g in classifier.predict(np.stack([bar, tee, bar]))] == ["I", "T", "I"]
    assert classifier.predict(np.stack([smeared_tee] * 3))[0].letter == "T"


def test_boxed_samples_of_earlier_profiles_still_read():
    # Earlier profiles kept binary glyphs scaled to their box; glyphs now are drawn at one
    # scale from their shading.  Both kinds meet when the glyph is boxed the same way.
    train_x, train_y = _samples("AEIOU", (cv2.FONT_HERSHEY_SIMPLEX,), (2, 4))
    test_x, test_y = _samples("AEIOU", (cv2.FONT_HERSHEY_SIMPLEX,), (3,))
    classifier = LetterClassifier()
    classifier.fit(boxed(train_x), train_y, [BOXED] * len(train_y))
    read = [g.letter for g in classifier.predict(test_x)]
    assert read == test_y
    assert boxed(test_x).shape == test_x.shape


def test_a_line_across_a_square_is_told_from_a_letter_and_a_tiles_edge() -> None:
    """A crease runs on to both ends of its square; a letter ends inside its tile, and a
    tile's edge shifted across the square's middle is far fainter than the tile's letter."""
    from vision.glyphs import GlyphFinder, crop_margin_px

    s = 48
    m = crop_margin_px(s)
    grey = np.full((15 * s + 2 * m, 15 * s + 2 * m), 220, np.uint8)

    def at(r: int, c: int) -> tuple[int, int]:
        return m + r * s, m + c * s

    y, x = at(7, 7)
    grey[y - s:y + 2 * s, x + s // 2 - 1:x + s // 2 + 2] = 110  # a crease down column 7
    y, x = at(7, 3)
    grey[y + 29:y + 31, x - 4:x + s + 4] = 170                  # a faint tile edge ...
    grey[y + 11:y + 37, x + 20:x + 28] = 40                     # ... under an I's stem
    y, x = at(3, 3)
    grey[y + 11:y + 37, x + 20:x + 28] = 40                     # a lone I
    finder = GlyphFinder(grey, s)
    assert finder.lines_across([(7, 7), (7, 3), (3, 3)]).tolist() == [True, False, False]
    # Turned a quarter, the crease runs across the same middle square.
    assert finder.lines_across([(7, 7)], quarter_turns=1).tolist() == [True]


def _stem_and_foot(joined: bool) -> np.ndarray:
    """A tile with a dark stem and, at its lower right, a piece of a foot as a blur across it
    leaves it: weaker than the stem, and (``joined``) tied to it by fainter ink still."""
    crop = crafted_tile(None, None)
    grey_of = {"stem": 60, "foot": 155, "tie": 185}  # the face is about 225
    y0, y1 = M + 10, M + 36  # the stem, 26 px tall
    crop[y0:y1, M + 17 : M + 23] = grey_of["stem"]
    crop[y1 - 6 : y1, M + 31 : M + 39] = grey_of["foot"]
    if joined:
        crop[y1 - 5 : y1 - 1, M + 23 : M + 31] = grey_of["tie"]
    return crop


def test_a_weak_stroke_tied_to_the_letter_by_faint_ink_is_not_its_digit():
    # Motion blur across an L's foot or an E's arms leaves them weaker than the stem, cut from
    # it at the level that holds a glyph together: taken for the point-value digit, they were
    # cut out of the glyph, and L, E and F were read as I.
    apart = extract_glyph(_stem_and_foot(joined=False), S)
    tied = extract_glyph(_stem_and_foot(joined=True), S)
    assert apart is not None and tied is not None
    assert apart.digit is not None and apart.digit[0] > 0 and apart.digit[1] > 0
    assert tied.digit is None
    # The foot is in the glyph: its ink spans more than the stem's width.
    columns = np.nonzero(tied.normalised.max(axis=0) > 0.3)[0]
    assert columns.max() - columns.min() >= GLYPH_PX // 2
