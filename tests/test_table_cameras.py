"""A phone as the camera of a club table: ``tilecam serve`` runs the table's camera pipeline in a
process of its own, fed with the frames the phone posts to whichever server process.

The frames are rendered photos of the demo game's first two plays (:class:`sim.game.DemoCamera`),
posted a few times a second as a phone's page posts them; the test answers the questions the
page asks (the players know their tiles) and checks the moves in the server's store, scored
exactly:

- on SQLite, one server process: the pipeline process is killed mid-game with SIGKILL, the next
  frames start it again, and the game goes on from the store, nothing lost or stored twice; when
  the phone stops, the pipeline stops too;
- on PostgreSQL, ``tilecam serve --workers 2`` (gunicorn): frames reach the pipeline through
  both workers, a spectator's live stream sees the moves, and the game's end stops the pipeline.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")

import cv2  # noqa: E402

from tests.conftest import children_of, running_club_server, server_answers  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SEED = 1
DIRECTOR_PIN = "9999"
TABLE_PIN = "1111"
#: The tracker's quiet period for these games: a move is committed this long after it settled.
QUIET_SECONDS = "1.5"
#: Frames a second the phone sends (its page offers 1, 2 or 4).
PHONE_FPS = 5.0


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The demo game's first two plays, JPEG photos of the board before and after each, and a
    profile of the demo camera's tiles (the alphabet captured once, as a club would)."""
    from calibration.profile import Profile
    from sim.game import ALPHABET_ROWS, EMPTY_ROWS, DemoCamera, demo_game
    from sim.render import render_board

    game = demo_game(SEED, moves=2)
    camera = DemoCamera(SEED)
    folder = tmp_path_factory.mktemp("table-camera")
    profile = Profile(tileset="en")
    profile.extend(camera.calibration_photo(), ALPHABET_ROWS)
    profile.save(folder / "profile")

    def jpeg(rows) -> bytes:
        image = render_board(list(rows), seed=SEED, config=camera.config).image
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        assert ok
        return data.tobytes()

    boards = [jpeg(EMPTY_ROWS)] + [jpeg(play.rows_after) for play in game.plays]
    return game, boards, folder / "profile"


def call(base: str, method: str, path: str, body: object = None, pin: str = TABLE_PIN,
         content_type: str = "application/json") -> dict:
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers={
        "Content-Type": content_type, "X-Game-Pin": pin})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


class Phone:
    """A phone's page posting the board's photo ``PHONE_FPS`` times a second from a thread,
    each on a new connection (the server's processes share them out); :meth:`show` changes
    the photo, :meth:`stop` ends the stream."""

    def __init__(self, base: str, game_id: str, jpeg: bytes) -> None:
        self.base, self.game_id, self.jpeg = base, game_id, jpeg
        self.answers: list[dict] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._stream, daemon=True)
        self._thread.start()

    def show(self, jpeg: bytes) -> None:
        self.jpeg = jpeg

    def _stream(self) -> None:
        while not self._stop.wait(1 / PHONE_FPS):
            try:
                answer = call(self.base, "POST", f"/api/games/{self.game_id}/frames",
                              self.jpeg, content_type="image/jpeg")
                self.answers.append(answer["pipeline"])
            except (OSError, ValueError) as exc:
                self.failures.append(str(exc))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def pipeline_of(base: str, game_id: str) -> dict:
    return call(base, "GET", f"/api/games/{game_id}/pipeline")["pipeline"]


def wait_until(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"{what} did not happen"
        time.sleep(0.1)


def plays(state: dict) -> list[tuple[str, int]]:
    return [(e["play"]["seed"], e["score"]) for e in state["log"] if e["play"]]


def play_until(base: str, game_id: str, count: int, truth: dict[str, str],
               timeout: float = 60.0) -> dict:
    """The game's state once it holds ``count`` plays; questions about a letter or a blank are
    answered on the way, as the players would on the page."""
    answered: set[int] = set()

    def played() -> dict | None:
        state = call(base, "GET", f"/api/games/{game_id}/state")
        for question in state["questions"]:
            if question["open"] and question["qid"] not in answered and question["kind"] in (
                    "unsure_letter", "blank_tile"):
                square = question["data"]["squares"][0]
                call(base, "POST", f"/api/games/{game_id}/questions/{question['qid']}/answer",
                     {"answer": truth[square]})
                answered.add(question["qid"])
        return state if len(plays(state)) >= count else None

    return wait_until(played, timeout, f"play {count} in the store")


def new_event(base: str, tables: int) -> list[str]:
    made = call(base, "POST", "/api/events", {
        "name": "Club night", "pin": DIRECTOR_PIN,
        "tables": [{"name": f"Table {n}", "players": [f"A{n}", f"B{n}"], "pin": TABLE_PIN}
                   for n in range(1, tables + 1)]})
    return [t["game_id"] for t in made["overview"]["tables"]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        for child in children_of(todo.pop()):
            found.add(child)
            todo.append(child)
    return found


def test_a_phone_table_on_sqlite_rides_out_a_killed_pipeline(rendered, tmp_path):
    game, boards, profile = rendered
    truth = {sq.name: letter for t in game.plays for sq, letter in t.tiles.items()}
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(tmp_path / "serve.log", "w+")  # noqa: SIM115 - read back at the end
    serve = subprocess.Popen(
        [sys.executable, "-m", "tilecam", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--db", str(tmp_path / "club.sqlite3"), "--quiet", "--profile", str(profile),
         "--quiet-seconds", QUIET_SECONDS, "--pipeline-idle", "3"],
        cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")})
    phone = None
    try:
        wait_until(lambda: server_answers(base), 30, "tilecam serve started")
        game_id = new_event(base, 2)[0]
        assert pipeline_of(base, game_id)["state"] == "stopped"
        phone = Phone(base, game_id, boards[0])
        running = wait_until(lambda: (s := pipeline_of(base, game_id))["state"] == "running"
                             and s.get("board") == "found" and s, 30, "the pipeline started")
        assert running["pid"] in descendants(serve.pid)
        phone.show(boards[1])
        state = play_until(base, game_id, 1, truth)
        assert plays(state) == [(game.plays[0].notation, game.plays[0].score)]

        # The pipeline process dies mid-move (the tiles laid, the move not yet committed); the
        # phone streams on.
        phone.show(boards[2])
        time.sleep(0.6)
        victim = pipeline_of(base, game_id)["pid"]
        os.kill(victim, signal.SIGKILL)
        again = wait_until(lambda: (s := pipeline_of(base, game_id)).get("pid") not in
                           (None, victim) and s["state"] == "running" and s, 30,
                           "the pipeline started again")
        assert again["crashes"] == 1 and again["restarts"] == 1
        assert again["last_exit"]["code"] == -signal.SIGKILL
        state = play_until(base, game_id, 2, truth)
        assert plays(state) == [(t.notation, t.score) for t in game.plays]
        assert [p["score"] for p in state["players"]] == [t.score for t in game.plays]
        ops = call(base, "GET", f"/api/games/{game_id}/ops")["ops"]
        assert [op["op"] for op in ops].count("place") == 2  # nothing stored twice
        assert not [q for q in state["questions"] if q["open"]]

        # The phone stops: so does the pipeline, once the idle time has passed.
        phone.stop()
        stopped = wait_until(lambda: (s := pipeline_of(base, game_id))["state"] == "stopped"
                             and s, 20, "the pipeline stopped")
        assert stopped["last_exit"] == {**stopped["last_exit"], "crashed": False,
                                        "reason": "idle", "code": 0}
        assert not phone.failures
        # The other table was never streamed: no pipeline for it.
        other = new_event(base, 1)[0]
        assert pipeline_of(base, other) == {**pipeline_of(base, other), "state": "stopped",
                                            "starts": 0}
    finally:
        if phone is not None:
            phone.stop()
        serve.send_signal(signal.SIGTERM)
        try:
            status = serve.wait(timeout=30)
        finally:
            serve.kill()
            log.seek(0)
            output = log.read()
            log.close()
    assert status == 0, output
    assert "Traceback" not in output, output
    assert "ended unexpectedly (signal 9)" in output


class Spectator:
    """A scoreboard's live stream of a game, read in a thread: the plays of every state it
    is sent."""

    def __init__(self, base: str, game_id: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=60)
        self.connection.request("GET", f"/api/games/{game_id}/events")
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        self.seen: list[list[tuple[str, int]]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if line.startswith("data: "):
                    self.seen.append(plays(json.loads(line[len("data: "):])))
        except (OSError, ValueError, AttributeError):
            pass  # closed at the end of the test

    def close(self) -> None:
        if self.connection.sock is not None:
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()


def test_phone_tables_on_postgresql_through_two_gunicorn_workers(rendered, postgres_cluster,
                                                                tmp_path):
    pytest.importorskip("gunicorn", reason="gunicorn is not installed (./setup.sh installs it)")
    game, boards, profile = rendered
    truth = {sq.name: letter for t in game.plays for sq, letter in t.tiles.items()}
    expected = [(t.notation, t.score) for t in game.plays]
    phones: list[Phone] = []
    with running_club_server(
            postgres_cluster, tmp_path / "server.log",
            ["--profile", str(profile), "--quiet-seconds", QUIET_SECONDS,
             "--pipeline-idle", "3"],
            env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}) as server:
        base = server.base
        games = new_event(base, 2)
        spectator = Spectator(base, games[0])
        try:
            # Two tables stream at once, each frame to whichever worker accepts it.
            phones = [Phone(base, game_id, boards[0]) for game_id in games]
            for phone in phones:
                phone.show(boards[1])
            for game_id in games:
                assert plays(play_until(base, game_id, 1, truth)) == expected[:1]
            for phone in phones:
                phone.show(boards[2])
            states = [play_until(base, game_id, 2, truth) for game_id in games]
            for state in states:
                assert plays(state) == expected
                assert [p["score"] for p in state["players"]] == [t.score for t in game.plays]
            statuses = [pipeline_of(base, game_id) for game_id in games]
            assert statuses[0]["pid"] != statuses[1]["pid"]
            assert all(s["starts"] == 1 and s["crashes"] == 0 for s in statuses)
            # The spectator saw each move as it was stored.
            wait_until(lambda: expected in spectator.seen, 10, "the spectator saw the moves")
            assert expected[:1] in spectator.seen

            # Table 1's game ends (a resignation the director enters): its pipeline stops,
            # and its phone's frames start none again.
            call(base, "POST", f"/api/games/{games[0]}/resign", {"player": 1}, pin=DIRECTOR_PIN)
            ended = wait_until(lambda: (s := pipeline_of(base, games[0]))["state"] == "stopped"
                               and s, 20, "table 1's pipeline stopped")
            assert ended["last_exit"]["reason"] == "game_over"
            time.sleep(1)
            assert phones[0].answers[-1]["reason"] == "game_over"
            assert pipeline_of(base, games[0])["starts"] == 1
            # Table 2's phone stops: its pipeline stops once idle.
            phones[1].stop()
            idle = wait_until(lambda: (s := pipeline_of(base, games[1]))["state"] == "stopped"
                              and s, 20, "table 2's pipeline stopped")
            assert idle["last_exit"]["reason"] == "idle"
            assert not any(phone.failures for phone in phones)
        finally:
            spectator.close()
            for phone in phones:
                phone.stop()


def test_a_sqlite_file_tells_each_process_of_the_others_changes(tmp_path):
    """The server and a table's pipeline share a SQLite file: a store waiting for a change hears
    one another store (another process, in the server's case) commits, within a poll or two,
    and its game in memory follows."""
    from webui.store import GameStore

    path = tmp_path / "games.sqlite3"
    server, pipeline = GameStore(path), GameStore(path)
    try:
        game_id = server.create_game(["Ann", "Bob"], pin=TABLE_PIN)
        assert server.version(game_id) == 0 and pipeline.version(game_id) == 0
        heard: list[tuple[int, float]] = []

        def wait() -> None:
            began = time.monotonic()
            heard.append((server.wait_for_change(game_id, 0, 10.0), time.monotonic() - began))

        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(0.3)  # the waiter is waiting, its listener polling
        pipeline.apply(game_id, {"op": "play", "position": "8E", "word": "HORN"})
        waiter.join(10)
        assert heard and heard[0][0] == 1 and heard[0][1] < 1.5
        assert server.state(game_id)["players"][0]["score"] == 14
    finally:
        server.close()
        pipeline.close()
