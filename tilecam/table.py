"""A table of a club event: the camera pipeline runs where the board is, the club's server keeps
the game.

``tilecam run --server URL --event ID --table NAME --pin PIN`` plays the table's game in a
local store (a SQLite file next to the run), exactly as ``tilecam run`` does at home, and
:class:`TableUplink` sends every operation stored there to the table's game on the club server,
in order, through the server's JSON API (the same calls the pages make).

Nothing acknowledged is lost and nothing arrives twice:

- the local store commits an operation before it is acknowledged (SQLite, fsynced), and the
  uplink keeps, in the same file, how many of them the server has confirmed (:class:`Outbox`).
  Whatever the server has not confirmed waits there, through a lost network, a server
  restarting, or the laptop itself crashing, and is sent when the server answers again;
- each operation carries an id (``<local game>-<number>``) that the server stores with it,
  unique per game: an operation sent again because its reply was lost is answered "already
  have it" and not applied twice.

Why the local store's log rather than the pipeline's calls: the players answer questions and
correct letters on the run's own pages too, and all of it is in that log, in the order it was
applied, which is the order the server must apply it in.

The server's game is the table's, and the server's order of operations is the game's order.
The local game starts as a copy of it (its operations replayed); from then on the local game
stays the server's game plus the table's operations the server does not have yet:

- each operation is sent with the number of the server's last operation the local game holds
  (``after_seq``), and the server stores it only if nothing else came in between (else a 409
  ``behind``).  So the table's operations never land on the server in another order than here;
- what others change on the server meanwhile (the director corrects a past move, enters a
  challenge, a pass, an undo, answers the table's question) is fetched (``GET .../ops``, when
  the table has nothing to send, every :data:`PULL_INTERVAL` seconds, and at once when the
  server answers ``behind``) and taken into the local game in the server's order, before the
  table's operations still waiting, which are then applied again on top
  (:meth:`webui.store.GameStore.rebase`); the camera pipeline goes on from the game so changed,
  as from a correction on the table's own pages;
- an operation of the table that the server refuses is dropped from the local game as well
  (kept in the outbox with why, and said); so is one waiting that no longer applies on top of
  the server's changes.

Copies of the server's operations are stored with the operation id ``server-<its number>``:
after a crash between taking them in and noting it in the outbox, the outbox is set right from
the local log itself when the run starts again, so nothing is taken in twice.
"""

from __future__ import annotations

import http.client
import json
import logging
import sqlite3
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webui.api import ACTIONS
from webui.store import GameStore

log = logging.getLogger(__name__)

#: The local file of a table's run when ``--db`` is not given: in the folder it is started in.
DEFAULT_TABLE_DATABASE = "tilecam-table.sqlite3"
#: Seconds a request to the server may take before it counts as lost (and is sent again).
REQUEST_TIMEOUT = 10.0
#: Seconds between attempts while the server cannot be reached: the first, and the longest.
RETRY_FIRST = 0.5
RETRY_LONGEST = 5.0
#: HTTP statuses after which the same request may work later: the server's database away
#: (503), a proxy without a server behind it (502, 504), too many wrong PINs for now (429).
TRY_AGAIN_STATUSES = {429, 502, 503, 504}
#: Refusals that are not about the operation but about the table (its PIN changed, its game
#: is gone): nothing is skipped, the operations wait until someone sets it right.
BLOCKING_STATUSES = {401, 403, 404}

#: Seconds between two looks for changes others made to the table's game on the server, while
#: the table has nothing to send (a look is one small request).
PULL_INTERVAL = 2.0

#: Stored operation -> URL action, the inverse of the API's table.
ACTION_OF_OP = {op: action for action, op in ACTIONS.items()}
#: Operation ids of the local copies of the server's operations: ``server-<its number>``.
SERVER_COPY_PREFIX = "server-"

OUTBOX_SCHEMA = """
CREATE TABLE IF NOT EXISTS table_uplinks (
    local_game TEXT PRIMARY KEY,
    server TEXT NOT NULL,
    event_id TEXT NOT NULL,
    table_name TEXT NOT NULL,
    server_game TEXT NOT NULL,
    sent INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS table_refused (
    local_game TEXT NOT NULL,
    seq INTEGER NOT NULL,
    op_id TEXT NOT NULL,
    status INTEGER NOT NULL,
    message TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (local_game, seq)
);
CREATE TABLE IF NOT EXISTS table_dropped (
    local_game TEXT NOT NULL,
    seq INTEGER NOT NULL,
    op_id TEXT NOT NULL,
    status INTEGER NOT NULL,
    message TEXT NOT NULL,
    at REAL NOT NULL,
    op TEXT NOT NULL
);
"""


class TableError(RuntimeError):
    """The table cannot be joined (says why and what to do)."""


class ServerUnreachable(Exception):
    """No answer from the server, or one that says to try again later."""


@dataclass
class ServerRefusal(Exception):
    """The server answered with a refusal (a 4xx status other than try-again)."""

    status: int
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.message} ({self.status} {self.code})"


# ------------------------------------------------------------------------------ the server


class ClubServer:
    """The club server's JSON API, as a table uses it (with the table's PIN)."""

    def __init__(self, base: str, pin: str, timeout: float = REQUEST_TIMEOUT) -> None:
        self.base = base.rstrip("/")
        self.pin = pin
        self.timeout = timeout

    def call(self, method: str, path: str, body: Mapping[str, Any] | None = None
             ) -> dict[str, Any]:
        """The JSON answer; :class:`ServerUnreachable` or :class:`ServerRefusal`."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path, data=data, method=method,
            headers={"Content-Type": "application/json", "X-Game-Pin": self.pin})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.load(response)
        except urllib.error.HTTPError as exc:
            try:
                answer = json.load(exc)
            except (ValueError, OSError):
                answer = {}
            if exc.code in TRY_AGAIN_STATUSES or exc.code >= 500:
                raise ServerUnreachable(f"the server answered {exc.code}: "
                                        f"{answer.get('message') or exc.reason}") from None
            raise ServerRefusal(exc.code, str(answer.get("error") or "refused"),
                                str(answer.get("message") or exc.reason)) from None
        except (OSError, http.client.HTTPException, ValueError) as exc:
            # Refused or reset connections, time-outs, a reply cut short: the request may or
            # may not have taken effect, which the operation id makes harmless to find out.
            reason = getattr(exc, "reason", None) or exc
            raise ServerUnreachable(str(reason) or type(exc).__name__) from None


def find_table(server: ClubServer, event_id: str, table: str) -> tuple[str, str]:
    """The game id and the name of ``table`` (its name, as on the director's page, or its
    number) in event ``event_id``."""
    quoted = urllib.parse.quote(event_id, safe="")
    try:
        event = server.call("GET", f"/api/events/{quoted}")
    except ServerRefusal as exc:
        raise TableError(f"the server has no event {event_id!r}: {exc.message}") from None
    wanted = " ".join(table.split()).casefold()
    for entry in event.get("tables", []):
        if wanted in (str(entry["number"]), entry["name"].casefold()):
            return entry["game_id"], entry["name"]
    names = ", ".join(repr(t["name"]) for t in event.get("tables", []))
    raise TableError(f"event {event_id} has no table {table!r}; its tables: {names}")


def request_for(op: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The API call (path under the game, JSON body) that stores ``op`` (a stored operation)
    on another server as it is stored here."""
    kind = op["op"]
    fields = {k: v for k, v in op.items() if k not in ("op", "seq", "at", "op_id", "client")}
    if kind == "question":
        return "questions", {**op.get("data", {}), "kind": op["kind"],
                             "options": op.get("options", [])}
    if kind == "answer":
        return f"questions/{int(op['qid'])}/answer", {"answer": op["answer"]}
    if kind not in ACTION_OF_OP:
        raise ValueError(f"no API call stores an operation {kind!r}")
    return ACTION_OF_OP[kind], fields


def describe_server_op(op: Mapping[str, Any]) -> str:
    """A change made on the server, in a few words for the console.

    >>> describe_server_op({"op": "edit", "change": "replace", "number": 3})
    'edit (replace event 3)'
    >>> describe_server_op({"op": "pass"})
    'pass'
    """
    if op.get("op") == "edit":
        return f"edit ({op.get('change')} event {op.get('number')})"
    return str(op.get("op"))


# ------------------------------------------------------------------------------ the outbox


@dataclass(frozen=True)
class TableLinkRecord:
    """Which server game a local game is, and how many of its operations the server has."""

    local_game: str
    server: str
    event_id: str
    table_name: str
    server_game: str
    sent: int
    #: The number, on the server, of the operation that local operation ``sent`` is there.
    server_seq: int = 0


class Outbox:
    """What the server has confirmed, kept in the run's SQLite file beside its games.

    The operations themselves are the local store's (committed before anything is
    acknowledged); the outbox holds the number of the last one the server confirmed, and the
    ones it refused.  Everything after that number waits to be sent."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        # FULL: a confirmation recorded survives a crash (were it lost, the operation would
        # be sent again and answered "already have it": harmless, but not needed).
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.executescript(OUTBOX_SCHEMA)
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(table_uplinks)")}
        if "server_seq" not in columns:
            # A file of a run from before the server's changes were taken in: its operations
            # and the server's were the same, one for one, unless the director changed it.
            self._conn.execute("ALTER TABLE table_uplinks ADD COLUMN server_seq INTEGER")
            self._conn.execute("UPDATE table_uplinks SET server_seq = sent")

    def find(self, server: str, event_id: str, table_name: str) -> TableLinkRecord | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT local_game, server, event_id, table_name, server_game, sent,"
                " server_seq FROM table_uplinks WHERE server = ? AND event_id = ?"
                " AND table_name = ?",
                (server, event_id, table_name)).fetchone()
        return None if row is None else TableLinkRecord(*row)

    def record(self, link: TableLinkRecord) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO table_uplinks (local_game, server, event_id, table_name,"
                " server_game, sent, server_seq) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (link.local_game, link.server, link.event_id, link.table_name,
                 link.server_game, link.sent, link.server_seq))

    def sent(self, local_game: str) -> int:
        with self._lock:
            row = self._conn.execute("SELECT sent FROM table_uplinks WHERE local_game = ?",
                                     (local_game,)).fetchone()
        return 0 if row is None else int(row[0])

    def position(self, local_game: str) -> tuple[int, int]:
        """``(sent, server_seq)``: the local operations up to ``sent`` are the server's up to
        ``server_seq``; the local ones after it wait to be sent."""
        with self._lock:
            row = self._conn.execute(
                "SELECT sent, server_seq FROM table_uplinks WHERE local_game = ?",
                (local_game,)).fetchone()
        return (0, 0) if row is None else (int(row[0]), int(row[1]))

    def confirm(self, local_game: str, seq: int, server_seq: int) -> None:
        """The server has every operation up to ``seq``, the last as its ``server_seq``."""
        with self._lock:
            self._conn.execute("UPDATE table_uplinks SET sent = ?, server_seq = ?"
                               " WHERE local_game = ?", (seq, server_seq, local_game))

    def refuse(self, local_game: str, op: Mapping[str, Any], op_id: str, status: int,
               message: str) -> None:
        """An operation of the table's that the server refused, or that no longer applied
        after the server's changes (status 0): kept with why, as it was."""
        with self._lock:
            self._conn.execute(
                "INSERT INTO table_dropped (local_game, seq, op_id, status, message, at, op)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (local_game, int(op["seq"]), op_id, status, message, time.time(),
                 json.dumps({k: v for k, v in op.items() if k not in ("seq", "reason")})))

    def refused(self, local_game: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT seq, op_id, status, message FROM table_refused WHERE local_game = ?"
                " UNION ALL SELECT seq, op_id, status, message FROM table_dropped"
                " WHERE local_game = ?", (local_game, local_game)).fetchall()
        return [{"seq": s, "op_id": i, "status": st, "message": m} for s, i, st, m in rows]

    def recover(self, store: GameStore, local_game: str) -> None:
        """After a crash between taking the server's operations into the local game and
        noting it here: the last local copy of one (its operation id says its number there)
        marks how far the two agree."""
        sent, _ = self.position(local_game)
        copies = [op for op in store.ops(local_game, sent)
                  if str(op.get("op_id", "")).startswith(SERVER_COPY_PREFIX)]
        if copies:
            last = copies[-1]
            self.confirm(local_game, int(last["seq"]),
                         int(last["op_id"][len(SERVER_COPY_PREFIX):]))

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def join_table(store: GameStore, outbox: Outbox, server: ClubServer, event_id: str,
               table: str, *, say: Callable[[str], None] = lambda line: None
               ) -> TableLinkRecord:
    """The local game of ``table``: the one this file already plays for it (found without the
    server, so a run started again during an outage goes on), or a new copy of the server's
    game (needs the server once)."""
    for name in {table, " ".join(table.split())}:
        known = outbox.find(server.base, event_id, name)
        if known is not None and store.exists(known.local_game):
            return known
    try:
        game_id, name = find_table(server, event_id, table)
        known = outbox.find(server.base, event_id, name)
        if known is not None and store.exists(known.local_game):
            return known
        server.call("POST", f"/api/games/{game_id}/pin", {})
        state = server.call("GET", f"/api/games/{game_id}/state")
        stored = server.call("GET", f"/api/games/{game_id}/ops")["ops"]
    except ServerUnreachable as exc:
        raise TableError(f"the club server {server.base} cannot be reached ({exc}); the first "
                         "start of a table needs it, to find the table's game") from None
    except ServerRefusal as exc:
        if exc.code in ("wrong_pin", "pin_required"):
            raise TableError(f"that is not the PIN of {name} (the table's PIN, as the "
                             "director set up the event)") from None
        raise TableError(f"the server refused: {exc}") from None
    clock = state.get("clock") or {}
    minutes = int(clock["limit"] // 60) if clock.get("enabled") and clock.get("limit") else None
    if state.get("lexicon") not in (None, "ENABLE (bundled)"):
        say(f"tilecam: the server checks words with {state['lexicon']}; this table's pipeline "
            "uses the bundled word list to work out blanks")
    ops = [{k: v for k, v in op.items() if k not in ("seq", "at", "op_id")} for op in stored]
    local_game = store.create_game(
        [p["name"] for p in state["players"]], pin=server.pin,
        tileset=state["tileset"]["code"], rules=state.get("rules"), clock_minutes=minutes,
        title=state.get("title") or name, ops=ops)
    record = TableLinkRecord(local_game, server.base, event_id, name, game_id, len(ops),
                             int(stored[-1]["seq"]) if stored else 0)
    outbox.record(record)
    return record


# ------------------------------------------------------------------------------ the uplink


@dataclass
class UplinkStatus:
    """What the run's pages and console say about the connection to the club server."""

    online: bool | None = None  # None: nothing tried yet
    waiting: int = 0
    sent: int = 0
    refused: int = 0
    #: operations made by others on the server and taken into the local game
    taken_in: int = 0
    last_error: str = ""
    since: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        return {"online": self.online, "waiting": self.waiting, "sent": self.sent,
                "refused": self.refused, "taken_in": self.taken_in,
                "last_error": self.last_error, "since": self.since}


class TableUplink:
    """Sends the local game's operations to its game on the club server, in order, from a
    thread of its own (see the module notes); :meth:`start`, :meth:`stop`."""

    def __init__(self, store: GameStore, outbox: Outbox, server: ClubServer,
                 record: TableLinkRecord, *, say: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.outbox = outbox
        self.server = server
        self.record = record
        self.say = say or (lambda line: None)
        outbox.recover(store, record.local_game)
        self.status = UplinkStatus(sent=outbox.sent(record.local_game),
                                   refused=len(outbox.refused(record.local_game)))
        self.pull_interval = PULL_INTERVAL
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._idle = threading.Condition()

    @property
    def local_game(self) -> str:
        return self.record.local_game

    def op_id(self, seq: int) -> str:
        return f"{self.local_game}-{seq}"

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="tilecam-uplink", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def waiting(self) -> int:
        """Operations stored here that the server has not confirmed yet."""
        return len(self.store.ops(self.local_game, self.outbox.sent(self.local_game)))

    def drained(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for every operation to be confirmed."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self.waiting():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._idle.wait(min(remaining, 0.5))
        return True

    def notice(self) -> str | None:
        """One line for the run's pages while the server has not got everything, else None."""
        if self.status.online is False:
            self.status.waiting = self.waiting()
            return (f"Club server offline: {self.status.waiting} event(s) wait here and are "
                    "sent when it is back")
        return None

    # -------------------------------------------------------------- the sending thread

    def _run(self) -> None:
        delay = RETRY_FIRST
        version = -1
        next_pull = 0.0
        while not self._stop.is_set():
            try:
                sent, _ = self.outbox.position(self.local_game)
                pending = self.store.ops(self.local_game, sent)
                self.status.waiting = len(pending)
                if not pending:
                    with self._idle:
                        self._idle.notify_all()
                    if time.monotonic() >= next_pull:
                        self.take_server_changes()
                        self._online()
                        next_pull = time.monotonic() + self.pull_interval
                    wait = max(0.0, min(1.0, next_pull - time.monotonic()))
                    version = self.store.wait_for_change(self.local_game, version, wait)
                    continue
                self._send_pending(pending)
                self._online()
                delay = RETRY_FIRST
            except ServerUnreachable as exc:
                self._offline(str(exc))
                self._stop.wait(delay)
                delay = min(delay * 2, RETRY_LONGEST)
            except ServerRefusal as exc:
                # About the table, not the operation: nothing is skipped; try again slowly.
                self._offline(f"the server refuses this table's changes: {exc}")
                self._stop.wait(RETRY_LONGEST)
            except Exception:  # noqa: BLE001 - the game at the table must go on regardless
                log.exception("sending to the club server failed")
                self._stop.wait(RETRY_LONGEST)

    def _send_pending(self, pending: list[dict[str, Any]]) -> None:
        """The waiting operations, in order, each confirmed in the outbox as the server
        answers; stops at one it refuses, after taking in the server's game (see the module
        notes)."""
        _, server_seq = self.outbox.position(self.local_game)
        for op in pending:
            if self._stop.is_set():
                return
            seq = int(op["seq"])
            op_id = self.op_id(seq)
            path, body = request_for(op)
            try:
                answer = self.server.call(
                    "POST", f"/api/games/{self.record.server_game}/{path}",
                    {**body, "op_id": op_id, "after_seq": server_seq})
            except ServerRefusal as exc:
                if exc.code == "behind":
                    self.take_server_changes()
                    return
                if exc.status in BLOCKING_STATUSES:
                    raise
                self.outbox.refuse(self.local_game, op, op_id, exc.status, exc.message)
                self.status.refused += 1
                self.say(f"tilecam: the club server refused event {seq} ({op['op']}): "
                         f"{exc.message}; the table goes on without it")
                self.take_server_changes(drop=[seq])
                return
            server_seq = int(answer["seq"])
            self.outbox.confirm(self.local_game, seq, server_seq)
            self.status.sent = seq
            self.status.waiting -= 1

    def take_server_changes(self, drop: list[int] | None = None) -> int:
        """Take what others stored on the server since the local game's copy into it, before
        the table's waiting operations (those in ``drop`` left out); how many were taken."""
        sent, server_seq = self.outbox.position(self.local_game)
        game = self.record.server_game
        news = self.server.call("GET", f"/api/games/{game}/ops?after={server_seq}")["ops"]
        own = [op for op in news if str(op.get("op_id", "")).startswith(f"{self.local_game}-")]
        if own:
            # Cannot happen while every operation goes with after_seq; taking it in would
            # make the table's own operation twice in its game.
            raise RuntimeError(f"the server holds operation {own[0]['op_id']} after "
                               f"operation {server_seq}, which this table never sent there")
        if not news and not drop:
            return 0
        dropped = self.store.rebase(self.local_game, keep=sent, ops=news, drop=drop or ())
        self.outbox.confirm(self.local_game, sent + len(news),
                            int(news[-1]["seq"]) if news else server_seq)
        if news:
            self.status.taken_in += len(news)
            kinds = ", ".join(describe_server_op(op) for op in news)
            self.say(f"tilecam: taken from the club server, changed there: {kinds}")
        for op in dropped:
            if op["seq"] in (drop or ()):
                continue
            self.outbox.refuse(self.local_game, op, self.op_id(int(op["seq"])), 0,
                               op["reason"])
            self.status.refused += 1
            self.say(f"tilecam: event {op['seq']} ({op['op']}) of this table no longer "
                     f"applies after the club server's changes ({op['reason']}): dropped")
        return len(news)

    def _online(self) -> None:
        status = self.status
        if status.online is False:
            self.say("tilecam: the club server is back: every waiting event is sent")
        if status.online is not True:
            status.online, status.since, status.last_error = True, time.time(), ""

    def _offline(self, reason: str) -> None:
        status = self.status
        status.last_error = reason
        if status.online is not False:
            status.online, status.since = False, time.time()
            self.say(f"tilecam: the club server cannot be reached ({reason}); events are kept "
                     f"in {self.outbox.path} and sent when it is back")
