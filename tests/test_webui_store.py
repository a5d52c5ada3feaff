"""The store as the camera pipeline uses it from Python: questions, changes, frames; and what
happens when storing or replaying fails."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

import pytest

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")

from webui.frames import FrameError, PushedFrames  # noqa: E402
from webui.store import GameStore, StoreError  # noqa: E402

PIN = "2468"


@pytest.fixture
def store(database):
    s = GameStore(database)
    yield s
    s.close()


def raw_execute(database: str, sql: str, params: tuple = ()) -> None:
    """Change the database behind the store's back, as another program might."""
    if database.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(database, autocommit=True) as db:
            db.execute(sql.replace("?", "%s"), params)
    else:
        with sqlite3.connect(database) as db:
            db.execute(sql, params)


def test_commits_are_on_disk_before_they_are_acknowledged(store):
    if store._db.kind == "sqlite":
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    else:
        assert store._db.execute("SHOW synchronous_commit").fetchone()[0] == "on"


def test_python_api_for_the_tracker(store):
    game_id = store.create_game(["Ann", "Bob"], pin=PIN)
    store.apply(game_id, {"op": "play", "position": "8E", "word": "HORN"})
    q = store.add_question(game_id, "blank_letter", squares=["I8"], options=["S", "Y"],
                           placement={"I8": "?"})
    assert q.open and q.options == ["S", "Y"] and q.data["placement"] == {"I8": "?"}
    assert [x.qid for x in store.questions(game_id, open_only=True)] == [q.qid]
    result = store.answer_question(game_id, q.qid, "y")
    assert result["placed"] == {"I8": "y"}
    assert store.question(game_id, q.qid).answer == "Y"
    assert store.state(game_id)["board"][7][8] == "y"
    with pytest.raises(StoreError) as err:
        store.add_question(game_id, "blank_letter", squares=["A1"], placement={"A1": "E"})
    assert err.value.code == "bad_question"


def test_wait_for_change(store):
    game_id = store.create_game(["Ann", "Bob"], pin=PIN)
    seen = store.version(game_id)
    started = time.monotonic()
    assert store.wait_for_change(game_id, seen, timeout=0.2) == seen
    assert time.monotonic() - started >= 0.19
    threading.Timer(0.1, lambda: store.apply(game_id, {"op": "pass"})).start()
    assert store.wait_for_change(game_id, seen, timeout=5) == seen + 1


def test_a_failed_commit_leaves_the_game_as_it_was(store, monkeypatch):
    game_id = store.create_game(["Ann", "Bob"], pin=PIN)
    store.apply(game_id, {"op": "play", "position": "8E", "word": "HORN"})
    before = store.state(game_id)
    real_execute = store._db.execute

    disk_error = store._db.Error("disk I/O error")

    def failing(sql, *args):
        if sql.startswith("INSERT INTO ops"):
            raise disk_error
        return real_execute(sql, *args)

    monkeypatch.setattr(store, "_db", _Proxy(store._db, failing))
    with pytest.raises(store._db.Error):
        store.apply(game_id, {"op": "play", "position": "G6", "word": "FA.M"})
    monkeypatch.undo()
    after = store.state(game_id)
    for key in ("players", "board", "log", "turn"):
        assert after[key] == before[key], key
    assert len(store.ops(game_id)) == 1


class _Proxy:
    """A database (webui.database.Database) whose ``execute`` is replaced."""

    def __init__(self, db, execute) -> None:
        self._db = db
        self.execute = execute

    def __getattr__(self, name):
        return getattr(self._db, name)


def test_a_log_that_no_longer_replays_is_kept_and_reported(database):
    store = GameStore(database)
    game_id = store.create_game(["Ann", "Bob"], pin=PIN)
    store.apply(game_id, {"op": "play", "position": "8E", "word": "HORN"})
    store.apply(game_id, {"op": "pass"})
    store.close()
    # A stored action the rules engine refuses (as if an older version had accepted it).
    raw_execute(database, "UPDATE ops SET op = ? WHERE seq = 2",
                (json.dumps({"op": "play", "position": "1A", "word": "XI"}),))
    store = GameStore(database)
    state = store.state(game_id)
    assert state["damaged"].startswith("stored action 2 (play 1A XI) no longer replays")
    assert state["players"][0]["score"] == 14  # what replayed is shown
    with pytest.raises(StoreError) as err:
        store.apply(game_id, {"op": "pass"})
    assert err.value.code == "damaged" and err.value.status == 409
    assert len(store.ops(game_id)) == 2  # nothing was dropped
    store.close()


def test_pushed_frames_between_threads():
    frames = PushedFrames(capacity=8)
    producers = 4
    per_producer = 200
    received: list[bytes] = []

    def produce(n: int) -> None:
        for i in range(per_producer):
            frames.push(b"\xff\xd8" + f"{n}-{i}".encode())

    def consume() -> None:
        while True:
            frame = frames.get(timeout=0.5)
            if frame is None:
                return
            received.append(frame)

    consumer = threading.Thread(target=consume)
    consumer.start()
    threads = [threading.Thread(target=produce, args=(n,)) for n in range(producers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    consumer.join()
    assert frames.pushed == producers * per_producer
    assert len(received) + frames.dropped + len(frames) == frames.pushed
    assert len(set(received)) == len(received)
    # Each producer's frames come out in the order it pushed them.
    for n in range(producers):
        mine = [int(f[2:].decode().split("-")[1]) for f in received
                if f[2:].decode().startswith(f"{n}-")]
        assert mine == sorted(mine)
    with pytest.raises(FrameError):
        frames.push(b"not a jpeg")
