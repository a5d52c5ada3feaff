"""The analysis page of a stored game (webui/analysis.py), with Flask's test client."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from webui import create_app
from webui.analysis import CACHE_KEY

PIN = "2468"
DEMO = Path(__file__).resolve().parents[1] / "tilecam" / "data" / "demo_game.gcg"


@pytest.fixture
def client(database):
    """A test client of an app with a game store of its own (closed after the test)."""
    app = create_app({"DATABASE": database, "TESTING": True})
    with app.test_client() as client:
        yield client
    app.extensions["tilecam_store"].close()


def new_game(client, players=("Ann", "Bob")) -> str:
    response = client.post("/api/games", json={"players": list(players), "pin": PIN})
    assert response.status_code == 201
    return response.json["id"]


def play(client, game_id, position, word, rack=None):
    body = {"position": position, "word": word} | ({"rack": rack} if rack else {})
    response = client.post(f"/api/games/{game_id}/play", json=body, headers={"X-Game-Pin": PIN})
    assert response.status_code == 200, response.json


def imported_demo(client) -> str:
    response = client.post("/api/games/import", data={"pin": PIN, "gcg": DEMO.read_text()})
    assert response.status_code == 201, response.json
    return response.json["id"]


def cells(page: str, table: str) -> list[list[str]]:
    """The text of each cell of each body row of the table with that id."""
    body = page.split(f'id="{table}"', 1)[1].split("</table>", 1)[0].split("<tbody>", 1)[1]
    rows = re.findall(r"<tr.*?</tr>", body, re.S)
    return [[" ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).split())
             for c in re.findall(r"<td.*?</td>", row, re.S)] for row in rows]  # fmt: skip


def test_an_imported_record_with_its_racks(client):
    game_id = imported_demo(client)
    response = client.get(f"/games/{game_id}/analysis")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    plays = cells(page, "plays")
    assert len(plays) == 12
    assert plays[0][:4] == ["1", "Ada", "EHNORSU", "HORN 8F 14"]
    assert plays[0][5].startswith("UNHORSE 8B 78 bingo") and plays[0][6] == "64"
    assert "withdrawn" in plays[7][3] and "not in the word list: UGLI" in plays[7][3]
    summary = cells(page, "summary")
    assert [row[0] for row in summary] == ["Ada", "Ben"] and summary[0][1] == "6"
    assert "ENABLE (bundled)" in page
    assert f'href="/games/{game_id}"' in page  # back to the scoreboard


def test_moves_entered_without_racks_get_the_same_tiles_half(client):
    game_id = new_game(client)
    play(client, game_id, "8E", "HORN", rack="HNORSTX")
    play(client, game_id, "H6", "MA.")
    page = client.get(f"/games/{game_id}/analysis").get_data(as_text=True)
    plays = cells(page, "plays")
    assert plays[0][2] == "HNORSTX" and plays[0][5].startswith("THORNS")
    assert plays[1][2] == "not known" and plays[1][5] == "—"
    # The same A and M make AM above HORN, with AH and MO, for 13 points instead of 5.
    assert plays[1][3:] == ["MA(N) H6 5", "AM 7E 13", "—", "8"]
    assert "game in progress" in page


def test_json_and_the_analysis_is_redone_when_the_game_changes(client):
    game_id = new_game(client)
    assert "No play yet" in client.get(f"/games/{game_id}/analysis").get_data(as_text=True)
    play(client, game_id, "8E", "HORN", rack="HNORSTX")
    first = client.get(f"/api/games/{game_id}/analysis").json
    assert [p["played"]["notation"] for p in first["plays"]] == ["HORN 8E 14"]
    assert first["lexicon"] == "ENABLE (bundled)" and first["plays"][0]["points_left"] > 0
    assert client.get(f"/api/games/{game_id}/analysis").json == first  # kept, not redone
    kept = client.application.extensions[CACHE_KEY]
    assert len(kept) == 2  # the empty game's, and this one
    play(client, game_id, "H6", "MA.")
    again = client.get(f"/api/games/{game_id}/analysis").json
    assert len(again["plays"]) == 2


def test_names_are_escaped_and_unknown_games_are_404(client):
    game_id = new_game(client, players=("<b>Ann</b>", "Bob"))
    play(client, game_id, "8E", "HORN")
    page = client.get(f"/games/{game_id}/analysis").get_data(as_text=True)
    assert "<b>Ann</b>" not in page and "&lt;b&gt;Ann&lt;/b&gt;" in page
    assert client.get("/games/nosuchgame/analysis").status_code == 404
    assert client.get("/api/games/nosuchgame/analysis").json["error"] == "no_such_game"


def test_the_scoreboard_links_to_the_analysis(client):
    game_id = new_game(client)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'href="/games/{game_id}/analysis"' in page
