"""A game joined in progress: the position it starts from (Game.set_up), in the record
(``#start-position``), on the page, and from photos whose first already shows the board of a
game under way; and a first photo of a board turned a quarter."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from pipeline import Pipeline, RecordAnswers
from scorer.edits import new_game_like
from scorer.game import Game, GameError
from scorer.gcg import GCGError, verify, write_gcg
from scorer.squares import Square
from tests.real_photos import known_board

REPO = Path(__file__).resolve().parents[1]
PHOTOS = REPO.parent / "shared" / "data" / "photos"
GAME = PHOTOS / "scrabscrap-game01"
PHONE = PHOTOS / "jheidel"
needs_game = pytest.mark.skipif(
    not GAME.is_dir(), reason=f"the real game's photos ({GAME}) are not beside the repository")
needs_phone = pytest.mark.skipif(
    not PHONE.is_dir(), reason=f"the handheld phone photos ({PHONE}) are not beside the repository")

HORN = {Square(7, 7 + i): tile for i, tile in enumerate("HOrN")}


def test_a_game_set_up_starts_from_its_tiles_and_takes_them_from_the_bag():
    game = Game(["Ann", "Ben"])
    game.set_up(HORN)
    assert game.board.rows()[7] == ".......HOrN...."
    assert game.bag_count() == 100 - 4 - 14 and game.rack_counts == [7, 7]
    assert game.unseen()["?"] == 1 and game.unseen()["H"] == 1
    assert game.events == [] and game.scores == [0, 0] and game.turn == 0
    # Not a first play any more: a play must touch the tiles, and need not cover the star.
    with pytest.raises(GameError, match="not_connected"):
        game.play("1A", "AX")
    assert game.play("9H", "AM").score == 19  # AM, with HA and OM across
    game.undo()
    assert game.board.rows()[7] == ".......HOrN...." and dict(game.start_position) == HORN
    assert dict(new_game_like(game).start_position) == HORN


def test_a_set_up_is_refused_after_the_first_event_or_with_tiles_the_set_has_not():
    game = Game(["Ann", "Ben"])
    with pytest.raises(GameError, match="tiles_not_in_bag"):
        game.set_up({Square(0, col): "Z" for col in range(2)})
    with pytest.raises(GameError, match="unknown_letter"):
        game.set_up({Square(0, 0): "Ä"})
    assert game.start_position == () and game.bag_count() == 86
    game.pass_turn()
    with pytest.raises(GameError, match="game_started"):
        game.set_up(HORN)


def test_a_position_set_up_again_before_the_first_event_replaces_the_one_before():
    # (A calibration alphabet taken for a game's position is emptied so.)
    game = Game(["Ann", "Ben"])
    game.set_up({Square(0, col): "Z" for col in range(1)})
    game.set_up(HORN)
    assert dict(game.start_position) == HORN and game.board.rows()[0] == "." * 15
    assert game.bag_count() == 82 and game.unseen()["Z"] == 1
    game.set_up({})
    assert game.start_position == () and game.bag_count() == 86
    assert game.play("8G", "ZA").score > 0  # a first play again: over the star


def test_a_full_board_leaves_the_racks_what_the_bag_held():
    game = Game(["Ann", "Ben"])
    letters = [t for t, n in game.tileset.counts.items() for _ in range(n)]
    game.set_up({Square(*divmod(i, 15)): ("e" if t == "?" else t) for i, t in enumerate(letters)})
    assert game.bag_count() == 0 and game.rack_counts == [0, 0]


def test_the_record_writes_and_reads_the_start_position():
    game = Game(["Ann", "Ben"])
    game.set_up(HORN)
    game.play("9H", "AM")
    text = write_gcg(game)
    assert "#start-position 15/15/15/15/15/15/15/7HOrN4/15/15/15/15/15/15/15\n" in text
    result = verify(text)
    assert result.ok and result.final_scores == {"Ann": 19, "Ben": 0}
    assert dict(result.game.start_position) == HORN


@pytest.mark.parametrize(("position", "says"), [
    ("15/15/15", "has 15 rows, this one 3"),
    ("15/15/15/15/15/15/15/7HOrN5/15/15/15/15/15/15/15", "row 8 of the start position covers 16"),
    ("15/15/15/15/15/15/15/7H%rN4/15/15/15/15/15/15/15", "'%' is not a tile"),
    ("15/15/15/15/15/15/15/7ZZZN4/15/15/15/15/15/15/15", "3 x Z but 1 left"),
])
def test_a_wrong_start_position_is_refused_at_its_line(position, says):
    text = f"#player1 Ann Ann\n#player2 Ben Ben\n#start-position {position}\n>Ann: - +0 0\n"
    with pytest.raises(GCGError, match=f"line 3: bad_start_position: .*{re.escape(says)}"):
        verify(text)


def test_the_page_sets_a_game_up_keeps_it_and_writes_it_in_the_record(tmp_path):
    from webui import create_app

    headers = {"X-Game-Pin": "2468"}
    app = create_app({"DATABASE": str(tmp_path / "games.sqlite3"), "TESTING": True})
    client = app.test_client()
    game_id = client.post("/api/games", json={"players": ["Ann", "Ben"], "pin": "2468"}).json["id"]
    tiles = {"H8": "H", "I8": "O", "J8": "r", "K8": "N"}
    url = f"/api/games/{game_id}/start-position"
    bad = client.post(url, json={"tiles": {"H8": "%"}}, headers=headers)
    assert bad.status_code == 400 and bad.json["error"] == "bad_letters"
    assert client.post(url, json={"tiles": tiles}, headers=headers).status_code == 200
    assert client.post(f"/api/games/{game_id}/play", json={"position": "9H", "word": "AM"},
                       headers=headers).status_code == 200
    again = client.post(url, json={"tiles": tiles}, headers=headers)
    assert again.status_code == 422 and again.json["error"] == "game_started"
    record = client.get(f"/api/games/{game_id}/game.gcg").get_data(as_text=True)
    assert "#start-position 15/15/15/15/15/15/15/7HOrN4/" in record
    app.extensions["tilecam_store"].close()
    # Kept: the game is rebuilt from its stored operations by a new server.
    app = create_app({"DATABASE": str(tmp_path / "games.sqlite3"), "TESTING": True})
    state = app.test_client().get(f"/api/games/{game_id}/state").json
    assert state["board"][7] == [None] * 7 + ["H", "O", "r", "N"] + [None] * 4
    assert [p["score"] for p in state["players"]] == [19, 0]
    imported = app.test_client().post(
        "/api/games/import", json={"gcg": record, "pin": "2468"})
    assert imported.status_code == 201, imported.json
    state = app.test_client().get(f"/api/games/{imported.json['id']}/state").json
    assert state["board"][7][7:11] == ["H", "O", "r", "N"]
    assert [p["score"] for p in state["players"]] == [19, 0]
    app.extensions["tilecam_store"].close()


def game_photos(first: int, last: int) -> list[np.ndarray]:
    return [cv2.imread(str(GAME / f"image-{n}.jpg")) for n in range(first, last + 1)]


def replayed(frames: list[np.ndarray], tileset: str = "de", answers: object = None,
             players: tuple[str, str] = ("Stefan", "Hanns")) -> tuple[Pipeline, list]:
    pipeline = Pipeline(list(players), tileset=tileset, lexicon=None, stills=True,
                        answers=answers, lettered_rows=tileset == "de")
    reports = []
    for number, frame in enumerate(frames, start=1):
        reports += pipeline.feed(float(number), frame)
    return pipeline, reports + pipeline.finish(float(len(frames) + 1))


@needs_game
def test_photos_of_a_game_already_under_way_score_every_move_after_the_first_photo():
    # The real game photographed from move 20 on: its first photo shows 69 tiles, which no
    # few moves lay.  Every later move was refused for want of them; now they are the
    # position the game starts from, and each move after is scored as the rules score the
    # record's.
    from scorer.gcg import load_gcg, replay

    record = next(GAME.glob("*.gcg"))
    pipeline, reports = replayed(game_photos(20, 27),
                                 answers=RecordAnswers(record, lettered_rows=True, tileset="de"))
    assert reports[0].kind == "start" and reports[0].turn == 0
    assert "a game joined in progress" in reports[0].notes[-1]
    boards = (GAME / "boards_after_each_move.txt").read_text(encoding="utf-8")
    true = [row.strip() for row in boards.split("## after move 20")[1].splitlines()[1:16]]
    start = dict(pipeline.game.start_position)
    assert int(reports[0].word) == len(start) == sum(ch != "." for row in true for ch in row)
    assert all(true[sq.row][sq.col] == tile for sq, tile in start.items())
    assert [r.kind for r in reports[1:]] == ["play"] * 7
    assert [r.turn for r in reports[1:]] == list(range(1, 8))
    scored = replay(load_gcg(record)).game.events[20:27]
    assert [r.score for r in reports[1:]] == [e.score for e in scored]


@needs_game
def test_a_game_photographed_with_the_board_turned_a_quarter_is_scored_as_upright():
    # A phone on the other side of the table: every photo turned.  The first move's squares
    # were named as the camera saw them, a quarter off, and every move was refused after.
    turned = [np.ascontiguousarray(np.rot90(frame)) for frame in game_photos(1, 5)]
    pipeline, reports = replayed(turned)
    assert [(r.kind, r.word, r.score) for r in reports] == [
        ("play", "FIRNS", 24), ("play", "V(I)TEN", 20), ("play", "MÖS(E)", 19),
        ("play", "K(Ö)DER", 38), ("play", "WANK", 34)]


@needs_phone
def test_two_photos_of_a_real_game_in_progress_turned_apart():
    # Two handheld photos of a real game six minutes apart, the first turned a quarter: the
    # first is the position (62 tiles), and the 38 tiles laid since, more than a few moves,
    # are one question, not 38 tiles dropped and the next photo read a quarter off.
    frames = [cv2.imread(str(PHONE / name))
              for name in ("IMG_20151016_170219.jpg", "IMG_20151016_170803.jpg")]
    pipeline, reports = replayed(frames, tileset="en", players=("one", "two"))
    assert [r.kind for r in reports] == ["start", "unresolved"]
    # Every tile of the position, the I at A13 too: a tile at the board's edge seen half on
    # the next square by parallax, on a board of its own colour, that the second photo's
    # occupancy took for an empty square; it was dropped (61 tiles).
    assert reports[0].word == "62"
    tiles = [[ch != "." for ch in row] for row in known_board("IMG_20151016_170219.jpg")]
    assert [[ch != "." for ch in row] for row in pipeline.game.board.rows()] == tiles
    assert pipeline.game.board.rows()[7] == "..ABENDS...AJAR"
    [question] = reports[1].questions
    assert question.kind == "placement" and question.answer is None
    laid = dict(re.findall(r"([A-O]\d+):(\S)", reports[1].word))
    assert len(laid) == 38 and laid["H1"] == "X" and laid["D3"] == "W"


@needs_game
def test_a_misread_tile_of_the_start_position_is_corrected_by_a_later_move():
    # From move 24 on: the first photo's Q of QUER reads as an unsure O, the last O of the
    # set, and TOU(R)I's O then has none left.  Before, that move was refused and the next
    # photo's merged into it; now the start position's O is asked about as an earlier
    # move's would be (a Q, the guess), and every move is scored.
    pipeline, reports = replayed(game_photos(24, 27))
    assert [(r.kind, r.score) for r in reports] == [
        ("start", 0), ("play", 22), ("play", 11), ("play", 23)]
    [asked] = [q for q in reports[2].questions if q.square == Square(10, 10)]
    assert asked.guess == "Q" and "on the board when first seen" in asked.prompt
    assert pipeline.game.board.rows()[10][10] == "Q"
    assert any("K11 is Q, not O" in note for note in reports[0].notes)


@needs_game
def test_the_photo_after_the_start_showing_nothing_new_is_a_turn():
    # From move 14 on: the next photo is the exchange's, the same board.  It resolved the first
    # photo's tiles as the start position and was no turn itself: the exchange was lost and
    # every later move went to the other player.
    pipeline, reports = replayed(game_photos(14, 16))
    assert [(r.kind, r.player) for r in reports] == [
        ("start", ""), ("pass", "Stefan"), ("play", "Hanns")]
    assert [q.kind for q in reports[1].questions] == ["no_placement"]


@needs_game
def test_a_start_position_read_with_more_of_a_letter_than_the_set_holds_asks_the_least_sure():
    # From move 26 on: the Q of QUER reads as a fourth O of the three the set holds.  The set
    # up was refused, and every move after it; now the least surely read O is asked about,
    # guessed as the likeliest letter left (Q).
    pipeline, reports = replayed(game_photos(26, 27))
    assert [(r.kind, r.score) for r in reports] == [("start", 0), ("play", 23)]
    [asked] = [q for q in reports[0].questions if q.square == Square(10, 10)]
    assert asked.guess == "Q" and "holds more O than the set" in asked.prompt
    assert pipeline.game.board.rows()[10][10] == "Q"


@needs_game
def test_a_camera_started_on_a_game_under_way_starts_from_the_board_it_first_sees():
    # The real game's photos 20-22 as a camera's frames (each held for eight seconds): the
    # first view's 69 tiles were one refused placement, and each move after it refused too.
    pipeline = Pipeline(["one", "two"], tileset="de", lexicon=None, stills=False)
    reports, time = [], 0.0
    for frame in game_photos(20, 22):
        frame = cv2.resize(frame, (1280, 960), interpolation=cv2.INTER_AREA)
        for _ in range(40):
            reports += pipeline.feed(time, frame)
            time += 0.2
    reports += pipeline.finish(time)
    assert [(r.kind, r.word, r.score) for r in reports] == [
        ("start", "69", 0), ("play", "(T)AXI", 33), ("play", "Q(U)ER", 26)]
