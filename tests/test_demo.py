"""``tilecam demo``: a generated game filmed by the renderer and scored by the camera pipeline,
headless and live into the scoreboard's store; how each turn is checked against the game.

Short games (``--moves``) keep this file under a minute; ``bench/bench_demo.py`` plays whole
games over ten seeds.
"""

from __future__ import annotations

import argparse
import json

import pytest

from pipeline import MoveReport, Question
from scorer.game import Game
from scorer.squares import Square
from sim.game import demo_game
from tilecam.cli import main
from tilecam.commands.demo import speed
from tilecam.demo import DemoRun, players_answer
from webui.store import GameStore


def test_headless_json_every_move_detected_and_scored_as_played(capsys):
    game = demo_game(1, moves=3)
    assert main(["demo", "--headless", "--seed", "1", "--moves", "3", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(summary) >= {"moves_played", "moves_detected", "scores_agree", "seconds", "fps"}
    assert summary["moves_played"] == len(game.plays) == 3
    assert summary["moves_detected"] == summary["scores_agree"] == 3
    # The pipeline's totals are the game's: every score as the generator played it.
    totals = [0, 0]
    for turn in game.turns:
        totals[turn.player] += turn.score
    assert list(summary["final_scores"].values()) == totals
    assert summary["frames"] > 100 and summary["fps"] > 0 and summary["seconds"] > 0
    assert summary["ok"] is True and summary["problems"] == []


def test_live_demo_sends_every_move_to_the_scoreboard(capsys, tmp_path):
    db = tmp_path / "demo.sqlite3"
    game = demo_game(1, moves=2)
    status = main(["demo", "--seed", "1", "--moves", "2", "--speed", "max", "--exit",
                   "--port", "0", "--db", str(db)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "Scoreboard (live):  http://127.0.0.1:" in out
    assert "Calibration: a photo of the alphabet laid out on the board taught the reader" in out
    assert out.count("[as played]") == 2
    store = GameStore(db)
    try:
        [listed] = store.list_games()
        # The moves came the camera's way: placements of new tiles, scored by the store's game.
        ops = store.ops(listed["id"])
        placed = [op for op in ops if op["op"] == "place"]
        assert [{Square.parse(k): v for k, v in op["tiles"].items()} for op in placed] == [
            t.tiles for t in game.plays]
        # Whatever the reader was unsure of was put on the page and answered there first.
        asked = [op for op in ops if op["op"] == "question"]
        answered = [op["qid"] for op in ops if op["op"] == "answer"]
        assert answered == list(range(1, len(asked) + 1))
        assert {op["op"] for op in ops} <= {"place", "question", "answer"}
        state = store.state(listed["id"])
        assert [p["score"] for p in state["players"]] == [t.score for t in game.plays]
        assert [e["play"]["seed"] for e in state["log"]] == [t.notation for t in game.plays]
    finally:
        store.close()


def test_record_mode_replays_the_bundled_game(capsys):
    assert main(["demo", "--record"]) == 0
    out = capsys.readouterr().out
    assert "HORN 8F 14" in out and out.splitlines()[-1].startswith("Final scores:")


def test_speed_words_and_numbers():
    assert speed("slow") == 0.5 and speed("1.5") == 1.5 and speed("max") == 0.0
    for bad in ("0", "-2", "quick"):
        with pytest.raises(argparse.ArgumentTypeError):
            speed(bad)


@pytest.fixture(scope="module")
def checking_run() -> DemoRun:
    return DemoRun(1, moves=2)


def _report(turn_number: int, event, score: int) -> MoveReport:
    return MoveReport(turn=turn_number, player="Ada", kind="play",
                      position=event.play.position, word=event.play.main.marked, score=score,
                      event=event)


def test_a_wrong_score_or_a_move_not_in_the_game_fails_the_demo(checking_run):
    run = checking_run
    first, second = run.game.plays
    event = Game(list(run.game.players)).place(first.tiles)
    run._waiting = [first, second]
    run._check(_report(1, event, event.score + 1))
    result = run.result
    assert (result.moves_detected, result.letters_agree, result.scores_agree) == (1, 1, 0)
    assert not result.ok and "the game played FADDY 8D 34" in result.problems[0]
    # Tiles on squares the next move does not use: a move the game never played.
    played = Game(list(run.game.players))
    played.place(first.tiles)
    stray = played.place({Square.parse("I8"): "S"})
    run._check(_report(2, stray, stray.score))
    assert result.invented == 1 and run._waiting == [second]


def test_the_players_answer_what_they_know():
    turn = demo_game(1, moves=3).plays[2]  # NARROwL(Y): a blank on H6
    blank_square = next(sq for sq, t in turn.tiles.items() if t.islower())
    blank = Question(1, 3, "blank", "which letter?", square=blank_square, choices=["w", "s"])
    assert players_answer(blank, turn) == "w"
    placement = Question(2, 3, "placement", "what was played?")
    assert players_answer(placement, turn) == f"{turn.position} {turn.word}"
    nothing = Question(3, 4, "no_placement", "pass or exchange?", choices=["pass", "exchange"])
    assert players_answer(nothing, None) == "pass"
