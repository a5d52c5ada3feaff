"""``tilecam replay`` on photo sequences: text and JSON output, GCG written, errors."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import pytest

from calibration.profile import Profile
from scorer.gcg import read_gcg
from sim.render import RenderConfig, render_board
from tilecam.cli import main

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GAME = SHARED / "data" / "photos" / "scrabscrap-game01"
CALIBRATION = (
    ["." * 15] * 2 + ["..ABCDEFGHIJK.."] + ["." * 15] * 3 + ["..LMNOPQRSTUV.."]
    + ["." * 15] * 3 + ["..WXYZEAIONRT.."] + ["." * 15] * 4
)
MOVES = [
    ["." * 15] * 7 + [".....QUIZ......"] + ["." * 15] * 7,
    ["." * 15] * 7 + [".....QUIZ......"] + [".......TO......"] + ["." * 15] * 6,
]


def camera() -> RenderConfig:
    return replace(RenderConfig.random(21, max_tilt=10), hand=False, motion_blur=0.0,
                   board_scale=0.9, board_offset=(0.0, 0.0), rotation=0.0, glare=0.0,
                   noise=2.0, defocus=0.4)


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("shots")
    for n, rows in enumerate(MOVES, start=1):
        image = render_board(rows, seed=21, config=replace(camera(), scene_seed=n)).image
        cv2.imwrite(str(folder / f"turn-{n}.jpg"), image)
    profile_dir = tmp_path_factory.mktemp("profile")
    profile = Profile(tileset="en")
    profile.extend(render_board(CALIBRATION, seed=21, config=camera()).image, CALIBRATION)
    profile.save(profile_dir)
    return folder, profile_dir


def test_replay_stills_json_and_gcg(photos, tmp_path, capsys):
    folder, profile = photos
    out = tmp_path / "game.gcg"
    status = main(["replay", str(folder), "--stills", "--profile", str(profile),
                   "--players", "Ann,Ben", "--json", "--gcg", str(out)])
    assert status == 0
    result = json.loads(capsys.readouterr().out)
    moves = result["moves"]
    assert [(m["player"], m["position"], m["word"]) for m in moves] == [
        ("Ann", "8F", "QUIZ"), ("Ben", "9H", "TO")
    ]
    assert all(set(m) >= {"player", "position", "word", "score", "totals"} for m in moves)
    assert moves[0]["totals"] == {"Ann": moves[0]["score"], "Ben": 0}
    assert result["final_scores"] == {"Ann": moves[0]["score"], "Ben": moves[1]["score"]}
    record = read_gcg(out.read_text(encoding="utf-8"))
    assert [e.text for e in record.events] == ["8F QUIZ", "9H TO"]


def test_replay_text_with_lettered_rows(photos, capsys):
    folder, profile = photos
    assert main(["replay", str(folder / "*.jpg"), "--stills", "--profile", str(profile),
                 "--lettered-rows"]) == 0
    text = capsys.readouterr().out
    assert "H6 QUIZ" in text and "I8 TO" in text  # row letter first: H6 is row 8, column 6
    assert "final: player1" in text


def test_replay_errors(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "missing.mp4")]) == 2
    assert "no video file" in capsys.readouterr().err
    assert main(["replay", str(tmp_path), "--profile", str(tmp_path / "none")]) == 2
    assert "no profile" in capsys.readouterr().err


def test_replay_real_game_with_answers(tmp_path, capsys):
    if not GAME.is_dir():
        pytest.skip(f"the photographed game is not at {GAME}")
    text = (GAME / "boards_after_each_move.txt").read_text(encoding="utf-8")
    last = text.split("## after move 27")[1].splitlines()[1:16]
    profile = Profile(tileset="de")
    profile.extend(cv2.imread(str(GAME / "image-27.jpg")), [row.strip() for row in last])
    profile.save(tmp_path / "profile")
    status = main(["replay", str(GAME), "--stills", "--tileset", "de", "--lettered-rows",
                   "--profile", str(tmp_path / "profile"), "--players", "Stefan,Hanns",
                   "--answers", str(GAME / "nu19_stefan-hanns.gcg"), "--json"])
    assert status == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["moves"]) == 27
    assert result["moves"][0]["position"] == "H4" and result["moves"][0]["word"] == "FIRNS"
    assert result["moves"][22]["word"] == "ZAGeNDE" and result["moves"][24]["score"] == 22
    assert result["final_scores"] == {"Stefan": 377, "Hanns": 374}
    # The exchange and both blanks are asked (no German word list); a letter read without
    # confidence may be asked too.  Every question was answered from the record.
    asked = [(m["turn"], q["kind"]) for m in result["moves"] for q in m["questions"]]
    assert {(15, "no_placement"), (23, "blank"), (24, "blank")} <= set(asked)
    assert result["answered_from_record"] == len(asked)
