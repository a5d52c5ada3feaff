"""A table of a club event reporting to the club's server (``tilecam run --server``).

- the server side: an operation sent twice with the same id is stored once and answered
  "already have it" (SQLite and PostgreSQL);
- the table's client in-process against ``tilecam serve --workers 2`` on PostgreSQL: the
  network cut for a while mid-game (a TCP proxy between them stops), a worker killed, a reply
  lost: every event arrives, in order, once, and the scores are the game's;
- the whole way, camera frames -> pipeline -> client -> server: ``tilecam run`` on rendered
  photos against ``tilecam serve`` (SQLite), the server stopped mid-game and started again.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")

from tests.conftest import server_answers  # noqa: E402
from tilecam.table import (  # noqa: E402
    ClubServer,
    Outbox,
    ServerUnreachable,
    TableUplink,
    join_table,
    request_for,
)
from webui import STORE_KEY, create_app  # noqa: E402
from webui.store import GameStore  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DIRECTOR_PIN = "9999"
TABLE_PIN = "1111"


class TcpProxy:
    """A TCP relay from a local port to ``target``; :meth:`cut` makes the port refuse
    connections and ends the open ones (a table's network gone), :meth:`restore` brings it
    back on the same port."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self.restore()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def restore(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            # shutdown first: close alone leaves a thread blocked in accept() accepting on.
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        with self._lock:
            for sock in self._sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
            self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def call(base: str, method: str, path: str, body: dict | None = None,
         pin: str = TABLE_PIN) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers={
        "Content-Type": "application/json", "X-Game-Pin": pin})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def new_event(base: str, tables: int = 2) -> tuple[str, list[str]]:
    """An event of ``tables`` tables; its id and the tables' game ids."""
    made = call(base, "POST", "/api/events", {
        "name": "Club night", "pin": DIRECTOR_PIN,
        "tables": [{"name": f"Table {n}", "players": [f"A{n}", f"B{n}"], "pin": TABLE_PIN}
                   for n in range(1, tables + 1)]})
    return made["id"], [t["game_id"] for t in made["overview"]["tables"]]


def same_ops(local: list[dict], remote: list[dict]) -> None:
    """The server holds the table's operations, in order, each once, under the table's ids."""
    strip = ("seq", "at", "op_id", "client")
    assert [{k: v for k, v in op.items() if k not in strip} for op in remote] == \
        [{k: v for k, v in op.items() if k not in strip} for op in local]
    ids = [op.get("op_id") for op in remote]
    assert len(set(ids)) == len(ids)


# ----------------------------------------------------------------- the server's side


def test_an_operation_sent_twice_is_stored_once(database):
    app = create_app({"DATABASE": database, "TESTING": True})
    client = app.test_client()
    headers = {"X-Game-Pin": TABLE_PIN}
    game_id = client.post("/api/games", json={"players": ["Ann", "Bob"],
                                               "pin": TABLE_PIN}).get_json()["id"]
    first = client.post(f"/api/games/{game_id}/play", headers=headers,
                        json={"position": "8E", "word": "HORN", "op_id": "t1-1"})
    assert first.status_code == 200 and "already" not in first.get_json()
    again = client.post(f"/api/games/{game_id}/play", headers=headers,
                        json={"position": "8E", "word": "HORN", "op_id": "t1-1"})
    assert again.status_code == 200
    assert again.get_json()["already"] is True and again.get_json()["seq"] == 1
    # A question and its answer too: a repeat makes no second question.
    asked = client.post(f"/api/games/{game_id}/questions", headers=headers,
                        json={"kind": "no_placement", "options": ["pass"], "op_id": "t1-2"})
    assert asked.status_code == 201
    assert client.post(f"/api/games/{game_id}/questions", headers=headers,
                       json={"kind": "no_placement", "op_id": "t1-2"}).get_json()["already"]
    for _ in range(2):
        answered = client.post(f"/api/games/{game_id}/questions/1/answer", headers=headers,
                               json={"answer": "pass", "op_id": "t1-3"})
        assert answered.status_code == 200
    state = client.get(f"/api/games/{game_id}/state").get_json()
    assert state["version"] == 3 and state["players"][0]["score"] == 14
    ops = client.get(f"/api/games/{game_id}/ops").get_json()["ops"]
    assert [op["op_id"] for op in ops] == ["t1-1", "t1-2", "t1-3"]
    assert [op["seq"] for op in client.get(f"/api/games/{game_id}/ops?after=2")
            .get_json()["ops"]] == [3]
    # The same id in another game is another operation; a malformed id is refused.
    other = client.post("/api/games", json={"players": ["Cy", "Di"],
                                            "pin": TABLE_PIN}).get_json()["id"]
    assert "already" not in client.post(f"/api/games/{other}/pass", headers=headers,
                                        json={"op_id": "t1-1"}).get_json()
    bad = client.post(f"/api/games/{other}/pass", headers=headers, json={"op_id": "x" * 81})
    assert bad.status_code == 400 and bad.get_json()["error"] == "bad_op_id"
    app.extensions[STORE_KEY].close()


def test_an_older_database_gains_operation_ids(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite3"
    store = GameStore(path)
    game_id = store.create_game(["Ann", "Bob"], pin=TABLE_PIN)
    store.apply(game_id, {"op": "pass"})
    store.close()
    with sqlite3.connect(path) as conn:  # as a database made before operation ids
        conn.execute("DROP INDEX ops_op_id")
        conn.execute("ALTER TABLE ops DROP COLUMN op_id")
    store = GameStore(path)
    assert store.apply(game_id, {"op": "pass"}, op_id="a")["version"] == 2
    assert store.apply(game_id, {"op": "pass"}, op_id="a")["already"] is True
    assert [op.get("op_id") for op in store.ops(game_id)] == [None, "a"]
    store.close()


def test_each_stored_operation_has_its_call():
    assert request_for({"op": "place", "seq": 3, "tiles": {"H8": "A"}}) == \
        ("placements", {"tiles": {"H8": "A"}})
    assert request_for({"op": "end_game", "racks": None}) == ("end", {"racks": None})
    assert request_for({"op": "undo", "client": "1.2.3.4", "by": "Ann"}) == ("undo", {"by": "Ann"})
    assert request_for({"op": "question", "kind": "blank_letter", "options": ["A"],
                        "data": {"squares": ["H8"]}}) == \
        ("questions", {"squares": ["H8"], "kind": "blank_letter", "options": ["A"]})
    assert request_for({"op": "answer", "qid": 2, "answer": "pass"}) == \
        ("questions/2/answer", {"answer": "pass"})


# ----------------------------------------------------------------- the client, in-process


def demo_ops(turns: int) -> tuple[list[dict], list[int]]:
    """The first ``turns`` turns of the demo game as the pipeline stores them, and the scores
    the game has after them."""
    from sim.game import demo_game

    game = demo_game(1)
    ops: list[dict] = []
    scores = [0, 0]
    for turn in game.turns[:turns]:
        if turn.kind == "play":
            ops.append({"op": "place", "tiles": {sq.name: l for sq, l in turn.tiles.items()}})
        elif turn.kind == "exchange":
            ops.append({"op": "exchange", "tiles": turn.exchanged})
        else:
            ops.append({"op": "pass"})
        scores[turn.player] += turn.score
    return ops, scores


def wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_table_rides_out_a_cut_network_a_killed_worker_and_a_lost_reply(club_server,
                                                                          tmp_path):
    ops, scores = demo_ops(12)
    event_id, games = new_event(club_server.base)
    proxy = TcpProxy(("127.0.0.1", int(club_server.base.rsplit(":", 1)[1])))
    local_file = tmp_path / "table.sqlite3"
    store = GameStore(local_file)
    outbox = Outbox(local_file)
    said: list[str] = []
    server = ClubServer(proxy.base, TABLE_PIN, timeout=3)
    record = join_table(store, outbox, server, event_id, "table 2")
    assert record.server_game == games[1] and record.table_name == "Table 2"
    uplink = TableUplink(store, outbox, server, record, say=said.append)
    uplink.start()
    try:
        for op in ops[:4]:
            store.apply(record.local_game, op)
        assert uplink.drained(20)
        assert uplink.status.online is True

        # The network goes: the table plays on, its events wait in the file.
        proxy.cut()
        for op in ops[4:8]:
            store.apply(record.local_game, op)
        wait_until(lambda: uplink.status.online is False, 20, "the uplink noticed the cut")
        assert uplink.waiting() == 4
        assert "Club server offline: 4 event(s) wait" in uplink.notice()
        assert any("cannot be reached" in line for line in said)
        # Meanwhile a worker dies (gunicorn replaces it).
        victim = min(club_server.workers())
        os.kill(victim, signal.SIGKILL)
        proxy.restore()
        assert uplink.drained(30), uplink.status
        assert uplink.status.online is True and uplink.notice() is None

        # A reply lost on its way back: the operation reached the server, the client sends
        # it again, the server says it has it already.
        real_call = server.call
        lost = []

        def loses_one_reply(method, path, body=None):
            answer = real_call(method, path, body)
            if method == "POST" and not lost:
                lost.append(body["op_id"])
                raise ServerUnreachable("connection reset")
            return answer

        server.call = loses_one_reply
        for op in ops[8:]:
            store.apply(record.local_game, op)
        assert uplink.drained(30)
        assert lost
    finally:
        uplink.stop()
        proxy.cut()

    remote = call(club_server.base, "GET", f"/api/games/{games[1]}/ops")["ops"]
    local = store.ops(record.local_game)
    same_ops(local, remote)
    assert [op["op_id"] for op in remote] == [f"{record.local_game}-{n}"
                                              for n in range(1, len(ops) + 1)]
    state = call(club_server.base, "GET", f"/api/games/{games[1]}/state")
    assert [p["score"] for p in state["players"]] == scores
    assert [p["score"] for p in store.state(record.local_game)["players"]] == scores
    # The other table's game was not touched.
    assert call(club_server.base, "GET", f"/api/games/{games[0]}/ops")["ops"] == []
    # Started again (the laptop restarted), the file names the same game, nothing to send.
    again = join_table(store, outbox, server, event_id, "Table 2")  # found without the server
    assert again is not None and again.local_game == record.local_game
    assert again.sent == len(ops)
    outbox.close()
    store.close()


# ----------------------------------------------------------------- the whole way


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_serve(port: int, db: Path, log: Path) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "tilecam", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--db", str(db), "--quiet"],
        cwd=REPO, stdout=open(log, "a"), stderr=subprocess.STDOUT)  # noqa: SIM115
    wait_until(lambda: server_answers(f"http://127.0.0.1:{port}"), 30, "tilecam serve started")
    return process


@pytest.fixture(scope="module")
def photographed_game(tmp_path_factory):
    """Photos of the demo game's first two plays and of the board once more (a turn without
    new tiles), and a profile of the demo camera's tiles."""
    import cv2

    from calibration.profile import Profile
    from sim.game import ALPHABET_ROWS, DemoCamera, demo_game
    from sim.render import render_flat, render_frame

    folder = tmp_path_factory.mktemp("table")
    game = demo_game(1, moves=2)
    camera = DemoCamera(1)
    profile = Profile(tileset="en")
    profile.extend(camera.calibration_photo(), ALPHABET_ROWS)
    profile.save(folder / "profile")
    shots = folder / "shots"
    shots.mkdir()
    boards = [t.rows_after for t in game.plays] + [game.plays[-1].rows_after]
    for n, rows in enumerate(boards, start=1):
        flat = render_flat(list(rows), seed=1, config=camera.config)
        image = render_frame(flat, camera.config, seed=1 if n < len(boards) else 99).image
        cv2.imwrite(str(shots / f"turn-{n}.jpg"), image)
    return game, shots, folder / "profile"


def test_camera_photos_reach_the_club_server_through_an_outage(photographed_game, tmp_path):
    game, shots, profile_dir = photographed_game
    profile = tmp_path / "profile"
    shutil.copytree(profile_dir, profile)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server_db, server_log = tmp_path / "club.sqlite3", tmp_path / "serve.log"
    serve = start_serve(port, server_db, server_log)
    try:
        event_id, games = new_event(base)
    except BaseException:
        serve.kill()
        raise
    table_game = games[0]
    run = subprocess.Popen(
        [sys.executable, "-m", "tilecam", "run", "--host", "127.0.0.1", "--port", "0",
         "--source", str(shots), "--profile", str(profile), "--db", str(tmp_path / "t.db"),
         "--server", base, "--event", event_id, "--table", "Table 1", "--pin", TABLE_PIN],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(run.stdout), daemon=True).start()
    truth = {sq.name: letter for t in game.plays for sq, letter in t.tiles.items()}
    try:
        wait_until(lambda: any("scoreboard:" in line for line in lines) or run.poll() is not None,
                   60, "tilecam run started")
        found = re.search(r"scoreboard:\s+(http://\S+?)/games/(\w+)", "".join(lines))
        assert found, "".join(lines)
        local_base, local_game = found.group(1), found.group(2)

        def local_state() -> dict:
            return call(local_base, "GET", f"/api/games/{local_game}/state")

        def answer_letters() -> dict:
            # The players answer what the reader is unsure of: they know their tiles.
            state = local_state()
            for question in state["questions"]:
                if question["kind"] in ("unsure_letter", "blank_tile"):
                    square = question["data"]["squares"][0]
                    call(local_base, "POST",
                         f"/api/games/{local_game}/questions/{question['qid']}/answer",
                         {"answer": truth[square]})
            return state

        def server_plays() -> int:
            state = call(base, "GET", f"/api/games/{table_game}/state")
            return sum(1 for e in state["log"] if e["play"])

        wait_until(lambda: answer_letters() and server_plays() >= 1, 90,
                   "the first move on the club server")
        # The club server goes away mid-game.
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=20) == 0
        wait_until(lambda: any(q["kind"] == "no_placement"
                               for q in answer_letters()["questions"]), 90,
                   "the question about the photo without new tiles")
        question = next(q for q in local_state()["questions"] if q["kind"] == "no_placement")
        call(local_base, "POST", f"/api/games/{local_game}/questions/{question['qid']}/answer",
             {"answer": "pass"})
        wait_until(lambda: local_state()["log"][-1]["kind"] == "pass", 30, "the pass entered")
        wait_until(lambda: call(local_base, "GET", "/api/uplink")["online"] is False, 30,
                   "the table noticed the server is away")
        status = call(local_base, "GET", "/api/uplink")
        assert status["waiting"] >= 2  # at least the answer and the pass
        # Back again: everything waiting arrives.
        serve = start_serve(port, server_db, server_log)
        wait_until(lambda: call(local_base, "GET", "/api/uplink")["waiting"] == 0, 60,
                   "the waiting events sent")
        remote = call(base, "GET", f"/api/games/{table_game}/ops")["ops"]
        local = call(local_base, "GET", f"/api/games/{local_game}/ops")["ops"]
        same_ops(local, remote)
        state = call(base, "GET", f"/api/games/{table_game}/state")
        played = [(e["play"]["seed"], e["score"]) for e in state["log"] if e["play"]]
        assert played == [(t.notation, t.score) for t in game.plays]
        assert [p["score"] for p in state["players"]] == [t.score for t in game.plays]
        assert state["log"][-1]["kind"] == "pass"
        assert state["players"] == local_state()["players"]
    finally:
        run.send_signal(signal.SIGTERM)
        try:
            run.wait(timeout=20)
        finally:
            run.kill()
            serve.send_signal(signal.SIGTERM)
            serve.wait(timeout=20)
    out = "".join(lines)
    assert "the club server cannot be reached" in out, out
    assert "the club server is back" in out, out
    assert "Traceback" not in out, out
