"""Several server processes on one PostgreSQL database: a change made through one reaches the
pages and event streams of the others (LISTEN/NOTIFY), writers never clash, and a lost
connection is made again.

Each "process" here is an app with a store of its own: its own connections, its own games in
memory and its own listener, as a worker process of ``tilecam serve --workers`` has.  The test
of real worker processes is in ``test_webui_postgres_serve.py``.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")

from webui import create_app  # noqa: E402
from webui.store import GameStore  # noqa: E402

PIN = "2468"
HEADERS = {"X-Game-Pin": PIN}


@pytest.fixture
def shared(postgres_cluster):
    """The URL of an empty PostgreSQL database (a schema of its own), and its cluster."""
    url = postgres_cluster.new_schema()
    yield url
    postgres_cluster.drop_schema(url)


@pytest.fixture
def two_apps(shared):
    apps = [create_app({"DATABASE": shared, "TESTING": True, "SSE_HEARTBEAT": 0.05})
            for _ in range(2)]
    yield apps
    for app in apps:
        app.extensions["tilecam_store"].close()


def read_events(response, last_version: int, timeout: float = 10.0) -> list[tuple[int, dict]]:
    """The state events of an event stream up to the one of ``last_version``, read in a thread
    with a deadline (a stream that never delivers must fail the test, not hang it).  Versions
    that came in quick succession may arrive as one event: each carries the whole state."""
    events: list[tuple[int, dict]] = []

    def read() -> None:
        buffer = ""
        for chunk in response.response:
            buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                fields = dict(line.split(": ", 1) for line in block.splitlines()
                              if ": " in line and not line.startswith(":"))
                if fields.get("event") == "state":
                    events.append((int(fields["id"]), json.loads(fields["data"])))
                    if events[-1][0] >= last_version:
                        return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    assert not reader.is_alive(), f"version {last_version} not seen within {timeout} s: {events}"
    return events


def test_a_change_through_one_app_reaches_a_stream_opened_on_another(two_apps):
    one, other = (app.test_client() for app in two_apps)
    game_id = one.post("/api/games", json={"players": ["Ann", "Bob"], "pin": PIN}).json["id"]
    stream = other.get(f"/api/games/{game_id}/events?max_events=3", buffered=False)
    assert stream.status_code == 200

    def play_then_pass() -> None:
        time.sleep(0.3)  # the stream is waiting by now
        one.post(f"/api/games/{game_id}/play", json={"position": "8E", "word": "HORN"},
                 headers=HEADERS)
        one.post(f"/api/games/{game_id}/pass", headers=HEADERS)

    started = time.monotonic()
    threading.Thread(target=play_then_pass).start()
    events = read_events(stream, 2)
    versions = [version for version, _ in events]
    assert versions[0] == 0 and versions[-1] == 2 and versions == sorted(set(versions))
    assert events[0][1]["players"][0]["score"] == 0
    assert events[-1][1]["players"][0]["score"] == 14
    assert events[-1][1]["log"][-1]["kind"] == "pass"
    assert time.monotonic() - started < 5
    # The other app's pages show it too, and it may go on with the game.
    response = other.post(f"/api/games/{game_id}/play",
                          json={"position": "G6", "word": "FA.M"}, headers=HEADERS)
    assert response.status_code == 200, response.json
    assert one.get(f"/api/games/{game_id}/state").json["players"][0]["score"] == 14 + 13
    assert f"/games/{game_id}" in other.get("/").get_data(as_text=True)


def test_writers_in_several_processes_never_clash(shared):
    stores = [GameStore(shared) for _ in range(3)]
    try:
        game_id = stores[0].create_game(["Ann", "Bob"], pin=PIN)
        per_store = 15
        errors: list[BaseException] = []

        def adjust(store: GameStore, n: int) -> None:
            try:
                for i in range(per_store):
                    store.apply(game_id, {"op": "adjust", "player": n % 2, "points": 1,
                                          "reason": f"s{n}-{i}"})
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=adjust, args=(s, n)) for n, s in enumerate(stores)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        ops = stores[1].ops(game_id)
        assert [op["seq"] for op in ops] == list(range(1, 3 * per_store + 1))
        for n in range(3):  # each process's operations in the order it made them
            mine = [op["reason"] for op in ops if op["reason"].startswith(f"s{n}-")]
            assert mine == [f"s{n}-{i}" for i in range(per_store)]
        states = [s.state(game_id) for s in stores]
        assert all(s["version"] == 3 * per_store for s in states)
        assert len({json.dumps(s["players"]) for s in states}) == 1
    finally:
        for store in stores:
            store.close()


def test_waiters_hear_changes_after_the_connections_were_lost(shared, postgres_cluster):
    writer, watcher = GameStore(shared), GameStore(shared)
    try:
        game_id = writer.create_game(["Ann", "Bob"], pin=PIN)
        seen = watcher.version(game_id)
        assert watcher.wait_for_change(game_id, seen, timeout=0.05) == seen  # listening now
        assert watcher._listener.listening.wait(5)
        # Every connection of both stores ends, as when PostgreSQL restarts.
        name = shared.rsplit("application_name=", 1)[1]
        postgres_cluster.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                               f" WHERE application_name = '{name}'", "tests")
        threading.Timer(0.2, lambda: writer.apply(game_id, {"op": "pass"})).start()
        assert watcher.wait_for_change(game_id, seen, timeout=10) == seen + 1
        assert watcher.state(game_id)["log"][-1]["kind"] == "pass"
    finally:
        writer.close()
        watcher.close()


def test_a_closed_store_stops_listening(shared):
    store = GameStore(shared)
    game_id = store.create_game(["Ann", "Bob"], pin=PIN)
    store.wait_for_change(game_id, 0, timeout=0.01)
    listener = store._listener
    assert listener.listening.wait(5)
    store.close()
    listener._thread.join(5)
    assert not listener._thread.is_alive()
