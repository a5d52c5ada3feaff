"""The camera pipeline into the game: rendered stills (dictionary-inferred blank, a turn without
tiles) and the real photographed German game."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import pytest

from calibration.profile import Profile
from scorer.game import EventKind, Game
from scorer.lexicon import Lexicon
from scorer.squares import Square
from tilecam.pipeline import Pipeline, RecordAnswers
from vision.render import RenderConfig, render_board
from vision.sources import open_source

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GAME = SHARED / "data" / "photos" / "scrabscrap-game01"
CALIBRATION = (
    ["." * 15] * 2 + ["..ABCDEFGHIJK.."] + ["." * 15] * 3 + ["..LMNOPQRSTUV.."]
    + ["." * 15] * 3 + ["..WXYZEAIONRT.."] + ["." * 15] * 4
)
ZEBRA = ["." * 15] * 7 + ["...ZEBRa......."] + ["." * 15] * 7


def camera() -> RenderConfig:
    return replace(RenderConfig.random(11, max_tilt=10), hand=False, motion_blur=0.0,
                   board_scale=0.9, board_offset=(0.0, 0.0), rotation=1.0, glare=0.0,
                   noise=2.0, defocus=0.4)


@pytest.fixture(scope="module")
def rendered_profile() -> Profile:
    profile = Profile(tileset="en")
    profile.extend(render_board(CALIBRATION, seed=11, config=camera()).image, CALIBRATION)
    return profile


def still(rows: list[str], seed: int) -> tuple[float, object]:
    return float(seed), render_board(rows, seed=11, config=replace(camera(), scene_seed=seed)
                                     ).image


def test_blank_inferred_from_the_dictionary_and_a_repeat_is_a_pass(rendered_profile):
    pipeline = Pipeline(["ann", "ben"], profile=rendered_profile, lexicon=Lexicon.default(),
                        stills=True)
    first = pipeline.feed(*still(ZEBRA, 1))
    assert len(first) == 1
    move = first[0]
    assert (move.kind, move.position, move.word) == ("play", "8D", "ZEBRa")
    expected = Game(["ann", "ben"]).place(
        {Square(7, 3 + i): t for i, t in enumerate("ZEBRa")}).score
    assert move.score == expected and move.totals == {"ann": expected, "ben": 0}
    assert any("blank on H8 is A" in note for note in move.notes), move.notes
    assert not move.unconfirmed and not pipeline.pending
    again = pipeline.feed(*still(ZEBRA, 2))
    assert [r.kind for r in again] == ["pass"] and again[0].unconfirmed
    assert again[0].questions[0].kind == "no_placement"
    # The confirmed move taught the profile the new tiles.
    assert rendered_profile.counts().get("Z", 0) >= 2


def test_held_question_waits_for_the_players(rendered_profile):
    pipeline = Pipeline(["ann", "ben"], profile=rendered_profile, lexicon=None, stills=True,
                        hold=True)
    assert pipeline.feed(*still(ZEBRA, 3)) == []  # no dictionary: the blank is asked
    [question] = pipeline.pending
    assert question.kind == "blank" and question.square == Square(7, 7)
    assert pipeline.game.events == []  # nothing scored while the question is open
    assert pipeline.state()["pending"][0]["square"] == "H8"
    [report] = pipeline.answer(question.id, "a")
    assert report.word == "ZEBRa" and report.questions[0].answered_by == "players"
    state = pipeline.state()
    assert state["pending"] == [] and state["moves"][0]["word"] == "ZEBRa"
    assert state["scores"] == {"ann": report.score, "ben": 0}


def _known_boards() -> dict[int, list[str]]:
    text = (GAME / "boards_after_each_move.txt").read_text(encoding="utf-8")
    boards = {}
    for section in text.split("## after move ")[1:]:
        lines = section.splitlines()
        boards[int(lines[0].split()[0])] = [line.strip() for line in lines[1:16]]
    return boards


def test_real_game_as_stills_with_the_record_answering():
    if not GAME.is_dir():
        pytest.skip(f"the photographed game is not at {GAME}")
    boards = _known_boards()
    profile = Profile(tileset="de")
    profile.extend(cv2.imread(str(GAME / "image-27.jpg")), boards[27])
    answers = RecordAnswers(GAME / "nu19_stefan-hanns.gcg", lettered_rows=True, tileset="de")
    pipeline = Pipeline(["Stefan", "Hanns"], profile=profile, tileset="de", stills=True,
                        answers=answers)
    reports = pipeline.run(open_source(str(GAME)))
    assert len(reports) == 27
    kinds = [r.kind for r in reports]
    assert kinds[14] == "exchange" and kinds.count("play") == 26
    recorded = [e.score for e in answers.result.record.events if e.kind != "end_points"]
    scores = [r.score for r in reports]
    assert scores[:24] == recorded[:24] and scores[25:] == recorded[25:27]
    assert scores[24] == 22 and recorded[24] == 32  # the record's known error
    assert pipeline.game.scores == [377, 374]
    # Every placement's squares and letters as the record has them.
    for report in reports:
        truth = answers.placement(report.turn)
        if truth is not None:
            assert dict(report.event.play.placement.tiles) == truth, report.turn
    # Both blanks were asked (no German word list) and answered from the record.
    blanks = [q for q in pipeline.questions if q.kind == "blank"]
    assert [(q.turn, q.answer) for q in blanks] == [(23, "e"), (24, "s")]
    assert all(q.answered_by == "record" for q in pipeline.questions)
    assert [e.kind for e in pipeline.game.events].count(EventKind.EXCHANGE) == 1
