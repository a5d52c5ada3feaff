"""A table's laptop takes in what others changed in its game on the club server (the director's
corrections, a pass, an undo, a move entered by hand), in the server's order, before its own
operations still waiting; nothing lost, nothing twice, the two games the same.

- the store: :meth:`GameStore.rebase` and ``after_seq`` (a change refused when the game moved
  on since the sender looked);
- the table's client in-process against ``tilecam serve --workers 2`` on PostgreSQL, with a
  cut network between them (as ``test_table_client.py``);
- a crash between taking the server's operations in and noting it in the outbox.
"""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")

from tests.test_table_client import (  # noqa: E402
    DIRECTOR_PIN,
    TABLE_PIN,
    TcpProxy,
    call,
    demo_ops,
    new_event,
    wait_until,
)
from tilecam.table import ClubServer, Outbox, TableUplink, join_table  # noqa: E402
from webui import STORE_KEY, create_app  # noqa: E402
from webui.store import GameStore, StoreError  # noqa: E402

STRIP = ("seq", "at", "op_id", "client")


def bare(ops: list[dict]) -> list[dict]:
    return [{k: v for k, v in op.items() if k not in STRIP} for op in ops]


def scores(state: dict) -> list[int]:
    return [p["score"] for p in state["players"]]


# ----------------------------------------------------------------- the store


def test_rebase_puts_anothers_operations_before_the_waiting_ones(tmp_path):
    ops, _ = demo_ops(4)
    store = GameStore(tmp_path / "table.sqlite3")
    game = store.create_game(["A", "B"], pin=TABLE_PIN)
    for op in ops[:3]:
        store.apply(game, op)
    version = store.version(game)
    adjust = {"seq": 3, "at": 1.0, "op": "adjust", "player": 0, "points": 5,
              "reason": "director"}
    assert store.rebase(game, keep=2, ops=[adjust]) == []
    log = store.ops(game)
    assert bare(log) == bare([*ops[:2], adjust, ops[2]])
    assert [op.get("op_id") for op in log] == [None, None, "server-3", None]
    assert store.version(game) > version
    before = scores(store.state(game))

    # The server's move on the squares of the table's waiting one: the waiting one is dropped.
    same_move = {"seq": 4, "at": 2.0, **ops[2]}
    dropped = store.rebase(game, keep=3, ops=[same_move])
    assert [(d["seq"], d["op"]) for d in dropped] == [(4, "place")]
    assert "reason" in dropped[0]
    assert bare(store.ops(game)) == bare([*ops[:2], adjust, ops[2]])
    assert scores(store.state(game)) == before

    # Dropped on request (the server refused it); the ones after it stay.
    store.apply(game, ops[3])
    store.apply(game, {"op": "pass"})
    assert [d["seq"] for d in store.rebase(game, keep=4, ops=[], drop=[5])] == [5]
    assert bare(store.ops(game))[-1] == {"op": "pass"}

    # One of the server's that does not apply here: nothing changes at all.
    log = store.ops(game)
    with pytest.raises(StoreError) as refused:
        store.rebase(game, keep=4, ops=[{"seq": 9, "at": 3.0, **ops[0]}])
    assert refused.value.code == "bad_rebase"
    assert store.ops(game) == log
    store.close()
    # The rebased log is what a restart replays.
    again = GameStore(tmp_path / "table.sqlite3")
    assert bare(again.ops(game)) == bare(log) and scores(again.state(game)) == before
    again.close()


def test_a_change_made_on_a_game_that_moved_on_is_refused(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "server.sqlite3"), "TESTING": True})
    client = app.test_client()
    headers = {"X-Game-Pin": TABLE_PIN}
    game = client.post("/api/games", json={"players": ["A", "B"], "pin": TABLE_PIN}).json["id"]
    first = client.post(f"/api/games/{game}/pass", headers=headers,
                        json={"op_id": "t-1", "after_seq": 0})
    assert first.status_code == 200 and first.json["seq"] == 1
    client.post(f"/api/games/{game}/pass", headers=headers, json={})  # someone else's
    behind = client.post(f"/api/games/{game}/pass", headers=headers,
                         json={"op_id": "t-2", "after_seq": 1})
    assert behind.status_code == 409 and behind.json["error"] == "behind"
    # An operation stored already is answered as such, however old the number it names.
    again = client.post(f"/api/games/{game}/pass", headers=headers,
                        json={"op_id": "t-1", "after_seq": 0})
    assert again.json["already"] is True and again.json["seq"] == 1
    asked = client.post(f"/api/games/{game}/questions", headers=headers,
                        json={"kind": "no_placement", "op_id": "t-3", "after_seq": 1})
    assert asked.status_code == 409
    assert client.post(f"/api/games/{game}/questions", headers=headers,
                       json={"kind": "no_placement", "after_seq": 2}).status_code == 201
    assert client.post(f"/api/games/{game}/questions/1/answer", headers=headers,
                       json={"answer": "pass", "after_seq": 2}).status_code == 409
    assert [op["seq"] for op in client.get(f"/api/games/{game}/ops").json["ops"]] == [1, 2, 3]
    app.extensions[STORE_KEY].close()


# ----------------------------------------------------------------- the client, in-process


def test_the_directors_changes_reach_the_table_in_the_servers_order(club_server, tmp_path):
    ops, _ = demo_ops(8)
    event_id, games = new_event(club_server.base)
    server_game = games[0]
    proxy = TcpProxy(("127.0.0.1", int(club_server.base.rsplit(":", 1)[1])))
    local_file = tmp_path / "table.sqlite3"
    store = GameStore(local_file)
    outbox = Outbox(local_file)
    said: list[str] = []
    server = ClubServer(proxy.base, TABLE_PIN, timeout=3)
    record = join_table(store, outbox, server, event_id, "Table 1")
    uplink = TableUplink(store, outbox, server, record, say=said.append)
    uplink.pull_interval = 0.2
    local = record.local_game

    def director(action: str, body: dict) -> dict:
        return call(club_server.base, "POST", f"/api/games/{server_game}/{action}", body,
                    pin=DIRECTOR_PIN)

    def remote_ops() -> list[dict]:
        return call(club_server.base, "GET", f"/api/games/{server_game}/ops")["ops"]

    def same_games() -> bool:
        remote = call(club_server.base, "GET", f"/api/games/{server_game}/state")
        mine = store.state(local)
        return (bare(store.ops(local)) == bare(remote_ops())
                and mine["board"] == remote["board"] and scores(mine) == scores(remote))

    uplink.start()
    try:
        for op in ops[:3]:
            store.apply(local, op)
        assert uplink.drained(20)

        # While the table waits, the director takes back its last move and gives a player
        # 5 points: both reach the laptop, which the pipeline's waiting (as live.py does)
        # learns of at once.
        woke = threading.Event()
        seen = store.version(local)
        threading.Thread(target=lambda: woke.set() if store.wait_for_change(
            local, seen, 20) != seen else None, daemon=True).start()
        director("undo", {})
        director("adjust", {"player": 0, "points": 5, "reason": "the director's ruling"})
        wait_until(lambda: uplink.status.taken_in == 2, 20, "the server's changes taken in")
        assert woke.wait(5)
        assert same_games()
        assert any("taken from the club server" in line and "undo" in line for line in said)

        # The table, cut off, plays on (the move taken back laid again, and one more) while
        # the director corrects a score: the correction lands first on the server, so the
        # table's waiting events go after it there and here.
        proxy.cut()
        for op in ops[2:4]:
            store.apply(local, op)
        director("adjust", {"player": 1, "points": -3, "reason": "late"})
        proxy.restore()
        wait_until(lambda: uplink.waiting() == 0 and uplink.status.taken_in == 3, 30,
                   "the table's waiting events sent after the server's change")
        assert same_games()
        remote = remote_ops()
        assert [op.get("op_id") is None for op in remote[-3:]] == [True, False, False]

        # The director enters the table's next move by hand while the table is cut off, and
        # the table's camera sees it too: the table's copy is dropped, the next one stays.
        proxy.cut()
        store.apply(local, ops[4])
        store.apply(local, ops[5])
        director("placements", ops[4])
        proxy.restore()
        wait_until(lambda: uplink.waiting() == 0 and uplink.status.taken_in == 4, 30,
                   "the hand-made move taken in")
        wait_until(same_games, 10, "the same game on both")
        assert uplink.status.refused == 1
        assert any("no longer applies" in line for line in said)
        ids = [op.get("op_id") for op in remote_ops() if op.get("op_id")]
        assert len(ids) == len(set(ids))
        assert outbox.refused(local)[-1]["status"] == 0
    finally:
        uplink.stop()
        proxy.cut()
    outbox.close()
    store.close()


def test_a_crash_after_taking_the_servers_changes_in_takes_nothing_twice(tmp_path):
    from werkzeug.serving import make_server

    app = create_app({"DATABASE": str(tmp_path / "server.sqlite3")})
    http = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{http.server_port}"
    try:
        event_id, games = new_event(base, tables=1)
        local_file = tmp_path / "table.sqlite3"
        store, outbox = GameStore(local_file), Outbox(local_file)
        server = ClubServer(base, TABLE_PIN, timeout=3)
        record = join_table(store, outbox, server, event_id, "1")
        call(base, "POST", f"/api/games/{games[0]}/pass", {}, pin=DIRECTOR_PIN)
        # The run dies between the local game taking the pass in and the outbox noting it.
        news = call(base, "GET", f"/api/games/{games[0]}/ops?after=0")["ops"]
        store.rebase(record.local_game, keep=0, ops=news)
        assert outbox.position(record.local_game) == (0, 0)
        store.apply(record.local_game, {"op": "pass"})  # and the table played on
        uplink = TableUplink(store, outbox, server, record)  # the run started again
        assert outbox.position(record.local_game) == (1, 1)
        uplink.pull_interval = 0.2
        uplink.start()
        try:
            assert uplink.drained(20)
            wait_until(lambda: uplink.status.online, 10, "online")
        finally:
            uplink.stop()
        remote = call(base, "GET", f"/api/games/{games[0]}/ops")["ops"]
        assert bare(remote) == bare(store.ops(record.local_game)) == [{"op": "pass"}] * 2
        assert uplink.status.taken_in == 0
        outbox.close()
        store.close()
    finally:
        http.shutdown()
        app.extensions[STORE_KEY].close()
