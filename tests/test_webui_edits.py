"""Changing past events, ending a game now (agreement, resignation, time) and keeping an
imported record's pragmas, through Flask's test client."""

from __future__ import annotations

import random

import pytest

from scorer.gcg import read_gcg, replay
from webui import create_app

PIN = "2468"
HEADERS = {"X-Game-Pin": PIN}


@pytest.fixture
def client(database):
    app = create_app({"DATABASE": database, "TESTING": True})
    yield app.test_client()
    app.extensions["tilecam_store"].close()


def post(client, game_id, action, body=None, status=200):
    response = client.post(f"/api/games/{game_id}/{action}", json=body or {}, headers=HEADERS)
    assert response.status_code == status, response.json
    return response.json


def game_with_moves(client) -> str:
    game_id = client.post("/api/games", json={"players": ["Ann", "Bob"], "pin": PIN}).json["id"]
    post(client, game_id, "play", {"position": "8F", "word": "HORN"})
    post(client, game_id, "play", {"position": "H6", "word": "FA.M"})
    post(client, game_id, "play", {"position": "10F", "word": "PASTE"})
    return game_id


def visible(state: dict) -> tuple:
    """What the scoreboard shows (not the version, the history or what undo may do)."""
    return (state["players"], state["board"], state["log"], state["turn"], state["bag"],
            state["over"], state["unseen"])


def scores(state: dict) -> list[int]:
    return [p["score"] for p in state["players"]]


def test_edit_a_past_play_rescores_is_in_the_history_and_undoes_exactly(client):
    game_id = game_with_moves(client)
    before = client.get(f"/api/games/{game_id}/state").json
    reply = post(client, game_id, "edit", {
        "change": "replace", "number": 2, "by": "Cy",
        "event": {"kind": "play", "player": "1", "position": "H6", "word": "FA.m"}})
    assert scores(reply["state"]) == [36, 6]  # the blank M: FARm and PASTE's cross word rescored
    change = reply["state"]["history"][-1]
    assert change["what"] == "event 2: Bob's play H6 FA.M -> Bob's play H6 FA.m"
    assert change["by"] == "Cy" and change["client"] and change["at"] > 0
    gcg = client.get(f"/api/games/{game_id}/game.gcg").text
    assert scores(reply["state"]) == replay(read_gcg(gcg)).game.scores
    undone = post(client, game_id, "undo", {"by": "Cy"})["state"]
    assert visible(undone) == visible(before)
    assert undone["history"][0]["undone"] and undone["history"][1]["undo_of"] == change["seq"]
    assert client.get(f"/api/games/{game_id}/history").json["history"] == undone["history"]


def test_refused_edit_names_the_event_and_changes_nothing(client):
    game_id = game_with_moves(client)
    before = client.get(f"/api/games/{game_id}/state").json
    reply = post(client, game_id, "edit", {"change": "delete", "number": 1}, status=409)
    assert reply["error"] == "edit_refused"
    # Without HORN the play through its R has nothing to play through (made by Ann, now to
    # move first).
    assert reply["message"] == ("event 1 (Ann's play H6 FA.M): played_through_mismatch: H6 "
                                "FA.M: '.' at H8 but the square is empty")
    assert post(client, game_id, "edit", {"change": "replace", "number": 9, "event": {
        "kind": "pass"}}, status=400)["error"] == "out_of_range"
    assert post(client, game_id, "edit", {"change": "replace", "number": 1, "event": {
        "kind": "play", "word": "HORN"}}, status=400)["message"].startswith("a play needs")
    after = client.get(f"/api/games/{game_id}/state").json
    assert after == before


def test_insert_and_delete_events_and_change_a_challenge_outcome(client):
    game_id = game_with_moves(client)
    # Bob's FA.M was challenged off after all: insert the withdrawal, and Ann's PASTE no longer
    # connects -- so delete PASTE first, then insert the withdrawal.
    post(client, game_id, "edit", {"change": "delete", "number": 3})
    state = post(client, game_id, "edit", {"change": "insert", "number": 3,
                                           "event": {"kind": "withdrawn"}})["state"]
    assert scores(state) == [14, 0] and state["log"][-1]["kind"] == "withdrawn"
    state = post(client, game_id, "edit", {"change": "replace", "number": 3,
                                           "event": {"kind": "lost_turn", "player": 0}})["state"]
    assert scores(state) == [14, 9] and state["turn"] == 1


def test_store_edit_then_undo_restores_every_generated_edit(client):
    """Seeded random edits of a longer game through the store: each either is refused and
    changes nothing, or is made and undone to exactly the state before."""
    from scorer.lexicon import Lexicon
    from scorer.movegen import generate_game

    record = generate_game(8, Lexicon.default(), choose_among=2).to_gcg()
    game_id = client.post("/api/games/import", json={"gcg": record, "pin": PIN}).json["id"]
    rng = random.Random(8)
    made = refused = 0
    for _ in range(40):
        before = client.get(f"/api/games/{game_id}/state").json
        n = rng.randrange(len(before["log"])) + 1
        ev = before["log"][n - 1]
        if ev["play"] and rng.random() < 0.7:
            word = list(ev["play"]["word"])
            i = rng.choice([j for j, t in enumerate(word) if t != "."])
            word[i] = rng.choice("AEIOSTRN")
            body = {"change": "replace", "number": n, "event": {
                "kind": "play", "player": ev["player"], "position": ev["play"]["position"],
                "word": "".join(word)}}
        else:
            body = {"change": rng.choice(["delete", "insert"]), "number": n,
                    "event": {"kind": "adjustment", "player": rng.randrange(2), "score": 3,
                              "note": "slip"}}
        response = client.post(f"/api/games/{game_id}/edit", json=body, headers=HEADERS)
        if response.status_code != 200:
            refused += 1
            assert response.status_code == 409, response.json
            assert response.json["message"].startswith("event ")
            assert client.get(f"/api/games/{game_id}/state").json == before
            continue
        made += 1
        undone = post(client, game_id, "undo")["state"]
        assert visible(undone) == visible(before)
    assert made >= 10 and refused >= 5, (made, refused)


# -- ending now ----------------------------------------------------------------------------------


def test_end_by_agreement_needs_both_racks_and_deducts_each_own(client):
    game_id = game_with_moves(client)
    reply = post(client, game_id, "end-by-agreement", {"racks": {"0": "QAEIRST"}}, status=422)
    assert reply["error"] == "rack_required" and "missing: Bob" in reply["message"]
    assert not client.get(f"/api/games/{game_id}/state").json["over"]
    state = post(client, game_id, "end-by-agreement",
                 {"racks": {"0": "QAEIRST", "1": "EEIIOOU"}})["state"]
    assert scores(state) == [39 - 16, 9 - 7]  # nobody gains the other's tiles
    assert state["over"] and state["end_reason"] == "agreement" and state["racks_settled"]
    gcg = client.get(f"/api/games/{game_id}/game.gcg").text
    assert ">Bob: (agreed) +0 9" in gcg
    again = replay(read_gcg(gcg))
    assert again.game.scores == scores(state) and not again.mismatches
    assert post(client, game_id, "undo")["state"]["over"] is False  # the whole ending at once


@pytest.mark.parametrize(("action", "token", "reason"), [("resign", "(resigned)", "resigned"),
                                                         ("time-out", "(timeout)", "timeout")])
def test_resign_and_time_out_lose_whatever_the_scores(client, action, token, reason):
    game_id = game_with_moves(client)
    state = post(client, game_id, action, {"player": 0})["state"]
    assert state["over"] and state["end_reason"] == reason and state["winners"] == [1]
    assert scores(state) == [39, 9] and state["loser"] == 0
    gcg = client.get(f"/api/games/{game_id}/game.gcg").text
    assert f">Ann: {token} +0 39" in gcg
    again = replay(read_gcg(gcg))
    assert again.game.scores == [39, 9] and again.game.winner() == [1]
    post(client, game_id, "play", {"position": "11F", "word": "AT"}, status=422)


# -- an imported record's pragmas ------------------------------------------------------------


def test_import_then_export_keeps_every_pragma_in_order(client):
    record = ("#character-encoding UTF-8\n#player1 ann Ann\n#player2 bob Bob\n"
              "#title Club night\n#id org.club 42\n#game-type classic\n#house-rule none\n"
              ">ann: AHNORST 8E HORN +14 14\n#note nice\n#time 0:42\n"
              ">bob: AEFMRTU G6 FA.M +13 13\n#rack1 AEIST\n#rack2 QUE\n#zz last\n")
    game_id = client.post("/api/games/import", json={"gcg": record, "pin": PIN}).json["id"]
    exported = client.get(f"/api/games/{game_id}/game.gcg").text
    lines = exported.splitlines()
    assert [line for line in lines if line.startswith("#") and not line.startswith("#player")
            and not line.startswith("#character")] == [
        "#title Club night", "#id org.club 42", "#lexicon ENABLE",  # the list it is judged by
        "#game-type classic", "#house-rule none",
        "#note nice", "#time 0:42", "#rack1 AEIST", "#rack2 QUE", "#zz last"]
    # Once the game goes on, the last racks are no longer the last: they are left out.
    post(client, game_id, "pass")
    exported = client.get(f"/api/games/{game_id}/game.gcg").text
    assert "#rack1" not in exported and "#house-rule none" in exported
