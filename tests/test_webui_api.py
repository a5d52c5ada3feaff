"""Every JSON route and game control, through Flask's test client."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")

from webui import create_app  # noqa: E402

PIN = "2468"
HEADERS = {"X-Game-Pin": PIN}


@pytest.fixture
def app(database):
    app = create_app({"DATABASE": database, "TESTING": True,
                      "SSE_HEARTBEAT": 0.05})
    yield app
    app.extensions["tilecam_store"].close()


@pytest.fixture
def client(app):
    return app.test_client()


def new_game(client, players=("Ann", "Bob"), **settings) -> str:
    body = {"players": list(players), "pin": PIN, **settings}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.json
    return response.json["id"]


def post(client, game_id, action, body=None, status=200):
    response = client.post(f"/api/games/{game_id}/{action}", json=body or {}, headers=HEADERS)
    assert response.status_code == status, response.json
    return response.json


def state(client, game_id):
    response = client.get(f"/api/games/{game_id}/state")
    assert response.status_code == 200
    return response.json


def test_create_game_and_read_state(client):
    game_id = new_game(client, ("Ann", "Bob", "Cy"), tileset="en", challenge="single",
                       rack_size=9, finish_line=150, clock_minutes=25, title="Club night")
    s = state(client, game_id)
    assert [p["name"] for p in s["players"]] == ["Ann", "Bob", "Cy"]
    assert [p["score"] for p in s["players"]] == [0, 0, 0]
    assert s["turn"] == 0 and not s["over"]
    assert s["rules"]["rack_size"] == 9 and s["rules"]["finish_line"] == 150
    assert str(s["rules"]["challenge"]) == "single"
    assert s["clock"]["enabled"] and s["clock"]["limit"] == 25 * 60
    assert s["title"] == "Club night"
    assert s["bag"] == 100 - 3 * 9
    assert s["unseen_total"] == 100 and s["unseen"]["E"] == 12
    assert len(s["board"]) == 15 and all(len(row) == 15 for row in s["board"])
    listed = client.get("/api/games").json["games"]
    assert [g["id"] for g in listed] == [game_id]


def test_finish_line_level_is_looked_up_by_player_count(client):
    game_id = new_game(client, ("Ann", "Bob", "Cy", "Di"), finish_level="intermediate")
    assert state(client, game_id)["rules"]["finish_line"] == 90


def test_tilesets_lists_every_builtin_set(client):
    from scorer.tiles import TileSet

    codes = [t["code"] for t in client.get("/api/tilesets").json["tilesets"]]
    assert codes == TileSet.available()


def test_play_scores_and_passes_the_turn(client):
    game_id = new_game(client)
    reply = post(client, game_id, "play", {"position": "8E", "word": "HORN"})
    s = reply["state"]
    assert [p["score"] for p in s["players"]] == [14, 0]
    assert s["turn"] == 1
    assert s["board"][7][4:8] == ["H", "O", "R", "N"]
    assert s["last"]["play"]["seed"] == "HORN 8E 14"
    assert s["last"]["play"]["position"] == "8E"
    assert s["last_squares"] == ["E8", "F8", "G8", "H8"]
    reply = post(client, game_id, "play", {"position": "G6", "word": "FA.M"})
    assert reply["state"]["last"]["play"]["seed"] == "FA(R)M G6 13"
    assert [p["score"] for p in reply["state"]["players"]] == [14, 13]


def test_a_play_carries_the_dictionarys_verdict_on_its_words(client):
    # ROME is a name: the play stands (nobody has challenged), and the page is told which of
    # its words are in no word list, for the players to challenge or let stand.
    game_id = new_game(client)
    reply = post(client, game_id, "play", {"position": "8E", "word": "ROME"})
    assert reply["state"]["last"]["play"]["not_in_word_list"] == ["ROME"]
    reply = post(client, game_id, "play", {"position": "H6", "word": "TO."})
    assert reply["state"]["last"]["play"]["not_in_word_list"] == []
    assert [e["play"]["not_in_word_list"] for e in state(client, game_id)["log"]] == [
        ["ROME"], []]


def test_illegal_play_is_refused_and_changes_nothing(client):
    game_id = new_game(client)
    before = state(client, game_id)
    reply = post(client, game_id, "play", {"position": "1A", "word": "XI"}, status=422)
    assert reply["error"] == "first_play_off_star"
    after = state(client, game_id)
    assert after["board"] == before["board"] and after["version"] == before["version"]
    assert client.get(f"/api/games/{game_id}/ops").json["ops"] == []


def test_pass_exchange_and_undo(client):
    game_id = new_game(client)
    post(client, game_id, "pass")
    reply = post(client, game_id, "exchange", {"tiles": "QV"})
    assert reply["state"]["turn"] == 0
    kinds = [e["kind"].lower() for e in reply["state"]["log"]]
    assert kinds == ["pass", "exchange"]
    reply = post(client, game_id, "exchange", {"tiles": 3})
    assert reply["state"]["log"][-1]["count"] == 3
    reply = post(client, game_id, "undo")
    assert len(reply["state"]["log"]) == 2 and reply["state"]["turn"] == 0
    post(client, game_id, "undo")
    post(client, game_id, "undo")
    assert state(client, game_id)["log"] == []
    reply = post(client, game_id, "undo", status=409)
    assert reply["error"] == "nothing_to_undo"


def test_challenge_of_a_phony_withdraws_it(client):
    game_id = new_game(client)
    post(client, game_id, "play", {"position": "8D", "word": "HORNZ"})
    reply = post(client, game_id, "challenge")
    assert reply["challenge"]["words"] == [["HORNZ", False]]
    assert reply["challenge"]["valid"] is False
    s = reply["state"]
    assert [p["score"] for p in s["players"]] == [0, 0]
    assert all(cell is None for row in s["board"] for cell in row)
    assert s["log"][-1]["kind"].lower() == "withdrawn"


def test_unsuccessful_challenge_under_double_rule_costs_a_turn(client):
    game_id = new_game(client, challenge="double")
    post(client, game_id, "play", {"position": "8E", "word": "HORN"})
    reply = post(client, game_id, "challenge")
    assert reply["challenge"] == {
        "words": [["HORN", True]], "valid": True, "rule": "double",
        "events": reply["challenge"]["events"],
    }
    assert [e["kind"].lower() for e in reply["challenge"]["events"]] == ["lost_turn"]
    assert reply["state"]["turn"] == 0  # Bob lost his turn: Ann again
    # One undo takes the whole challenge back.
    reply = post(client, game_id, "undo")
    assert reply["state"]["turn"] == 1 and reply["state"]["challenge"] is None


def test_five_point_rule_gives_the_bonus(client):
    game_id = new_game(client, challenge="five")
    post(client, game_id, "play", {"position": "8E", "word": "HORN"})
    reply = post(client, game_id, "challenge")
    assert [p["score"] for p in reply["state"]["players"]] == [19, 0]


def test_void_rule_refuses_phony_plays_and_challenges(client):
    game_id = new_game(client, challenge="void")
    reply = post(client, game_id, "play", {"position": "8D", "word": "HORNZ"}, status=422)
    assert reply["error"] == "phony_refused" and "HORNZ" in reply["message"]
    assert state(client, game_id)["log"] == []
    post(client, game_id, "play", {"position": "8E", "word": "HORN"})
    assert post(client, game_id, "challenge", status=422)["error"] == "challenges_void"


def test_withdraw_bonus_lose_turn_adjust_and_time_penalty(client):
    game_id = new_game(client)
    post(client, game_id, "play", {"position": "8E", "word": "HORN"})
    s = post(client, game_id, "withdraw")["state"]
    assert s["players"][0]["score"] == 0 and s["turn"] == 1
    post(client, game_id, "play", {"position": "8E", "word": "HORN"})  # Bob
    s = post(client, game_id, "challenge-bonus", {"points": 10})["state"]
    assert [p["score"] for p in s["players"]] == [0, 24]
    s = post(client, game_id, "lose-turn", {"player": 0})["state"]
    assert s["log"][-1]["kind"] == "lost_turn" and s["turn"] == 1
    s = post(client, game_id, "adjust", {"player": 1, "points": 7, "reason": "miscount"})["state"]
    assert s["players"][1]["score"] == 31 and s["log"][-1]["note"] == "miscount"
    refused = post(client, game_id, "time-penalty", {"player": 1, "minutes": 2}, status=422)
    assert refused["error"] == "game_not_over"


def test_correct_a_square_rescores_the_game(client):
    game_id = new_game(client)
    post(client, game_id, "play", {"position": "8E", "word": "HORN"})
    post(client, game_id, "play", {"position": "G6", "word": "FA.M"})
    post(client, game_id, "pass")
    # The camera read the H of HORN wrong: it is a C (CORN: 3+1+1+1 = 6, x2 on the star).
    reply = post(client, game_id, "correct", {"square": "E8", "letter": "C"})
    s = reply["state"]
    assert s["board"][7][4] == "C"
    assert [p["score"] for p in s["players"]] == [12, 13]
    assert [e["kind"].lower() for e in s["log"]] == ["play", "play", "pass"]
    # A blank named on the board: lower case, worth 0.
    s = post(client, game_id, "correct", {"square": "E8", "letter": "c"})["state"]
    assert s["board"][7][4] == "c" and s["players"][0]["score"] == 6
    # Undo takes back the last move (the pass), not the correction: the history stays
    # corrected.
    s = post(client, game_id, "undo")["state"]
    assert s["board"][7][4] == "c" and [e["kind"] for e in s["log"]] == ["play", "play"]


def test_correction_that_breaks_a_later_play_is_refused_whole(client):
    game_id = new_game(client)
    post(client, game_id, "play", {"position": "8E", "word": "HORN"})
    post(client, game_id, "play", {"position": "G6", "word": "FARM"})  # writes the R itself
    before = state(client, game_id)
    reply = post(client, game_id, "correct", {"square": "G8", "letter": "A"}, status=409)
    assert reply["error"] == "correction_conflict"
    after = state(client, game_id)
    assert after["board"] == before["board"] and after["players"] == before["players"]
    assert post(client, game_id, "correct", {"square": "A1", "letter": "A"},
                status=409)["error"] == "not_placed"


def test_camera_placements_infer_the_play(client):
    game_id = new_game(client)
    tiles = {"E8": "H", "F8": "O", "G8": "R", "H8": "N"}
    reply = post(client, game_id, "placements", {"tiles": tiles})
    assert reply["state"]["players"][0]["score"] == 14


def test_camera_blank_with_one_possible_letter_is_named_by_the_word_list(client):
    game_id = new_game(client)
    post(client, game_id, "placements", {"tiles": {"H8": "J", "I8": "?"}})
    s = state(client, game_id)
    assert s["board"][7][8] == "o"  # JO is the only two-letter J word in ENABLE
    assert s["players"][0]["score"] == 16  # J on the star doubled: 8 x 2


def test_camera_blank_with_several_letters_asks_and_the_answer_plays_it(client):
    game_id = new_game(client)
    reply = post(client, game_id, "placements", {"tiles": {"H8": "?", "I8": "X"}}, status=202)
    question = reply["question"]
    assert question["kind"] == "blank_letter" and question["data"]["squares"] == ["H8"]
    assert {"A", "E", "O"} <= set(question["options"])  # AX, EX, OX
    s = reply["state"]
    assert s["log"] == [] and s["questions"][0]["qid"] == question["qid"]
    reply = post(client, game_id, f"questions/{question['qid']}/answer", {"answer": "o"})
    s = reply["state"]
    assert s["board"][7][7] == "o" and s["players"][0]["score"] == 16
    assert s["questions"] == []
    again = post(client, game_id, f"questions/{question['qid']}/answer", {"answer": "A"},
                 status=409)
    assert again["error"] == "already_answered"


def test_questions_from_the_tracker(client):
    game_id = new_game(client)
    response = client.post(f"/api/games/{game_id}/questions", headers=HEADERS, json={
        "kind": "illegal_placement", "squares": ["A1", "C3"], "options": ["dismiss", "retry"],
        "message": "tiles not in one line",
    })
    assert response.status_code == 201
    qid = response.json["question"]["qid"]
    listed = client.get(f"/api/games/{game_id}/questions?open=1").json["questions"]
    assert [(q["qid"], q["data"]["squares"]) for q in listed] == [(qid, ["A1", "C3"])]
    # Options are suggestions: the players may answer something else ...
    post(client, game_id, f"questions/{qid}/answer", {"answer": "8D FIRNS"})
    # ... unless the asker made them the only answers.
    response = client.post(f"/api/games/{game_id}/questions", headers=HEADERS, json={
        "kind": "no_placement", "options": ["pass", "exchange"], "strict": True,
        "prompt": "Was that a pass or an exchange?",
    })
    strict = response.json["question"]["qid"]
    bad = post(client, game_id, f"questions/{strict}/answer", {"answer": "maybe"}, status=400)
    assert bad["error"] == "bad_answer"
    post(client, game_id, f"questions/{strict}/answer", {"answer": "pass"})
    assert client.get(f"/api/games/{game_id}/questions?open=1").json["questions"] == []
    everything = client.get(f"/api/games/{game_id}/questions").json["questions"]
    assert [q["answer"] for q in everything] == ["8D FIRNS", "pass"]
    assert everything[1]["data"]["prompt"] == "Was that a pass or an exchange?"


def six_passes(client, game_id):
    for _ in range(6):
        post(client, game_id, "pass")


def test_end_of_game_after_scoreless_turns_needs_the_racks(client):
    game_id = new_game(client)
    post(client, game_id, "play", {"position": "8E", "word": "HORN"})
    assert post(client, game_id, "end", status=422)["error"] == "game_not_over"
    six_passes(client, game_id)
    s = state(client, game_id)
    assert s["over"] and s["end_reason"] == "scoreless" and not s["racks_settled"]
    # The bag is not empty, so the unseen tiles do not decide a rack: both are needed.
    assert post(client, game_id, "end", {"racks": {"0": "AB"}},
                status=422)["error"] == "rack_required"
    s = post(client, game_id, "end", {"racks": {"0": "AB", "1": "Q"}})["state"]
    assert [p["score"] for p in s["players"]] == [14 - 4, -10]
    assert s["winners"] == [0] and s["racks_settled"]
    assert post(client, game_id, "pass", status=422)["error"] == "game_over"
    # Undo takes the whole settlement back in one step.
    s = post(client, game_id, "undo")["state"]
    assert [p["score"] for p in s["players"]] == [14, 0]


def test_clock_start_pause_and_overtime_at_the_end(client, app):
    game_id = new_game(client, clock_minutes=1)
    s = post(client, game_id, "clock", {"action": "start"})["state"]
    assert s["clock"]["running"]
    live = app.extensions["tilecam_store"].live(game_id)
    live.clocks.since -= 130  # Ann has thought for 2 min 10 s: 1 min 10 s over, 2 started
    six_passes(client, game_id)
    s = post(client, game_id, "clock", {"action": "pause"})["state"]
    assert not s["clock"]["running"] and s["clock"]["used"][0] >= 130
    s = post(client, game_id, "end", {"racks": {"0": "A", "1": "E"}})["state"]
    op = client.get(f"/api/games/{game_id}/ops").json["ops"][-1]
    assert op["time_penalties"] == {"0": 2}
    assert [p["score"] for p in s["players"]] == [-1 - 20, -1]
    assert s["log"][-1]["kind"] == "time_penalty"
    no_clock = new_game(client)
    assert post(client, no_clock, "clock", {"action": "start"}, status=400)["error"] == "no_clocks"


def test_dictionary_and_check_play(client):
    reply = client.get("/api/dictionary?words=jo+QAT,xyzzy").json
    assert reply["words"] == [{"word": "JO", "valid": True}, {"word": "QAT", "valid": True},
                              {"word": "XYZZY", "valid": False}]
    assert reply["all_valid"] is False and "ENABLE" in reply["lexicon"]
    game_id = new_game(client)
    post(client, game_id, "play", {"position": "8E", "word": "HORN"})
    reply = client.get(f"/api/games/{game_id}/check-play?position=G6&word=FA.MZ").json
    assert reply["words"] == [{"word": "FARMZ", "valid": False, "score": reply["score"]}]
    reply = client.post(f"/api/games/{game_id}/check-play",
                        json={"position": "G6", "word": "FA.M"}).json
    assert reply["seed"] == "FA(R)M G6 13" and reply["all_valid"]
    assert state(client, game_id)["log"][-1]["play"]["word"] == "HORN"  # nothing was played


def test_uploaded_word_list_is_used_and_survives_a_restart(database):
    db = database
    app = create_app({"DATABASE": db, "TESTING": True})
    client = app.test_client()
    data = {"player1": "Ann", "player2": "Bob", "pin": PIN,
            "wordlist": (io.BytesIO(b"HORN\nFARM\nzzz\n"), "tiny.txt")}
    response = client.post("/api/games", data=data, content_type="multipart/form-data")
    assert response.status_code == 201, response.json
    game_id = response.json["id"]
    assert response.json["state"]["lexicon"] == "tiny.txt"
    words = client.get(f"/api/dictionary?game={game_id}&words=horn+jo+zzz").json["words"]
    assert [w["valid"] for w in words] == [True, False, True]
    app.extensions["tilecam_store"].close()
    client = create_app({"DATABASE": db, "TESTING": True}).test_client()
    words = client.get(f"/api/dictionary?game={game_id}&words=horn+jo").json["words"]
    assert [w["valid"] for w in words] == [True, False]


def test_games_are_rebuilt_from_the_log_after_a_restart(database):
    db = database
    app = create_app({"DATABASE": db, "TESTING": True})
    client = app.test_client()
    game_id = new_game(client)
    post(client, game_id, "play", {"position": "8E", "word": "HORN"})
    post(client, game_id, "play", {"position": "G6", "word": "FA.M"})
    post(client, game_id, "undo")
    post(client, game_id, "pass")
    post(client, game_id, "correct", {"square": "E8", "letter": "C"})
    client.post(f"/api/games/{game_id}/questions", headers=HEADERS, json={"kind": "odd"})
    before = state(client, game_id)
    app.extensions["tilecam_store"].close()
    again = create_app({"DATABASE": db, "TESTING": True}).test_client()
    after = state(again, game_id)
    for key in ("players", "board", "log", "turn", "questions", "bag", "unseen"):
        assert after[key] == before[key], key


def test_import_gcg_then_continue(client):
    gcg = (
        "#player1 ann Ann Smith\n#player2 bob Bob Jones\n#title Test game\n"
        ">ann: AHNORST 8E HORN +14 14\n"
        ">bob: AEFMRTU G6 FA.M +13 13\n"
        ">ann: AEIOPST - +0 14\n"
    )
    response = client.post("/api/games/import", json={"gcg": gcg, "pin": PIN})
    assert response.status_code == 201, response.json
    assert response.json["warnings"] == [] and response.json["format_warnings"] == []
    game_id = response.json["id"]
    s = state(client, game_id)
    assert [p["name"] for p in s["players"]] == ["Ann Smith", "Bob Jones"]
    assert [p["score"] for p in s["players"]] == [14, 13] and s["title"] == "Test game"
    s = post(client, game_id, "play", {"position": "9E", "word": "A"})["state"]
    assert len(s["log"]) == 4
    wrong = gcg.replace("+13 13", "+15 15")
    response = client.post("/api/games/import", json={"gcg": wrong, "pin": PIN})
    [warning] = response.json["warnings"]
    assert warning.startswith("line 5:") and "score_mismatch" in warning
    assert state(client, response.json["id"])["players"][1]["score"] == 13  # the rules' value
    bad = client.post("/api/games/import", json={"gcg": ">x: AB 8E AB +4 4\n", "pin": PIN})
    assert bad.status_code == 400 and bad.json["error"] == "bad_gcg"
    illegal = gcg.replace("G6 FA.M", "A1 FARM")
    bad = client.post("/api/games/import", json={"gcg": illegal, "pin": PIN})
    assert bad.status_code == 400 and bad.json["error"] == "bad_gcg"
    assert "line 5" in bad.json["message"]
    assert len(client.get("/api/games").json["games"]) == 2  # refused imports store nothing
    # Harmless faults in how the record is written are named apart from the rules' findings.
    response = client.post("/api/games/import", json={"gcg": gcg.replace("Jones\n", "Jones\n\n"),
                                                      "pin": PIN})
    assert response.json["warnings"] == []
    assert response.json["format_warnings"] == ["line 3: blank_line: an empty line"]


SHARED_GCG = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "gcg"


def clean_english_records(limit):
    if not SHARED_GCG.is_dir():
        pytest.skip("shared/data/gcg (real GCG records) is not beside the repository")
    with open(SHARED_GCG / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    chosen = [SHARED_GCG / r["file"] for r in rows
              if r["replay"] == "clean" and r["language"] == "english"
              and "end_rack" in r["features"]]
    return [p for p in chosen if p.is_file()][:limit]


def test_import_real_gcg_records_reproduces_their_totals(client):
    records = clean_english_records(6)
    assert records, "the manifest lists clean English records"
    for path in records:
        response = client.post("/api/games/import", data={
            "pin": PIN, "gcg": (io.BytesIO(path.read_bytes()), path.name),
        }, content_type="multipart/form-data")
        assert response.status_code == 201, (path.name, response.json)
        assert response.json["warnings"] == [], path.name
        assert response.json["state"]["over"], path.name


def test_end_of_a_real_game_is_computed_without_asking(client):
    """A real record without its end-of-game lines: the player went out with the bag empty,
    so the opponent's rack is the unseen tiles and "End game" needs no input."""
    path = clean_english_records(1)[0]
    from scorer.gcg import read_gcg, replay

    text = path.read_bytes().decode("utf-8", "replace")
    final = replay(read_gcg(path.read_bytes())).game.scores
    lines = [ln for ln in text.splitlines()
             if not re.match(r"^>[^:]+:\s*(\S+\s+)?\([A-Z?]*\)\s", ln)]
    response = client.post("/api/games/import", json={"gcg": "\n".join(lines), "pin": PIN})
    assert response.status_code == 201, response.json
    game_id = response.json["id"]
    s = state(client, game_id)
    assert s["over"] and s["end_reason"] == "out" and not s["racks_settled"]
    s = post(client, game_id, "end")["state"]
    assert [p["score"] for p in s["players"]] == final


def test_export_gcg(client):
    game_id = new_game(client, title="Club final")
    post(client, game_id, "play", {"position": "8E", "word": "HORN"})
    response = client.get(f"/api/games/{game_id}/game.gcg")
    assert response.status_code == 200
    text = response.get_data(as_text=True)
    assert "8E HORN" in text and "#player1 Ann Ann" in text
    assert "#title Club final" in text and "#lexicon ENABLE" in text
    assert response.headers["Content-Disposition"].endswith(f'tilecam-{game_id}.gcg"')
    # The exported record imports back to the same game.
    post(client, game_id, "play", {"position": "G6", "word": "FA.M"})
    post(client, game_id, "challenge")
    text = client.get(f"/api/games/{game_id}/game.gcg").get_data(as_text=True)
    again = client.post("/api/games/import", json={"gcg": text, "pin": PIN})
    assert again.status_code == 201 and again.json["warnings"] == []
    original = state(client, game_id)
    copy = state(client, again.json["id"])
    for key in ("players", "board", "turn", "bag"):
        assert copy[key] == original[key], key
    assert [e["kind"] for e in copy["log"]] == [e["kind"] for e in original["log"]]


def read_sse(response, count):
    """The first ``count`` state events of a streamed SSE response."""
    events, buffer = [], ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            lines = dict(line.split(": ", 1) for line in block.splitlines()
                         if ": " in line and not line.startswith(":"))
            if lines.get("event") == "state":
                events.append((int(lines["id"]), json.loads(lines["data"])))
                if len(events) == count:
                    response.close()
                    return events
    return events


def test_sse_sends_the_state_then_every_new_version(client):
    import threading

    game_id = new_game(client)
    response = client.get(f"/api/games/{game_id}/events?max_events=2", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    timer = threading.Timer(0.2, lambda: client.post(
        f"/api/games/{game_id}/play", json={"position": "8E", "word": "HORN"}, headers=HEADERS))
    timer.start()
    events = read_sse(response, 2)
    timer.join()
    assert [v for v, _ in events] == [0, 1]
    assert events[0][1]["players"][0]["score"] == 0
    assert events[1][1]["players"][0]["score"] == 14


def test_camera_frames_grid_and_calibration(client, app):
    game_id = new_game(client)
    assert client.get(f"/api/games/{game_id}/frame.jpg").status_code == 404
    jpeg = b"\xff\xd8\xff\xe0" + b"\0" * 100 + b"\xff\xd9"
    response = client.post(f"/api/games/{game_id}/frames", data=jpeg,
                           headers={**HEADERS, "Content-Type": "image/jpeg"})
    assert response.status_code == 202 and response.json["queued"] == 1
    store = app.extensions["tilecam_store"]
    assert store.frames.pushed(game_id).get(timeout=1) == jpeg
    frame = client.get(f"/api/games/{game_id}/frame.jpg")
    assert frame.status_code == 200 and frame.data == jpeg and frame.mimetype == "image/jpeg"
    not_jpeg = client.post(f"/api/games/{game_id}/frames", data=b"GIF89a....",
                           headers={**HEADERS, "Content-Type": "image/jpeg"})
    assert not_jpeg.status_code == 415
    assert client.get(f"/api/games/{game_id}/grid").json["grid"] is None
    corners = {"corners": [[10, 10], [90, 12], [88, 95], [8, 90]], "width": 100, "height": 100}
    assert client.post(f"/api/games/{game_id}/grid", json=corners,
                       headers=HEADERS).status_code == 200
    assert client.get(f"/api/games/{game_id}/grid").json["grid"]["corners"][1] == [90, 12]
    for kind, body in (("corners", corners), ("empty", {}),
                       ("layout", {"rows": ["." * 15] * 7 + ["...HORN........"] + ["." * 15] * 7})):
        r = client.post(f"/api/games/{game_id}/calibration/{kind}", json=body, headers=HEADERS)
        assert r.status_code == 200, (kind, r.json)
    saved = client.get(f"/api/games/{game_id}/calibration").json["calibration"]
    assert set(saved) == {"corners", "empty", "layout"} and saved["empty"]["has_image"]
    assert store.calibration(game_id)["layout"]["data"]["rows"][7] == "...HORN........"
    bad = client.post(f"/api/games/{game_id}/calibration/layout", json={"rows": ["..."]},
                      headers=HEADERS)
    assert bad.status_code == 400 and bad.json["error"] == "bad_layout"


def test_pin_check_endpoint(client):
    game_id = new_game(client)
    assert client.post(f"/api/games/{game_id}/pin", json={}, headers=HEADERS).status_code == 200
    wrong = client.post(f"/api/games/{game_id}/pin", json={}, headers={"X-Game-Pin": "1111"})
    assert wrong.status_code == 403 and wrong.json["error"] == "wrong_pin"
