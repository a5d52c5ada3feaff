"""Who may do what: watching is open, every change needs the PIN, bad input changes nothing."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")

from webui import create_app  # noqa: E402
from webui.api import ACTIONS  # noqa: E402

PIN = "2468"


@pytest.fixture
def app(database):
    app = create_app({"DATABASE": database, "TESTING": True})
    yield app
    app.extensions["tilecam_store"].close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def game_id(client):
    response = client.post("/api/games", json={"players": ["Ann", "Bob"], "pin": PIN})
    game_id = response.json["id"]
    response = client.post(f"/api/games/{game_id}/play", json={"position": "8E", "word": "HORN"},
                           headers={"X-Game-Pin": PIN})
    assert response.status_code == 200
    return game_id


def snapshot(client, game_id):
    state = client.get(f"/api/games/{game_id}/state").json
    ops = client.get(f"/api/games/{game_id}/ops").json["ops"]
    return state["version"], state["players"], state["board"], state["questions"], len(ops)


#: One plausible body per change endpoint (what a legitimate client would send).
BODIES = {
    "play": {"position": "G6", "word": "FA.M"}, "pass": {}, "exchange": {"tiles": "AB"},
    "challenge": {}, "withdraw": {}, "challenge-bonus": {"points": 5}, "lose-turn": {},
    "undo": {}, "correct": {"square": "E8", "letter": "C"}, "end": {},
    "adjust": {"player": 0, "points": 5, "reason": "x"},
    "time-penalty": {"player": 0, "minutes": 1}, "clock": {"action": "pause"},
    "placements": {"tiles": {"I8": "S"}},
    "start-position": {"tiles": {"A1": "Q"}},
    "edit": {"change": "replace", "number": 1,
             "event": {"kind": "play", "player": 0, "position": "8E", "word": "HORn"}},
    "end-by-agreement": {"racks": {"0": "AEIRSTT", "1": "AEIRSTT"}},
    "resign": {"player": 0}, "time-out": {"player": 1},
}


def change_requests(game_id):
    """Every request that changes something, as (path, kwargs)."""
    base = f"/api/games/{game_id}"
    requests = [(f"{base}/{action}", {"json": BODIES[action]}) for action in ACTIONS]
    requests += [
        (f"{base}/questions", {"json": {"kind": "odd"}}),
        (f"{base}/questions/1/answer", {"json": {"answer": "x"}}),
        (f"{base}/frames", {"data": b"\xff\xd8\xff\xd9", "content_type": "image/jpeg"}),
        (f"{base}/grid", {"json": {"corners": [[0, 0], [1, 0], [1, 1], [0, 1]], "width": 2,
                                   "height": 2}}),
        (f"{base}/calibration/corners", {"json": {"corners": [[0, 0], [1, 0], [1, 1], [0, 1]],
                                                  "width": 2, "height": 2}}),
        (f"{base}/calibration/empty", {"json": {}}),
    ]
    return requests


def test_every_change_endpoint_is_listed():
    assert set(BODIES) == set(ACTIONS)


def test_without_the_pin_anyone_can_read(client, game_id):
    for path in ("/", f"/games/{game_id}", f"/games/{game_id}/control", f"/games/{game_id}/camera",
                 f"/api/games/{game_id}/state", f"/api/games/{game_id}/ops", "/api/games",
                 f"/api/games/{game_id}/questions", f"/api/games/{game_id}/grid",
                 f"/api/games/{game_id}/calibration", "/dictionary?words=horn",
                 f"/api/games/{game_id}/check-play?position=G6&word=FA.M"):
        assert client.get(path).status_code == 200, path
    stream = client.get(f"/api/games/{game_id}/events?max_events=1")
    assert stream.status_code == 200 and b"event: state" in stream.get_data()


@pytest.mark.parametrize("pin_header", [None, "", "1357", PIN + "0", "x" * 100])
def test_without_the_right_pin_nothing_changes(client, game_id, pin_header):
    before = snapshot(client, game_id)
    headers = {} if pin_header is None else {"X-Game-Pin": pin_header}
    for path, kwargs in change_requests(game_id):
        response = client.post(path, headers=headers, **kwargs)
        assert response.status_code in (403, 429), (path, response.status_code)
        assert response.json["error"] in ("pin_required", "wrong_pin", "too_many_attempts")
    assert snapshot(client, game_id) == before
    store = client.application.extensions["tilecam_store"]
    assert store.calibration(game_id) == {} and len(store.frames.pushed(game_id)) == 0


def test_pin_in_form_or_json_field_is_accepted(client, game_id):
    response = client.post(f"/api/games/{game_id}/pass", data={"pin": PIN})
    assert response.status_code == 200
    response = client.post(f"/api/games/{game_id}/pass", json={"pin": PIN})
    assert response.status_code == 200


def test_the_pin_is_stored_hashed(app, game_id):
    store = app.extensions["tilecam_store"]
    salt, digest = store._db.execute("SELECT pin_salt, pin_hash FROM games").fetchone()
    assert PIN.encode() not in digest and len(digest) == 32 and len(salt) == 16
    if store._db.kind == "sqlite":
        dump = "\n".join(store._db.iterdump())
        assert f"'{PIN}'" not in dump
    else:
        for table in ("games", "ops", "lexicons", "calibration"):
            rows = store._db.execute(f"SELECT * FROM {table}").fetchall()
            assert PIN not in repr(rows) and PIN.encode() not in repr(rows).encode()


def test_repeated_wrong_pins_are_slowed_down(client, game_id):
    statuses = [client.post(f"/api/games/{game_id}/pass", headers={"X-Game-Pin": f"{n:04d}"}
                            ).status_code for n in range(12)]
    assert statuses[:8] == [403] * 8 and set(statuses[8:]) == {429}
    # Even the right PIN waits out the lockout: guessing gains nothing by being fast.
    assert client.post(f"/api/games/{game_id}/pass", headers={"X-Game-Pin": PIN}).status_code == 429
    # ... but only for the guessing client: the scorekeeper's device is not locked out.
    other = {"REMOTE_ADDR": "127.0.0.2"}
    assert client.post(f"/api/games/{game_id}/pass", headers={"X-Game-Pin": PIN},
                       environ_base=other).status_code == 200


@pytest.mark.parametrize("body, code", [
    (b"{not json", "malformed_json"),
    (b"[1, 2]", "bad_request"),
    (b'"text"', "bad_request"),
])
def test_malformed_json_is_a_400(client, game_id, body, code):
    before = snapshot(client, game_id)
    response = client.post(f"/api/games/{game_id}/play", data=body,
                           headers={"X-Game-Pin": PIN, "Content-Type": "application/json"})
    assert response.status_code == 400 and response.json["error"] == code
    assert snapshot(client, game_id) == before


@pytest.mark.parametrize("action, body", [
    ("play", {"position": 8, "word": "FARM"}),
    ("play", {"position": "G6", "word": ["F", "A"]}),
    ("play", {"position": "Z99", "word": "FARM"}),
    ("play", {"position": "G6", "word": "FA.M", "rack": 7}),
    ("play", {"position": "G6", "word": "F4RM"}),
    ("play", {"position": "G6"}),
    ("play", {"position": "G6", "word": "A" * 41}),
    ("exchange", {"tiles": True}),
    ("exchange", {"tiles": 99}),
    ("exchange", {"tiles": "A1"}),
    ("challenge", {"challenger": "Bob"}),
    ("challenge", {"challenger": 5}),
    ("adjust", {"player": 0, "points": "lots", "reason": "x"}),
    ("adjust", {"player": 0, "points": 10**12, "reason": "x"}),
    ("adjust", {"player": 0, "points": 5}),
    ("correct", {"square": "P1", "letter": "A"}),
    ("correct", {"square": "E8", "letter": "AB"}),
    ("correct", {"square": ["E8"], "letter": "A"}),
    ("clock", {"action": "explode"}),
    ("placements", {"tiles": "H8=A"}),
    ("placements", {"tiles": {}}),
    ("placements", {"tiles": {"Q8": "A"}}),
    ("placements", {"tiles": {"I8": 5}}),
    ("placements", {"tiles": {"I8": "AB"}}),
    ("end", {"racks": ["AB"]}),
    ("end", {"racks": {"7": "AB"}}),
    ("time-penalty", {"player": 0, "minutes": -3}),
])
def test_wrong_types_and_values_are_a_400(client, game_id, action, body):
    before = snapshot(client, game_id)
    response = client.post(f"/api/games/{game_id}/{action}", json=body,
                           headers={"X-Game-Pin": PIN})
    assert response.status_code == 400, (action, body, response.json)
    assert response.json["message"]
    assert snapshot(client, game_id) == before


@pytest.mark.parametrize("body", [
    {"players": ["Ann"], "pin": PIN},
    {"players": ["A", "B", "C", "D", "E"], "pin": PIN},
    {"players": "Ann,Bob", "pin": PIN},
    {"players": ["Ann", "ann"], "pin": PIN},
    {"players": ["Ann", ""], "pin": PIN},
    {"players": ["Ann", "x" * 41], "pin": PIN},
    {"players": ["Ann", 3], "pin": PIN},
    {"players": ["Ann", "Bob"]},
    {"players": ["Ann", "Bob"], "pin": "12"},
    {"players": ["Ann", "Bob"], "pin": 1234},
    {"players": ["Ann", "Bob"], "pin": "12 34"},
    {"players": ["Ann", "Bob"], "pin": PIN, "tileset": "klingon"},
    {"players": ["Ann", "Bob"], "pin": PIN, "challenge": "triple"},
    {"players": ["Ann", "Bob"], "pin": PIN, "rack_size": 8},
    {"players": ["Ann", "Bob"], "pin": PIN, "clock_minutes": 0},
    {"players": ["Ann", "Bob"], "pin": PIN, "finish_level": "godlike"},
])
def test_bad_setups_are_refused(client, body):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400, (body, response.json)
    assert client.get("/api/games").json["games"] == []


def test_oversized_bodies_are_a_413(client, game_id):
    big_list = b"WORD\n" * (2 * 1024 * 1024 // 5 + 10)
    response = client.post("/api/games", data={
        "player1": "Ann", "player2": "Bob", "pin": PIN, "wordlist": (io.BytesIO(big_list), "b.txt"),
    }, content_type="multipart/form-data")
    assert response.status_code == 413 and response.json["error"] == "request_entity_too_large"
    before = snapshot(client, game_id)
    big_frame = b"\xff\xd8" + b"\0" * (1024 * 1024)
    response = client.post(f"/api/games/{game_id}/frames", data=big_frame,
                           headers={"X-Game-Pin": PIN, "Content-Type": "image/jpeg"})
    assert response.status_code == 413
    big_json = b'{"position": "G6", "word": "' + b"A" * (2 * 1024 * 1024) + b'"}'
    response = client.post(f"/api/games/{game_id}/play", data=big_json,
                           headers={"X-Game-Pin": PIN, "Content-Type": "application/json"})
    assert response.status_code == 413
    response = client.post("/api/games/import", data={
        "pin": PIN, "gcg": (io.BytesIO(b"#" * (3 * 1024 * 1024)), "g.gcg"),
    }, content_type="multipart/form-data")
    assert response.status_code == 413
    assert snapshot(client, game_id) == before
    assert len(client.application.extensions["tilecam_store"].frames.pushed(game_id)) == 0


def test_a_word_list_that_is_not_one_is_refused(client):
    response = client.post("/api/games", data={
        "player1": "Ann", "player2": "Bob", "pin": PIN,
        "wordlist": (io.BytesIO(b"\x00\x01\x02 123\n456\n"), "junk.bin"),
    }, content_type="multipart/form-data")
    assert response.status_code == 400 and response.json["error"] == "bad_word_list"


def test_unknown_game_and_route(client):
    assert client.get("/api/games/nosuchgame1/state").status_code == 404
    assert client.post("/api/games/nosuchgame1/pass", headers={"X-Game-Pin": PIN}
                       ).status_code == 404
    response = client.post("/api/games/nosuchgame1/explode", headers={"X-Game-Pin": PIN})
    assert response.status_code == 404
    assert client.get("/api/games/NOT-AN-ID!/events").status_code == 404
    assert client.delete("/api/games").status_code == 405


def test_dictionary_limits(client):
    response = client.get("/api/dictionary?words=" + "+".join(["a"] * 51))
    assert response.status_code == 400 and response.json["error"] == "too_many_words"
    response = client.get("/api/dictionary?words=" + "a" * 21)
    assert response.status_code == 400
