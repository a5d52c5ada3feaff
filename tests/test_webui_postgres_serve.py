"""``tilecam serve --workers 2`` on PostgreSQL: gunicorn's worker processes serve the pages and
the live-update streams, every stream hears every change whichever worker stored it, and a
worker killed with SIGKILL is replaced while the games go on."""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")
pytest.importorskip("gunicorn", reason="gunicorn is not installed (./setup.sh installs it)")

PIN = "2468"
STREAMS = 6


def post(base: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json", "X-Game-Pin": PIN},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


class Stream:
    """One live-update stream over its own connection, read in a thread."""

    def __init__(self, base: str, game_id: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=20)
        self.connection.request("GET", f"/api/games/{game_id}/events")
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        self.versions: list[int] = []
        self.states: dict[int, dict] = {}
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        fields: dict[str, str] = {}
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if line:
                    key, _, value = line.partition(": ")
                    fields[key] = value
                    continue
                if fields.get("event") == "state":
                    version = int(fields["id"])
                    with self.changed:
                        self.versions.append(version)
                        self.states[version] = json.loads(fields["data"])
                        self.changed.notify_all()
                fields = {}
        except (OSError, ValueError, AttributeError):
            pass  # the connection was closed: by the test at its end, or by a killed worker

    def wait_for(self, version: int, timeout: float = 10.0) -> dict:
        with self.changed:
            assert self.changed.wait_for(lambda: self.versions and self.versions[-1] >= version,
                                         timeout), f"saw versions {self.versions}"
            return self.states[self.versions[-1]]

    def close(self) -> None:
        # Shut the socket down first: the reading thread holds the response's buffer, and
        # closing it would wait until the server next writes (a heartbeat, 15 s away).
        if self.connection.sock is not None:
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()


def test_two_workers_serve_pages_and_streams_that_hear_every_change(club_server):
    base = club_server.base

    game_id = post(base, "/api/games", {"players": ["Ann", "Bob"], "pin": PIN})["id"]
    # Connections are shared out between the two workers as they are accepted: with several
    # streams open, both workers hold some (and every one must hear every change).
    streams = [Stream(base, game_id) for _ in range(STREAMS)]
    try:
        for stream in streams:
            stream.wait_for(0)
        post(base, f"/api/games/{game_id}/play", {"position": "8E", "word": "HORN"})
        for stream in streams:
            assert stream.wait_for(1)["players"][0]["score"] == 14
        # Each change through whichever worker the request met: they alternate with the
        # connections, and every stream sees the game in order.
        for _ in range(4):
            post(base, f"/api/games/{game_id}/pass", {})
        for stream in streams:
            state = stream.wait_for(5)
            assert state["version"] == 5 and stream.versions == sorted(set(stream.versions))
        with urllib.request.urlopen(f"{base}/games/{game_id}", timeout=10) as page:
            assert page.status == 200 and "Ann" in page.read().decode()

        # A worker killed outright is replaced by the master; the game goes on.
        victim = min(club_server.workers())
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while victim in club_server.workers() or len(club_server.workers()) < 2:
            assert time.monotonic() < deadline, "the killed worker was not replaced"
            time.sleep(0.1)
        state = post(base, f"/api/games/{game_id}/play", {"position": "G6", "word": "FA.M"})
        assert [p["score"] for p in state["state"]["players"]] == [14, 13]  # Bob's turn
        fresh = Stream(base, game_id)
        assert [p["score"] for p in fresh.wait_for(6)["players"]] == [14, 13]
        fresh.close()
    finally:
        for stream in streams:
            stream.close()


def test_several_workers_on_sqlite_are_refused(tmp_path, capsys):
    from tilecam.commands import serve

    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    args = parser.parse_args(["--workers", "2", "--db", str(tmp_path / "g.sqlite3")])
    assert serve.run(args) == 2
    assert "several workers need a PostgreSQL database" in capsys.readouterr().err


def test_the_server_rides_out_a_crash_of_postgresql(club_server_of_its_own):
    """PostgreSQL killed with SIGKILL and started again: meanwhile changes are refused (503,
    never acknowledged), afterwards the workers connect again by themselves, and a stream opened
    before the crash hears the changes made after it."""
    server = club_server_of_its_own
    base = server.base
    game_id = post(base, "/api/games", {"players": ["Ann", "Bob"], "pin": PIN})["id"]
    stream = Stream(base, game_id)
    try:
        stream.wait_for(0)
        server.cluster.crash()
        time.sleep(0.3)
        refused = urllib.request.Request(
            f"{base}/api/games/{game_id}/pass", data=b"{}", method="POST",
            headers={"Content-Type": "application/json", "X-Game-Pin": PIN})
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(refused, timeout=10)
        assert error.value.code == 503
        assert json.load(error.value)["error"] == "database_unavailable"
        server.cluster.start()
        state = post(base, f"/api/games/{game_id}/play", {"position": "8E", "word": "HORN"})
        assert state["state"]["version"] == 1  # the refused pass was not stored
        assert stream.wait_for(1, timeout=20)["players"][0]["score"] == 14
    finally:
        stream.close()
