"""``tilecam read`` and ``tilecam calibrate`` on real photos and on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.squares import Square
from tests.real_photos import GAME, JHEIDEL, as_read, game_boards, known_board
from tilecam.cli import main

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def test_calibrate_then_read_json(tmp_path, capsys):
    boards = game_boards()
    pairs = []
    for n in (9, 21):
        board_file = tmp_path / f"board-{n}.txt"
        board_file.write_text("\n".join(boards[n]) + "\n", encoding="utf-8")
        pairs += ["--pair", str(GAME / f"image-{n}.jpg"), str(board_file)]
    profile = tmp_path / "profile"
    assert main(["calibrate", "--profile", str(profile), "--tileset", "de", *pairs]) == 0
    out = capsys.readouterr().out
    assert "orientation 0" in out and "fixed camera" in out
    assert (profile / "profile.json").is_file() and (profile / "samples.npz").is_file()

    assert main(["read", str(GAME / "image-23.jpg"), "--profile", str(profile), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"board", "corners", "confidence", "seconds", "unsure",
                           "maybe_tiles", "covered", "warnings"}
    assert result["covered"] == []
    assert len(result["board"]) == 15 and all(len(row) == 15 for row in result["board"])
    expected = as_read(boards[23])
    wrong = [(r, c) for r in range(15) for c in range(15)
             if result["board"][r][c] != expected[r][c]]
    assert len(wrong) <= 1, wrong
    assert np.array(result["corners"]).shape == (4, 2)
    assert np.array(result["confidence"]).shape == (15, 15)
    assert 0 < result["seconds"] < 10


def test_read_plain_uncalibrated(capsys):
    boards = game_boards()
    assert main(["read", str(GAME / "image-8.jpg"), "--tileset", "de"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 15 and all(len(line) == 15 for line in lines)
    expected = as_read(boards[8])
    wrong = [(r, c) for r in range(15) for c in range(15) if lines[r][c] != expected[r][c]]
    assert len(wrong) <= 2, wrong
    assert all(lines[r][c] != "." and expected[r][c] != "." for r, c in wrong)


def test_read_errors_exit_2(tmp_path, capsys):
    assert main(["read", str(tmp_path / "missing.jpg")]) == 2
    assert "no such file" in capsys.readouterr().err
    text = tmp_path / "not-an-image.jpg"
    text.write_text("hello", encoding="utf-8")
    assert main(["read", str(text)]) == 2
    assert "not an image" in capsys.readouterr().err
    plain = tmp_path / "plain.png"
    cv2.imwrite(str(plain), np.full((300, 400, 3), 128, np.uint8))
    assert main(["read", str(plain)]) == 2
    assert "no board found" in capsys.readouterr().err
    assert main(["read", str(plain), "--profile", str(tmp_path)]) == 2
    assert "profile.json missing" in capsys.readouterr().err
    assert main(["read", str(plain), "--tileset", "xx"]) == 2
    assert "unknown tile set 'xx'" in capsys.readouterr().err


def test_calibrate_errors_exit_2(tmp_path, capsys):
    board_file = tmp_path / "board.txt"
    board_file.write_text("...\n", encoding="utf-8")
    plain = tmp_path / "plain.png"
    cv2.imwrite(str(plain), np.full((300, 400, 3), 128, np.uint8))
    profile = tmp_path / "p"
    assert main(["calibrate", "--profile", str(profile), "--pair", str(plain),
                 str(board_file)]) == 2
    assert "a board has 15 rows, got 1" in capsys.readouterr().err
    board_file.write_text("\n".join(["." * 15] * 15), encoding="utf-8")
    assert main(["calibrate", "--profile", str(profile), "--pair", str(plain),
                 str(board_file)]) == 2
    assert "no board found" in capsys.readouterr().err
    assert not profile.exists(), "nothing written when a pair fails"


def test_exit_status_through_the_program(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "tilecam", "read", str(tmp_path / "nothing.png")],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert result.returncode == 2
    assert "tilecam read: cannot read image" in result.stderr


def test_read_a_phones_heic_photo(tmp_path, capsys):
    """A handheld phone photo saved as HEIC, as an iPhone saves them, reads as its JPEG does."""
    photo = SHARED / "data" / "photos" / "jheidel" / "IMG_20151016_170219.jpg"
    if not photo.is_file():
        pytest.skip(f"real photos not available: {photo} is missing")
    import pillow_heif

    # At half size: the test's encoder takes seconds for the full 12 MP.
    image = cv2.resize(cv2.imread(str(photo)), None, fx=0.5, fy=0.5,
                       interpolation=cv2.INTER_AREA)
    as_jpeg, as_heic = tmp_path / "IMG_0001.jpg", tmp_path / "IMG_0001.HEIC"
    cv2.imwrite(str(as_jpeg), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    rgb = np.ascontiguousarray(image[:, :, ::-1])
    pillow_heif.from_bytes("RGB", (rgb.shape[1], rgb.shape[0]), rgb.tobytes()).save(
        str(as_heic), quality=92)
    assert main(["read", str(as_jpeg), "--no-dictionary"]) == 0
    from_jpeg = capsys.readouterr().out.splitlines()
    assert main(["read", str(as_heic), "--no-dictionary"]) == 0
    assert capsys.readouterr().out.splitlines() == from_jpeg
    assert sum(ch != "." for row in from_jpeg for ch in row) > 50


def test_read_checks_words_with_the_games_own_list(tmp_path, capsys):
    """A phone photo of an English game with CIN on the board, a word ENABLE has not: with the
    game's own list, CIN stands, as the readers saw it, and is not named as unlisted."""
    photo = SHARED / "data" / "photos" / "jheidel" / "IMG_20151016_170803.jpg"
    if not photo.is_file():
        pytest.skip(f"real photos not available: {photo} is missing")
    assert main(["read", str(photo), "--no-dictionary"]) == 0
    as_seen = capsys.readouterr().out.splitlines()
    assert as_seen[3][8:11] == "CIN"
    import gzip

    from scorer.lexicon import DEFAULT_RESOURCE

    own = tmp_path / "words.txt"
    bundled = (REPO / "scorer" / DEFAULT_RESOURCE).read_bytes()
    own.write_bytes(gzip.decompress(bundled) + b"cin\n")
    assert main(["read", str(photo), "--lexicon", str(own)]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[3][8:11] == "CIN"
    assert "CIN (4I)" not in captured.err and "CIGA (L5)" in captured.err
    assert main(["read", str(photo), "--lexicon", str(tmp_path / "none.txt")]) == 2
    assert "cannot read word list" in capsys.readouterr().err


#: A position for rendered photos: words across the middle of the board.
#: Every tile joined to the centre square, as in a game (``read`` warns of tiles apart).
POSITION = ["." * 15] * 5 + ["....QUIXOTE....", ".......N.......", "...JABNOBOWER..",
                             ".......FIZ.....", ".......A.......", "....HEWING.....",
                             ".......L.......", "..............."] + ["." * 15] * 2


def _rendered_photo(tmp_path: Path, number: int, edition: str) -> Path:
    """``POSITION`` under the camera of photo ``number`` of ``bench/eval_rendered.py``."""
    from sim.render import RenderConfig, render_board

    config = RenderConfig.random(100_003 + number, max_tilt=35, size=(1280, 720),
                                 hand_probability=0.0)
    photo = render_board(POSITION, tileset="en", edition=edition, seed=config.scene_seed,
                         config=config)
    path = tmp_path / f"{number}.png"
    cv2.imwrite(str(path), photo.image)
    return path


def test_read_warns_of_a_blur_that_misreads_letters(tmp_path, capsys):
    """Photo 146's camera moved 5.7 px (a quarter of a square): the user is told that letters
    may be misread and what to do; a sharp photo reads without a word of warning."""
    cv2.setNumThreads(1)
    assert main(["read", str(_rendered_photo(tmp_path, 146, "red"))]) == 0
    err = capsys.readouterr().err
    assert "warning: the photo is blurred" in err and "hold the camera still" in err
    assert main(["read", str(_rendered_photo(tmp_path, 0, "red")), "--json"]) == 0
    captured = capsys.readouterr()
    # The position's made-up words are named as in no list, but nothing is warned of.
    assert "warning" not in captured.err
    result = json.loads(captured.out)
    assert set(result) == {"board", "corners", "confidence", "seconds", "unsure",
                           "maybe_tiles", "covered", "warnings", "not_in_word_list"}
    assert {"word": "JABNOBOWER", "position": "8D"} in result["not_in_word_list"]


@pytest.mark.parametrize(("keep", "side"), [
    (lambda image: image[:, : image.shape[1] * 3 // 5], "right"),
    (lambda image: image[: image.shape[0] * 3 // 5], "bottom"),
])
def test_a_photo_of_part_of_the_board_is_refused_naming_the_side_cut_off(
        tmp_path, capsys, keep, side):
    # A real phone photo with part of its board cut away: the lines run on to the picture's
    # edge, and a grid extrapolated past it would give squares nobody photographed.
    photo = JHEIDEL / "IMG_20141025_164044.jpg"
    if not photo.is_file():
        pytest.skip(f"real photos not available: {photo} is missing")
    cropped = tmp_path / f"cut-{side}.jpg"
    cv2.imwrite(str(cropped), keep(cv2.imread(str(photo))))
    assert main(["read", str(cropped)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "only part of the board is in the picture" in captured.err
    assert f"cut off at the {side} edge" in captured.err


def test_a_real_board_holding_non_words_is_read_as_it_is_and_the_words_named(capsys):
    """A real game between friends: CIN, CIGA, ROME and EQUAITY are in no word list.  The word
    check used to make DIN, GIGA and POME of them; the tiles are reported as they are, and
    the words are named as not in the list (in the JSON and on stderr)."""
    photo = JHEIDEL / "IMG_20151016_170803.jpg"
    if not photo.is_file():
        pytest.skip(f"real photos not available: {photo} is missing")
    known = known_board(photo.name)
    assert main(["read", str(photo), "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    board = result["board"]
    assert board[3][8:11] == "CIN"
    assert "".join(board[r][11] for r in range(4, 8)) == "CIGA"
    assert "".join(board[r][4] for r in range(11, 15)) == "ROME"
    wrong = [(r, c) for r in range(15) for c in range(15) if board[r][c] != known[r][c]]
    assert wrong == [], wrong
    unlisted = {item["word"]: item["position"] for item in result["not_in_word_list"]}
    assert unlisted["CIN"] == "4I" and unlisted["CIGA"] == "L5" and unlisted["ROME"] == "E12"
    assert unlisted["EQUAITY"] == "C5"
    assert "not in the word list: " in captured.err and "CIN (4I)" in captured.err


def test_a_photo_blurred_by_hand_shake_says_so_and_names_every_letter_it_may_have_misread(
        capsys):
    """A real phone photo smeared by hand shake (jheidel 164048): the reading warns of the
    blur, and every letter it reads wrong is among the squares it names unsure."""
    photo = JHEIDEL / "IMG_20141025_164048.jpg"
    if not photo.is_file():
        pytest.skip(f"real photos not available: {photo} is missing")
    known = known_board(photo.name)
    assert main(["read", str(photo), "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert "warning: the photo is blurred" in captured.err and "unsure: " in captured.err
    wrong = [Square(r, c).name for r in range(15) for c in range(15)
             if result["board"][r][c] != known[r][c]]
    assert wrong, "the blurred photo is read perfectly: choose a harder one for this test"
    assert set(wrong) <= set(result["unsure"]) | set(result["maybe_tiles"]), (
        wrong, result["unsure"], result["maybe_tiles"])
