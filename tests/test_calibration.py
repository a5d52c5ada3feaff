"""Calibration profiles: the folder format, known boards, learning from real photos."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.profile import (
    MAX_BLURRED_PER_LETTER,
    MAX_SAMPLES_PER_LETTER,
    PROFILE_FILE,
    SAMPLES_FILE,
    Profile,
    ProfileError,
    parse_board_rows,
    read_board_file,
)
from scorer.tiles import TileSet
from tests.real_photos import GAME, game_boards
from vision.glyphs import GLYPH_PX
from vision.letters import AS_PHOTOGRAPHED, BLURS, BOXED, features


def photo(n: int) -> np.ndarray:
    return cv2.imread(str(GAME / f"image-{n}.jpg"))


def test_board_rows_checked():
    rows = ["." * 15] * 15
    assert parse_board_rows(rows + ["", "  "]) == rows
    with pytest.raises(ProfileError, match="row 3 has 14 squares"):
        parse_board_rows(["." * 15] * 2 + ["." * 14] + ["." * 15] * 12)
    bad = ["." * 15] * 15
    bad[4] = "....Ñ.........."
    with pytest.raises(ProfileError, match="row 5, column 5: 'Ñ' is not a letter of the german"):
        parse_board_rows(bad, TileSet.named("de"))
    assert parse_board_rows(["....ä.........."] + ["." * 15] * 14, TileSet.named("de"))


def test_board_file_errors_name_the_file(tmp_path):
    with pytest.raises(ProfileError, match="cannot read board file .*missing.txt"):
        read_board_file(tmp_path / "missing.txt")
    short = tmp_path / "short.txt"
    short.write_text("...\n", encoding="utf-8")
    with pytest.raises(ProfileError, match="short.txt: a board has 15 rows, got 1"):
        read_board_file(short)


def test_save_and_load_round_trip(tmp_path):
    profile = Profile(tileset="german", corners=np.float32([[1, 2], [3, 4], [5, 6], [7, 8]]),
                      orientation=2, occupancy={"kind": "test"})
    rng = np.random.default_rng(1)
    profile.add_samples(rng.random((3, GLYPH_PX, GLYPH_PX)), ["A", "Ä", "?"])
    profile.save(tmp_path / "p")
    meta = json.loads((tmp_path / "p" / PROFILE_FILE).read_text("utf-8"))
    assert meta["version"] == 1 and meta["tileset"] == "de" and meta["orientation"] == 2
    loaded = Profile.load(tmp_path / "p")
    assert loaded.tileset == "de" and loaded.orientation == 2
    assert loaded.occupancy == {"kind": "test"}
    np.testing.assert_allclose(loaded.corners, profile.corners)
    assert loaded.labels == ["A", "Ä", "?"]
    np.testing.assert_array_equal(loaded.glyphs, profile.glyphs)
    assert loaded.classifier().letters == {"A", "Ä", "?"}


def test_load_errors(tmp_path):
    with pytest.raises(ProfileError, match="profile.json missing"):
        Profile.load(tmp_path)
    (tmp_path / PROFILE_FILE).write_text('{"version": 99}', encoding="utf-8")
    with pytest.raises(ProfileError, match="unsupported profile version 99"):
        Profile.load(tmp_path)
    (tmp_path / PROFILE_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(ProfileError, match="cannot read"):
        Profile.load(tmp_path)


def test_samples_capped_per_letter_newest_kept():
    profile = Profile(tileset="en")
    glyphs = np.zeros((MAX_SAMPLES_PER_LETTER + 5, GLYPH_PX, GLYPH_PX), np.float32)
    glyphs[-1, 0, 0] = 1.0  # the newest E
    profile.add_samples(glyphs, ["E"] * len(glyphs))
    profile.add_samples(np.zeros((1, GLYPH_PX, GLYPH_PX)), ["X"])
    assert profile.counts() == {"E": MAX_SAMPLES_PER_LETTER, "X": 1}
    assert profile.glyphs[MAX_SAMPLES_PER_LETTER - 1, 0, 0] == 255
    with pytest.raises(ProfileError, match="'Ä' is not a letter of the english"):
        profile.add_samples(np.zeros((1, GLYPH_PX, GLYPH_PX)), ["Ä"])


def test_classifier_built_once_until_the_samples_change():
    profile = Profile(tileset="en")
    rng = np.random.default_rng(5)
    profile.add_samples(rng.random((MAX_SAMPLES_PER_LETTER, GLYPH_PX, GLYPH_PX)),
                        ["E"] * MAX_SAMPLES_PER_LETTER)
    classifier = profile.classifier()
    assert profile.classifier() is classifier  # every read reuses it
    # One more E: the oldest goes, as many samples as before, yet the classifier is new.
    newest = np.zeros((1, GLYPH_PX, GLYPH_PX))
    newest[0, 4:20, 10:14] = 1.0
    profile.add_samples(newest, ["E"])
    rebuilt = profile.classifier()
    assert rebuilt is not classifier and len(rebuilt) == len(classifier)
    assert rebuilt.predict(newest)[0].similarity == pytest.approx(1.0, abs=1e-4)
    assert profile.classifier() is rebuilt


def test_extend_from_real_photos_then_read(tmp_path):
    boards = game_boards()
    from vision.read import read_board

    profile = Profile(tileset="de")
    report = profile.extend(photo(3), boards[3])
    assert report.letters == 12 and report.blanks == 0 and not report.disagreements
    assert profile.orientation == 0  # the game's rows stand as the photos do
    assert profile.corners is not None and profile.occupancy is not None
    profile.extend(photo(14), boards[14])
    report = profile.extend(photo(24), boards[24])
    assert report.blanks == 2  # the two blanks of move 23 and 24
    assert profile.corners is not None, "a fixed camera keeps its corners"
    profile.save(tmp_path)
    loaded = Profile.load(tmp_path)
    reading = read_board(photo(26), loaded)
    expected = ["".join("?" if ch.islower() else ch for ch in row) for row in boards[26]]
    wrong = [(r, c) for r in range(15) for c in range(15) if reading.board[r][c] != expected[r][c]]
    assert len(wrong) <= 1, wrong
    # Never a tile read as an empty square or the reverse.
    assert all(reading.board[r][c] != "." and expected[r][c] != "." for r, c in wrong)
    assert reading.confidence.shape == (15, 15)
    assert all(reading.board[r][c] == "?" for r, c in [(0, 6), (3, 10)])  # blanks stay blanks


def test_turned_photo_gives_turned_orientation():
    boards = game_boards()
    profile = Profile(tileset="de")
    profile.extend(np.ascontiguousarray(np.rot90(photo(5))), boards[5])
    # The photo was turned counter-clockwise; three more quarter turns set it upright.
    assert profile.orientation == 3


def test_extend_from_squares_learns_confirmed_tiles():
    boards = game_boards()
    from vision.locate import locate_board
    from vision.rectify import rectify

    profile = Profile(tileset="de")
    profile.extend(photo(1), boards[1])
    before = profile.counts()
    image = photo(2)
    rectified = rectify(image, locate_board(image).corners, square_px=40, margin=10)
    squares = {(6, 4): "V", (8, 4): "T", (9, 4): "E", (10, 4): "N"}
    report = profile.extend_from_squares(rectified, squares, square_px=40, margin=10)
    assert report.letters == 4 and not report.disagreements
    after = profile.counts()
    assert after["V"] == 1 and after["T"] == 1 and after["N"] == before["N"] + 1
    with pytest.raises(ProfileError, match="smaller than 15 squares"):
        profile.extend_from_squares(rectified[:100], squares, square_px=40, margin=10)


def test_profile_of_an_earlier_version_still_loads_and_reads(tmp_path):
    # Written as profiles were before blurs and glyph formats: glyphs and labels only.
    boards = game_boards()
    from vision.letters import boxed
    from vision.locate import locate_board
    from vision.rectified import glyphs_of, rectify_with_margin

    image = photo(14)
    rect = rectify_with_margin(image, locate_board(image).corners)
    squares = [(r, c) for r in range(15) for c in range(15) if boards[14][r][c].isupper()]
    found = glyphs_of(rect, squares)
    pairs = [(g, boards[14][r][c]) for g, (r, c) in zip(found, squares, strict=True) if g]
    # The box-scaled binary glyphs earlier versions stored.
    old = np.round(boxed(np.stack([g.normalised for g, _ in pairs])) * 255).astype(np.uint8)
    np.savez_compressed(tmp_path / SAMPLES_FILE, glyphs=old,
                        labels=np.array([y for _, y in pairs], dtype=str))
    (tmp_path / PROFILE_FILE).write_text(
        json.dumps({"version": 1, "tileset": "de", "corners": None, "orientation": 0,
                    "occupancy": None}), encoding="utf-8")
    profile = Profile.load(tmp_path)
    assert set(profile.blurs) == {BOXED} and len(profile.labels) == len(pairs)
    classifier = profile.classifier()
    later = photo(22)
    rect = rectify_with_margin(later, locate_board(later).corners)
    squares = [(r, c) for r in range(15) for c in range(15)
               if boards[22][r][c].isupper() and boards[22][r][c] in classifier.letters]
    glyphs = glyphs_of(rect, squares)
    guesses = classifier.predict(np.stack([g.normalised for g in glyphs if g is not None]))
    truth = [boards[22][r][c] for (r, c), g in zip(squares, glyphs, strict=True) if g]
    right = sum(g.letter == y for g, y in zip(guesses, truth, strict=True))
    assert right / len(truth) >= 0.95
    # Learning goes on: new samples join the old ones, which count as photographed.
    profile.add_samples(np.zeros((1, GLYPH_PX, GLYPH_PX)), ["E"])
    profile.save(tmp_path / "again")
    assert Profile.load(tmp_path / "again").blurs.count(BOXED) == len(pairs)


def test_samples_keep_their_blurs_and_features(tmp_path):
    profile = Profile(tileset="en")
    rng = np.random.default_rng(3)
    glyphs = rng.random((MAX_BLURRED_PER_LETTER + 3, GLYPH_PX, GLYPH_PX))
    tag = BLURS[5].tag
    profile.add_samples(glyphs, ["E"] * len(glyphs), [tag] * len(glyphs))
    profile.add_samples(glyphs[:2], ["E", "E"])
    # Blurred copies are capped per letter and blur, and are not counted as photographed.
    assert profile.blurs.count(tag) == MAX_BLURRED_PER_LETTER
    assert profile.blurs.count(AS_PHOTOGRAPHED) == 2 and profile.counts() == {"E": 2}
    with pytest.raises(ProfileError, match="not a blur: 'wobbly'"):
        profile.add_samples(glyphs[:1], ["E"], ["wobbly"])
    profile.save(tmp_path)
    loaded = Profile.load(tmp_path)
    assert loaded.blurs == profile.blurs
    # Features come saved (half precision), as the classifier would compute them.
    expected = features(loaded.glyphs.astype(np.float32) / 255.0)
    np.testing.assert_allclose(loaded._sample_features(), expected, atol=2e-3)
    assert loaded.classifier().letters == {"E"}


def test_extend_learns_each_tile_under_blurs_too():
    boards = game_boards()
    profile = Profile(tileset="de")
    report = profile.extend(photo(3), boards[3])
    as_photographed = profile.blurs.count(AS_PHOTOGRAPHED)
    assert as_photographed == report.letters == 12
    blurred = set(profile.blurs) - {AS_PHOTOGRAPHED}
    # Nearly every blur finds every tile's glyph again.
    assert len(blurred) == len(BLURS)
    assert len(profile.labels) - as_photographed >= 0.9 * len(BLURS) * as_photographed


def test_a_tile_found_misread_after_it_was_learnt_is_renamed_in_the_profile():
    # Real game, move 2: V(I)TEN.  Say the V had been confirmed as a U and learnt so; when the
    # misread is found, every sample that tile gave (as photographed and blurred) is renamed.
    boards = game_boards()
    from vision.locate import locate_board
    from vision.rectify import rectify

    profile = Profile(tileset="de")
    profile.extend(photo(1), boards[1])
    image = photo(2)
    rectified = rectify(image, locate_board(image).corners, square_px=40, margin=10)
    report = profile.extend_from_squares(
        rectified, {(6, 4): "U", (8, 4): "T", (9, 4): "E", (10, 4): "N"}, 40, 10)
    samples = report.samples[(6, 4)]
    assert len(samples) > 10  # as photographed, and under most blurs
    labels_before = list(profile.labels)
    assert profile.relabel(samples, "U", "V") == len(samples)
    assert "U" not in profile.labels and profile.labels.count("V") == len(samples)
    changed = [a for a, b in zip(labels_before, profile.labels, strict=True) if a != b]
    assert len(changed) == len(samples)  # the other tiles' samples are untouched
    assert profile.classifier().predict(samples[0][None].astype(np.float32) / 255)[0].letter == "V"
    assert profile.relabel(samples, "U", "V") == 0  # nothing learnt as U is left
