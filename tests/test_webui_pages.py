"""The HTML pages: each renders, shows the game, escapes what players typed, works as a form."""

from __future__ import annotations

import doctest
import io
import re

import pytest

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")

import webui  # noqa: E402
from webui import create_app, frames, gcgimport, store  # noqa: E402

PIN = "2468"


@pytest.fixture
def client(database):
    app = create_app({"DATABASE": database, "TESTING": True})
    yield app.test_client()
    app.extensions["tilecam_store"].close()


def new_game(client, players=("Ann", "Bob")) -> str:
    response = client.post("/api/games", json={"players": list(players), "pin": PIN})
    assert response.status_code == 201
    return response.json["id"]


def play(client, game_id, position, word):
    response = client.post(f"/api/games/{game_id}/play", json={"position": position, "word": word},
                           headers={"X-Game-Pin": PIN})
    assert response.status_code == 200, response.json


@pytest.mark.parametrize("module", [webui, store, frames, gcgimport])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_index_lists_games_with_links(client):
    assert "No games yet" in client.get("/").get_data(as_text=True)
    game_id = new_game(client)
    html = client.get("/").get_data(as_text=True)
    assert f'href="/games/{game_id}"' in html and "Ann · Bob" in html
    assert f'href="/games/{game_id}/control"' in html
    play(client, game_id, "8E", "HORN")
    assert "14 – 0" in client.get("/").get_data(as_text=True)


def test_game_list_shows_scores_after_a_restart_without_replaying(database):
    db = database
    app = create_app({"DATABASE": db, "TESTING": True})
    client = app.test_client()
    game_id = new_game(client)
    play(client, game_id, "8E", "HORN")
    app.extensions["tilecam_store"].close()
    app = create_app({"DATABASE": db, "TESTING": True})
    [listed] = app.test_client().get("/api/games").json["games"]
    assert listed["scores"] == [14, 0] and listed["over"] is False
    assert app.extensions["tilecam_store"]._live == {}  # nothing was replayed to list it
    app.extensions["tilecam_store"].close()


def test_scoreboard_page_shows_totals_board_and_last_move(client):
    game_id = new_game(client)
    play(client, game_id, "8E", "HORN")
    play(client, game_id, "G6", "fA.M")
    response = client.get(f"/games/{game_id}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    totals = re.findall(r'<div class="total">(\d+)</div>', html)
    assert totals == ["14", "9"]
    assert 'class="player on-turn"' in html  # Ann to move
    assert "Bob: fA(R)M G6 9" in " ".join(html.split())
    # The board: 225 squares, premium classes from the layout, tiles with blank and last marks.
    assert len(re.findall(r'class="sq[^"]*" data-sq="[A-O]\d+"', html)) == 225
    assert re.search(r'class="sq tw" data-sq="A1"', html)
    assert re.search(r'data-sq="G6"><span class="tile blank last">F<sub>0</sub>', html)
    assert re.search(r'data-sq="E8"><span class="tile">H<sub>4</sub>', html)
    assert 'src="/static/scoreboard.js"' in html and 'id="initial-state"' in html
    assert "cdn" not in html.lower() and "https://" not in html


def test_control_page_and_camera_pages_render(client):
    game_id = new_game(client, ("Ann", "Bob", "Cy"))
    html = client.get(f"/games/{game_id}/control").get_data(as_text=True)
    for element in ("play-form", "pass-button", "challenge-button", "undo-button", "exchange-form",
                    "correct-form", "end-button", "questions", "clock-start", "adjust-form",
                    "challenger", "pin-form"):
        assert f'id="{element}"' in html, element
    assert f'href="/api/games/{game_id}/game.gcg"' in html
    for page, marker in (("camera", 'id="overlay"'), ("calibrate", 'id="capture-empty"'),
                         ("phone", 'id="start-camera"')):
        response = client.get(f"/games/{game_id}/{page}")
        assert response.status_code == 200 and marker in response.get_data(as_text=True), page
    assert "openssl req -x509" in client.get(f"/games/{game_id}/phone").get_data(as_text=True)


def test_unknown_game_is_a_404_page(client):
    for path in ("/games/nosuchgame1", "/games/nosuchgame1/control", "/games/../etc/camera"):
        response = client.get(path)
        assert response.status_code == 404, path
    html = client.get("/games/nosuchgame1").get_data(as_text=True)
    assert "there is no game" in html and "<html" in html


def test_player_names_and_words_are_escaped(client):
    evil = '<script>alert("x")</script>'
    response = client.post("/api/games", json={"players": [evil, "Bob & <b>"], "pin": PIN})
    game_id = response.json["id"]
    for path in (f"/games/{game_id}", f"/games/{game_id}/control", "/"):
        html = client.get(path).get_data(as_text=True)
        assert "<script>alert" not in html, path
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html or \
            "&lt;script&gt;alert(&#34;x&#34;)" in html, path
    # Inside the embedded JSON the < of a name cannot close the script element.
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    embedded = re.search(r'id="initial-state">(.*?)</script>', html, re.S).group(1)
    assert "<" not in embedded and "\\u003cscript" in embedded
    words = client.get("/dictionary?words=<img>").get_data(as_text=True)
    assert "<img>" not in words


def test_setup_form_posts_and_redirects_to_controls(client):
    form = client.get("/games/new").get_data(as_text=True)
    assert 'name="tileset"' in form and 'value="de"' in form and 'name="wordlist"' in form
    assert 'name="challenge"' in form and 'value="nine"' not in form
    response = client.post("/games/new", data={
        "player1": "Ann", "player2": "Bob", "player3": "", "pin": PIN, "tileset": "de",
        "challenge": "ten", "rack_size": "9", "finish_level": "expert", "clock_minutes": "20",
        "overtime_points_per_minute": "5", "out_bonus": "double",
    })
    assert response.status_code == 303
    game_id = response.headers["Location"].split("/")[-2]
    state = client.get(f"/api/games/{game_id}/state").json
    assert [p["name"] for p in state["players"]] == ["Ann", "Bob"]
    assert state["tileset"]["code"] == "de" and state["rules"]["challenge"] == "ten"
    assert state["rules"]["rack_size"] == 9 and state["rules"]["finish_line"] == 200
    assert state["rules"]["overtime_points_per_minute"] == 5
    assert state["rules"]["out_bonus"] == "double"
    assert state["clock"]["limit"] == 20 * 60
    bad = client.post("/games/new", data={"player1": "Ann", "pin": PIN})
    assert bad.status_code == 400 and "2 to 4 players" in bad.get_data(as_text=True)


def test_import_form(client):
    assert client.get("/import").status_code == 200
    gcg = b"#player1 a Ann\n#player2 b Bob\n>a: AHNORST 8E HORN +14 14\n"
    response = client.post("/import", data={"pin": PIN, "gcg": (io.BytesIO(gcg), "g.gcg")},
                           content_type="multipart/form-data")
    assert response.status_code == 303
    game_id = response.headers["Location"].split("/")[-2]
    assert client.get(f"/api/games/{game_id}/state").json["players"][0]["score"] == 14
    # A record with warnings: the page lists them, then links to the game.
    sloppy = gcg.replace(b"Bob\n", b"Bob\n\n").replace(b"+14 14", b"+15 15 ")
    response = client.post("/import", data={"pin": PIN, "gcg": (io.BytesIO(sloppy), "g.gcg")},
                           content_type="multipart/form-data")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and 'id="import-form"' not in html
    assert re.search(r'<li class="bad">line 4: a: 8E HORN recorded \+15.*\[score_mismatch]</li>',
                     html)
    assert "<li>line 3: blank_line: an empty line</li>" in html
    assert "<li>line 4: trailing_whitespace: spaces or tabs after the end of the line</li>" in html
    assert re.search(r'<a class="button primary" href="/games/\w+/control">Open the game</a>', html)


def test_dictionary_page(client):
    html = client.get("/dictionary").get_data(as_text=True)
    assert "ENABLE" in html and 'id="verdict"' not in html
    html = client.get("/dictionary?words=jo").get_data(as_text=True)
    assert re.search(r'id="verdict">\s*All valid', html)
    html = client.get("/dictionary?words=horn+farmz").get_data(as_text=True)
    assert re.search(r'id="verdict">\s*Not all valid', html)
    assert re.search(r'<li class="bad"><span class="word">FARMZ</span>', html)
    assert re.search(r'<li class="ok"><span class="word">HORN</span>', html)
    html = client.get("/dictionary?words=xyzzy").get_data(as_text=True)
    assert re.search(r'id="verdict">\s*Not valid', html)


def test_dictionary_page_uses_the_games_word_list(client):
    data = {"player1": "Ann", "player2": "Bob", "pin": PIN,
            "wordlist": (io.BytesIO(b"XYZZY\n"), "mine.txt")}
    game_id = client.post("/api/games", data=data, content_type="multipart/form-data").json["id"]
    html = client.get(f"/dictionary?game={game_id}&words=xyzzy").get_data(as_text=True)
    assert "mine.txt" in html and re.search(r'id="verdict">\s*All valid', html)
    play(client, game_id, "8E", "HORN")
    play(client, game_id, "G6", "FA.M")
    html = client.get(f"/dictionary?game={game_id}").get_data(as_text=True)
    link = re.search(r'id="check-last-play" href="([^"]+)">Check the last play: FARM<', html)
    assert link
    html = client.get(link.group(1).replace("&amp;", "&")).get_data(as_text=True)
    assert re.search(r'id="verdict">\s*Not valid', html)  # FARM is not in mine.txt


def test_static_files_are_served_locally(client):
    for name in ("style.css", "common.js", "scoreboard.js", "control.js", "camera.js",
                 "phone.js", "setup.js", "index.js", "favicon.svg"):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200 and response.data, name
        response.close()


def test_pages_send_a_strict_content_security_policy(client):
    response = client.get("/")
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"
