"""``bench/eval_real.py``: its scoring on hand-made boards, its label files, and that each
left-out photo's profile holds exactly the other photos.  No photo is read."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load():
    spec = importlib.util.spec_from_file_location("eval_real", ROOT / "bench" / "eval_real.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["eval_real"] = module
    spec.loader.exec_module(module)
    return module


E = _load()
EMPTY_ROW = "." * 15


def board(**rows: str) -> list[str]:
    """A board of empty rows but those given as ``r7="..."`` (0-based row numbers)."""
    out = [EMPTY_ROW] * 15
    for key, row in rows.items():
        out[int(key[1:])] = row
    return out


def test_a_perfect_reading_has_no_wrong_square():
    known = board(r7="...FIRNS.......", r8="....e..........")
    read = board(r7="...FIRNS.......", r8="....?..........")
    assert E.score(read, known) == []


def test_each_kind_of_error_is_counted_where_it_is():
    known = board(r7="...FIRNS.......", r8="....E....A.....", r9="....s..........")
    read = board(r7="...FIBN........", r8="....?....A...X.", r9="....T..........")
    wrong = E.score(read, known)
    kinds = {w.square: w.kind for w in wrong}
    assert kinds == {
        "F8": "letter",         # R read as B
        "H8": "tile_as_empty",  # S missed
        "E9": "blank",          # a letter read as a blank
        "N9": "empty_as_tile",  # X where there is no tile
        "E10": "blank",         # a blank (lower case s) read as a letter
    }
    assert E.counts(wrong) == {"letter": 1, "tile_as_empty": 1, "blank": 2, "empty_as_tile": 1}
    assert str(next(w for w in wrong if w.square == "F8")) == "F8 R->B"


def test_the_confidence_is_kept_with_each_wrong_square():
    import numpy as np

    confidence = np.full((15, 15), 0.9)
    confidence[7, 7] = 0.25
    wrong = E.score(board(r7=".......D......."), board(r7=".......C......."), confidence)
    assert [str(w) for w in wrong] == ["H8 C->D 0.25"]


def test_no_board_found_counts_every_square_wrong():
    wrong = E.score(None, board(r7="...FIRNS......."))
    assert len(wrong) == 225
    assert E.counts(wrong) == {"not_found": 225}


def test_squares_are_named_as_gcg_names_them():
    assert E.square_name(0, 0) == "A1"
    assert E.square_name(7, 7) == "H8"
    assert E.square_name(14, 14) == "O15"
    assert E.square_name(3, 10) == "K4"


def test_a_reading_turned_a_quarter_is_told():
    known = board(r7="...FIRNS.......")
    import numpy as np

    turned = ["".join(row) for row in np.rot90(np.array([list(r) for r in known]), -1)]
    assert E.turned_better(known, known) is None
    assert E.turned_better(turned, known) == (1, 0)


def test_word_check_effect_counts_squares_made_right_and_wrong():
    known = board(r7="...CAT.........")
    off = E.score(board(r7="...CAB........."), known)  # F8 wrong
    on = E.score(board(r7="...OAT........."), known)  # F8 made right, D8 made wrong
    assert E.word_check_effect(off, on) == (1, 1, 0)
    changed = E.score(board(r7="...CAR........."), known)
    assert E.word_check_effect(off, changed) == (0, 0, 1)


def test_label_sections_are_parsed_and_checked():
    text = "# a comment\n\n## x.jpg (note)\n" + "\n".join([EMPTY_ROW] * 15) + "\n"
    assert E.named_boards(text) == {"x.jpg": [EMPTY_ROW] * 15}
    with pytest.raises(ValueError, match="15 rows"):
        E.parse_sections("## x.jpg\n" + "\n".join([EMPTY_ROW] * 14))


def test_the_projects_own_labels_parse():
    boards = E.named_boards(
        (ROOT / "bench" / "labels" / "jheidel-20151016.txt").read_text(encoding="utf-8"),
        "IMG_20151016_")
    assert list(boards) == ["IMG_20151016_170219.jpg", "IMG_20151016_170803.jpg"]
    # The second photo holds the 100 tiles of the English set, two of them blanks.
    assert sum(ch != "." for row in boards["IMG_20151016_170803.jpg"] for ch in row) == 100
    assert sum(row.count("?") for row in boards["IMG_20151016_170803.jpg"]) == 2


def test_the_shared_labels_parse():
    if not E.PHOTOS.is_dir():
        pytest.skip(f"the shared photos are not beside the repository ({E.PHOTOS})")
    sets = E.photo_sets()
    game = sets["scrabscrap-game01"]
    assert not isinstance(game, str), game
    assert list(game.boards) == [f"image-{n}.jpg" for n in range(1, 28)]
    assert game.boards["image-1.jpg"][7] == "...FIRNS......."
    # Move 23 lays ZAGeNDE with a blank for the E (down column K as the photo stands): the
    # blank is right when read "?".
    rows = E.as_read(game.boards["image-23.jpg"])
    assert "".join(row[10] for row in rows[:7]) == "ZAG?NDE"
    jheidel = sets["jheidel-20141025"]
    assert not isinstance(jheidel, str), jheidel
    assert len(jheidel.boards) == 7
    assert jheidel.boards["IMG_20141025_164048.jpg"][7] == "....RIEA...?AN."
    assert not isinstance(sets["jheidel-20151016"], str)


def test_ways_are_parsed():
    assert E.parse_ways("cal+words, uncalibrated") == ["uncalibrated", "calibrated + words"]
    assert E.parse_ways("uncal,calibrated + words") == ["uncalibrated", "calibrated + words"]
    with pytest.raises(Exception, match="unknown way"):
        E.parse_ways("calibrated+dictionary")


class FakeProfile:
    """Stands for a profile: the photos it was extended with, in order."""

    def __init__(self, tileset: str = "en") -> None:
        self.photos: list[str] = []


@pytest.mark.parametrize("scheme", ["halving", "exact"])
@pytest.mark.parametrize("count", [1, 2, 7, 27])
def test_each_left_out_photo_is_read_with_every_other_photo(monkeypatch, scheme, count):
    names = [f"p{i:02d}.jpg" for i in range(count)]
    photos = E.PhotoSet("fake", Path("."), "en", "fixed camera",
                        {name: [EMPTY_ROW] * 15 for name in names})

    def extend(profile, photo_set, name, skipped):
        profile.photos.append(name)
        return True

    def read(photo_set, name, profile, base):
        return [E.Result(name, base, list(profile.photos), 0.0, [])]

    monkeypatch.setattr(E, "Profile", FakeProfile)
    monkeypatch.setattr(E, "_extend", extend)
    monkeypatch.setattr(E, "_read_ways", read)
    monkeypatch.setattr(E, "_lexicon", lambda tileset: object())  # a word list: 4 ways
    if scheme == "halving":
        tasks = E.subtrees(count, 2)
        run = E.read_calibrated_halving
    else:
        tasks = E.split_runs(count, 2)
        run = E.read_calibrated
    results = [r for a, b in tasks for r in run(photos, a, b)[0]]
    read_with = {r.photo: r.board for r in results if not r.skipped}
    if count == 1:
        assert [r.skipped for r in results] == ["no other photo to calibrate with"] * 2
        return
    assert sorted(read_with) == names
    for name, learnt in read_with.items():
        assert sorted(learnt) == [n for n in names if n != name]
        if scheme == "exact":
            assert learnt == [n for n in names if n != name]
