"""A club night: an event of several tables, the director's PIN and page, standings and the
archive of every record; on SQLite and on PostgreSQL (the ``database`` fixture), and across
server processes on PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
import threading
import time
import zipfile

import pytest

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")

from webui import create_app  # noqa: E402

DIRECTOR = "9999"
TABLES = [
    {"name": "Table 1", "players": ["Ann", "Bob"], "pin": "1111"},
    {"name": "Table 2", "players": ["Cat", "Dan"], "pin": "2222"},
    {"players": ["Eve", "Fay"], "pin": "3333"},
    {"name": "Top board", "players": ["Gus", "Hal"], "pin": "4444"},
]


@pytest.fixture
def app(database):
    app = create_app({"DATABASE": database, "TESTING": True, "SSE_HEARTBEAT": 0.05})
    yield app
    app.extensions["tilecam_store"].close()


@pytest.fixture
def client(app):
    return app.test_client()


def new_event(client, tables=TABLES) -> dict:
    response = client.post("/api/events", json={"name": "Club night", "pin": DIRECTOR,
                                                "tables": tables})
    assert response.status_code == 201, response.json
    return response.json


def act(client, game_id: str, action: str, body: dict | None = None, pin: str = "1111",
        status: int = 200) -> dict:
    response = client.post(f"/api/games/{game_id}/{action}", json=body or {},
                           headers={"X-Game-Pin": pin})
    assert response.status_code == status, response.json
    return response.json


def test_an_event_is_set_up_with_a_game_per_table(client):
    created = new_event(client)
    overview = client.get(f"/api/events/{created['id']}").json
    assert overview["name"] == "Club night"
    assert [t["name"] for t in overview["tables"]] == ["Table 1", "Table 2", "Table 3",
                                                       "Top board"]
    assert [t["number"] for t in overview["tables"]] == [1, 2, 3, 4]
    first = overview["tables"][0]
    assert [p["name"] for p in first["players"]] == ["Ann", "Bob"]
    assert first["turn"] == 0 and not first["over"] and first["questions"] == []
    assert first["board"] == ["." * 15] * 15
    assert overview["standings"] == []
    # Each table is a game of its own, with its own scoreboard.
    state = client.get(f"/api/games/{first['game_id']}/state").json
    assert state["title"] == "Club night: Table 1"
    assert client.get(f"/games/{first['game_id']}").status_code == 200


def test_the_director_pin_changes_every_table_a_table_pin_only_its_own(client):
    tables = new_event(client)["overview"]["tables"]
    one, two = tables[0]["game_id"], tables[1]["game_id"]
    act(client, one, "play", {"position": "8E", "word": "HORN"}, pin="1111")
    act(client, two, "pass", pin="1111", status=403)  # table 1's PIN at table 2
    act(client, two, "play", {"position": "8E", "word": "FARM"}, pin=DIRECTOR)
    act(client, one, "pass", pin=DIRECTOR)
    states = [client.get(f"/api/games/{g}/state").json for g in (one, two)]
    assert [len(s["log"]) for s in states] == [2, 1]


def test_the_overview_follows_the_games_and_ranks_the_ended_ones(client):
    created = new_event(client)
    tables = created["overview"]["tables"]
    one, two, three = (t["game_id"] for t in tables[:3])
    act(client, one, "play", {"position": "8E", "word": "HORN"})
    client.post(f"/api/games/{two}/questions", json={"kind": "blank_letter",
                                                     "squares": ["H8"], "options": ["A", "E"]},
                headers={"X-Game-Pin": "2222"})
    act(client, one, "resign", {"player": 1})  # Bob resigns: Ann wins by 14
    act(client, three, "play", {"position": "8E", "word": "QUIZ"}, pin="3333")
    act(client, three, "resign", {"player": 0}, pin="3333")  # Eve resigns though ahead
    overview = client.get(f"/api/events/{created['id']}").json
    first, second, third, fourth = overview["tables"]
    assert first["over"] and first["winners"] == [0] and first["turn"] is None
    assert first["board"][7] == "....HORN......."
    assert first["last_squares"] == ["E8", "F8", "G8", "H8"]
    assert second["questions"] == ["blank_letter"] and not second["over"]
    assert third["winners"] == [1]
    assert fourth["moves"] == 0
    quiz = third["players"][0]["score"]
    assert [(r["player"], r["played"], r["wins"], r["spread"]) for r in overview["standings"]] \
        == [("Ann", 1, 1.0, 14), ("Fay", 1, 1.0, -quiz), ("Eve", 1, 0.0, quiz),
            ("Bob", 1, 0.0, -14)]


def test_the_overview_carries_each_tables_clocks(client):
    clocked = [{**TABLES[0], "clock_minutes": 25}, TABLES[1]]
    created = new_event(client, clocked)
    one = created["overview"]["tables"][0]["game_id"]
    act(client, one, "clock", {"action": "start"})
    first, second = client.get(f"/api/events/{created['id']}").json["tables"]
    assert first["clock"]["enabled"] and first["clock"]["limit"] == 25 * 60
    assert first["clock"]["running"] and first["clock"]["turn"] == 0
    assert not second["clock"]["enabled"]


def test_the_director_page_shows_every_table(client):
    created = new_event(client)
    game_id = created["overview"]["tables"][3]["game_id"]
    act(client, game_id, "play", {"position": "8E", "word": "HORN"}, pin="4444")
    html = client.get(f"/events/{created['id']}").get_data(as_text=True)
    for name in ("Club night", "Table 1", "Table 3", "Top board", "Gus", "Hal"):
        assert name in html
    assert html.count('class="mini-board"') == 4
    assert html.count('<span class="mt') == 4  # HORN at the top board
    assert "No game has ended yet." in html
    assert 'src="/static/director.js"' in html
    assert client.get("/static/director.js").status_code == 200
    assert client.get("/events/nosuchevent").status_code == 404


def test_all_records_in_one_archive(client):
    created = new_event(client)
    game_id = created["overview"]["tables"][0]["game_id"]
    act(client, game_id, "play", {"position": "8E", "word": "HORN"})
    act(client, game_id, "resign", {"player": 1})
    response = client.get(f"/events/{created['id']}/records.zip")
    assert response.status_code == 200 and response.mimetype == "application/zip"
    bundle = zipfile.ZipFile(io.BytesIO(response.data))
    assert bundle.namelist() == ["01-table-1.gcg", "02-table-2.gcg", "03-table-3.gcg",
                                 "04-top-board.gcg", "standings.csv"]
    record = bundle.read("01-table-1.gcg").decode()
    assert record == client.get(f"/api/games/{game_id}/game.gcg").get_data(as_text=True)
    assert "HORN" in record
    rows = list(csv.reader(io.StringIO(bundle.read("standings.csv").decode())))
    assert rows == [["rank", "player", "played", "wins", "spread"],
                    ["1", "Ann", "1", "1.0", "14"], ["2", "Bob", "1", "0.0", "-14"]]


@pytest.mark.parametrize("body, code", [
    ({"name": "Club night", "pin": DIRECTOR, "tables": []}, "table_count"),
    ({"name": "Club night", "pin": "1", "tables": TABLES}, "bad_pin"),
    ({"name": "", "pin": DIRECTOR, "tables": TABLES}, "bad_name"),
    ({"name": "Club night", "pin": DIRECTOR, "tables": "x"}, "wrong_type"),
    ({"name": "Club night", "pin": DIRECTOR,
      "tables": [*TABLES, {"players": ["Ivy", "ivy"], "pin": "5555"}]}, "duplicate_names"),
    ({"name": "Club night", "pin": DIRECTOR,
      "tables": [{"players": ["Ivy", "Jo"], "pin": "no"}]}, "bad_pin"),
])
def test_bad_setups_store_nothing(client, body, code):
    response = client.post("/api/events", json=body)
    assert response.status_code == 400 and response.json["error"] == code, response.json
    assert client.get("/api/games").json["games"] == []


def test_the_stream_carries_every_tables_changes(client):
    created = new_event(client)
    game_id = created["overview"]["tables"][1]["game_id"]
    response = client.get(f"/api/events/{created['id']}/stream?max_events=2", buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    timer = threading.Timer(0.2, lambda: act(client, game_id, "play",
                                             {"position": "8E", "word": "HORN"}, pin="2222"))
    timer.start()
    overviews = read_overviews(response, 2)
    timer.join()
    assert overviews[0]["tables"][1]["players"][0]["score"] == 0
    assert overviews[1]["tables"][1]["players"][0]["score"] == 14
    assert overviews[1]["versions"][game_id] == 1
    assert client.get("/api/events/nosuchevent/stream").status_code == 404


def read_overviews(response, count: int) -> list[dict]:
    overviews: list[dict] = []
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            if block.startswith("event: overview"):
                overviews.append(json.loads(block.split("data: ", 1)[1]))
                if len(overviews) == count:
                    return overviews
    return overviews


def test_a_directors_stream_on_one_worker_hears_a_table_on_another(postgres_cluster):
    url = postgres_cluster.new_schema()
    apps = [create_app({"DATABASE": url, "TESTING": True, "SSE_HEARTBEAT": 0.05})
            for _ in range(2)]
    try:
        table, director = (app.test_client() for app in apps)
        created = new_event(table)
        game_id = created["overview"]["tables"][2]["game_id"]
        response = director.get(f"/api/events/{created['id']}/stream?max_events=3",
                                buffered=False)
        threading.Timer(0.3, lambda: act(table, game_id, "play",
                                         {"position": "8E", "word": "HORN"},
                                         pin="3333")).start()
        started = time.monotonic()
        overviews: list[dict] = []
        reader = threading.Thread(target=lambda: overviews.extend(read_overviews(response, 2)),
                                  daemon=True)
        reader.start()
        reader.join(10)
        assert len(overviews) == 2, overviews
        assert overviews[1]["tables"][2]["players"][0]["score"] == 14
        assert time.monotonic() - started < 5
    finally:
        for app in apps:
            app.extensions["tilecam_store"].close()
        postgres_cluster.drop_schema(url)
