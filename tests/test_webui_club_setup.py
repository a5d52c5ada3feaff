"""Setting up a club event from the browser (``/events/new``) and the list of events
(``/events``), through Flask's test client; the form checks nothing itself, the store does,
as for ``POST /api/events``."""

from __future__ import annotations

import html as html_text
import re

import pytest
from werkzeug.datastructures import MultiDict

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")

from webui import create_app  # noqa: E402

DIRECTOR = "9999"


@pytest.fixture
def app(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "games.sqlite3"), "TESTING": True})
    yield app
    app.extensions["tilecam_store"].close()


@pytest.fixture
def client(app):
    return app.test_client()


def filled_form(tables: list[tuple[str, list[str], str]], name: str = "Club night",
                pin: str = DIRECTOR) -> MultiDict:
    """The form as a browser posts it: four player fields a table, blanks included."""
    form = MultiDict({"name": name, "pin": pin})
    for number, (table, players, table_pin) in enumerate(tables, start=1):
        form.add(f"table-{number}-name", table)
        for player in (players + [""] * 4)[:4]:
            form.add(f"table-{number}-player", player)
        form.add(f"table-{number}-pin", table_pin)
    return form


FOUR_TABLES = [("Table 1", ["Ann", "Bob"], "1111"), ("Table 2", ["Cat", "Dan", "Eve"], "2222"),
               ("Top board", ["Fay", "Gus"], "3333"), ("Table 4", ["Hal", "Ida"], "4444")]


def field_values(html: str, name: str) -> list[str]:
    return re.findall(rf'name="{re.escape(name)}" value="([^"]*)"', html)


def error_of(html: str, where: str) -> str | None:
    found = re.search(rf'id="error-{re.escape(where)}">([^<]*)<', html)
    return None if found is None else html_text.unescape(found.group(1))


def test_the_form_starts_with_numbered_tables_each_with_a_pin_of_its_own(client):
    html = client.get("/events/new").get_data(as_text=True)
    assert [field_values(html, f"table-{n}-name") for n in range(1, 5)] == [
        ["Table 1"], ["Table 2"], ["Table 3"], ["Table 4"]]
    assert field_values(html, "table-5-name") == []
    pins = [field_values(html, f"table-{n}-pin")[0] for n in range(1, 5)]
    assert len(set(pins)) == 4 and all(re.fullmatch(r"\d{4}", p) for p in pins)
    assert html.count('name="table-1-player"') == 4
    assert 'src="/static/event_setup.js"' in html
    assert client.get("/static/event_setup.js").status_code == 200
    html = client.get("/events/new?tables=7").get_data(as_text=True)
    assert field_values(html, "table-7-name") == ["Table 7"]


def test_a_set_up_event_opens_its_directors_page(client, app):
    response = client.post("/events/new", data=filled_form(FOUR_TABLES))
    assert response.status_code == 303
    event_id = response.headers["Location"].rsplit("/", 1)[1]
    overview = client.get(f"/api/events/{event_id}").json
    assert overview["name"] == "Club night"
    assert [t["name"] for t in overview["tables"]] == ["Table 1", "Table 2", "Top board",
                                                       "Table 4"]
    assert [[p["name"] for p in t["players"]] for t in overview["tables"]] == [
        ["Ann", "Bob"], ["Cat", "Dan", "Eve"], ["Fay", "Gus"], ["Hal", "Ida"]]
    store = app.extensions["tilecam_store"]
    games = [t["game_id"] for t in overview["tables"]]
    assert store.check_pin(games[2], "3333") and not store.check_pin(games[2], "1111")
    assert store.check_director_pin(event_id, DIRECTOR)
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert page.count('class="mini-board"') == 4 and "Top board" in page


@pytest.mark.parametrize(("change", "where", "message"), [
    (lambda form: form.setlist("name", [""]), "name", "an event's name is 1 to 80"),
    (lambda form: form.setlist("pin", ["12"]), "pin", "the director's PIN must be 4"),
    (lambda form: form.setlist("table-3-pin", ["1 1"]), "tables-3-pin", "the PIN must be 4"),
    (lambda form: form.setlist("table-2-player", ["Cat", "", "", ""]), "tables-2-players",
     "2 to 4 players, got 1"),
    (lambda form: form.setlist("table-4-player", ["Hal", "hal", "", ""]), "tables-4-players",
     "two players have the same name"),
    (lambda form: form.setlist("table-1-name", ["x" * 41]), "tables-1-name",
     "a name of at most 40"),
    (lambda form: form.setlist("table-3-pin", [DIRECTOR]), "tables-3-pin",
     "its PIN is the director's"),
    (lambda form: form.setlist("table-2-name", [form.get("table-1-name").upper()]),
     "tables-2-name", "table 1 is named"),
])
def test_a_refusal_is_said_next_to_its_field_and_nothing_is_stored(client, app, change, where,
                                                                   message):
    form = filled_form(FOUR_TABLES)
    change(form)
    response = client.post("/events/new", data=form)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert error_of(html, where).startswith(message)
    # The same words as the API's refusal, which names the table at the top of the form.
    assert "Not set up yet: " in html
    assert html.count('class="field-error') == 1
    assert 'aria-invalid="true"' in html
    # Everything typed is kept.
    assert field_values(html, "table-3-name") == ["Top board"]
    assert field_values(html, "table-2-player")[:2] in (["Cat", "Dan"], ["Cat", ""])
    assert app.extensions["tilecam_store"].list_club_events() == []


def test_the_api_names_the_same_field(client):
    form = filled_form(FOUR_TABLES)
    tables = [{"name": n, "players": p, "pin": pin} for n, p, pin in FOUR_TABLES]
    tables[2]["pin"] = "1 1"
    answer = client.post("/api/events", json={"name": "Club night", "pin": DIRECTOR,
                                              "tables": tables})
    assert answer.status_code == 400
    assert answer.json["field"] == "tables.3.pin"
    form.setlist("table-3-pin", ["1 1"])
    html = client.post("/events/new", data=form).get_data(as_text=True)
    assert answer.json["message"] in html


def test_rows_are_added_and_removed_without_scripts(client):
    form = filled_form(FOUR_TABLES)
    form["rows"] = "add"
    html = client.post("/events/new", data=form).get_data(as_text=True)
    assert field_values(html, "table-5-name") == ["Table 5"]
    new_pin = field_values(html, "table-5-pin")[0]
    assert new_pin not in ("1111", "2222", "3333", "4444")
    assert field_values(html, "table-2-player") == ["Cat", "Dan", "Eve", ""]

    form = filled_form(FOUR_TABLES)
    form["rows"] = "remove-2"
    html = client.post("/events/new", data=form).get_data(as_text=True)
    # Default names follow the rows' places; a name of the director's own stays.
    assert [field_values(html, f"table-{n}-name") for n in range(1, 5)] == [
        ["Table 1"], ["Top board"], ["Table 3"], []]
    assert field_values(html, "table-3-player")[:2] == ["Hal", "Ida"]
    assert "Not set up" not in html


def test_the_list_of_events_links_each_directors_page(client):
    assert "No club event yet." in client.get("/events").get_data(as_text=True)
    first = client.post("/events/new", data=filled_form(FOUR_TABLES, name="Monday"))
    second = client.post("/events/new", data=filled_form(FOUR_TABLES[:2], name="Tuesday"))
    html = client.get("/events").get_data(as_text=True)
    assert html.index("Tuesday") < html.index("Monday")  # newest first
    for response in (first, second):
        assert f'href="{response.headers["Location"]}"' in html
    assert 'href="/events/new"' in html
    assert [(e["name"], e["tables"]) for e in client.get("/api/events").json["events"]] == [
        ("Tuesday", 2), ("Monday", 4)]
    assert 'href="/events"' in client.get("/").get_data(as_text=True)


def test_the_list_of_events_on_postgresql(postgres_cluster):
    url = postgres_cluster.new_schema()
    app = create_app({"DATABASE": url, "TESTING": True})
    try:
        client = app.test_client()
        client.post("/events/new", data=filled_form(FOUR_TABLES, name="Monday"))
        assert [(e["name"], e["tables"]) for e in client.get("/api/events").json["events"]] \
            == [("Monday", 4)]
    finally:
        app.extensions["tilecam_store"].close()
        postgres_cluster.drop_schema(url)
