"""The database under the game store: SQLite (embedded, the default) or PostgreSQL (a club's
server, where several server processes share the games).

:func:`open_database` takes what ``--db`` was given: a ``postgresql://`` URL opens PostgreSQL,
anything else is a SQLite file (or ``":memory:"``).  Both are used through the same small
interface, so the store's SQL is written once, with ``?`` placeholders and the statements both
databases understand (``INSERT ... ON CONFLICT``):

>>> db = open_database(":memory:")
>>> db.kind, db.shared
('sqlite', False)
>>> db.setup("CREATE TABLE t (k TEXT PRIMARY KEY, at REAL, data BLOB);")
>>> with db.transaction():
...     db.execute("INSERT INTO t (k, at, data) VALUES (?, ?, ?)", ("a", 1.5, b"x")).rowcount
1
>>> db.execute("SELECT k, at, data FROM t").fetchall()
[('a', 1.5, b'x')]

The schema is written for SQLite; :func:`postgres_schema` gives PostgreSQL the same tables with
its names for the types (SQLite's ``REAL`` is 8 bytes, PostgreSQL's only 4):

>>> postgres_schema("CREATE TABLE t (at REAL NOT NULL, image BLOB);")
'CREATE TABLE t (at DOUBLE PRECISION NOT NULL, image BYTEA);'

On PostgreSQL a change is announced to every server process with ``NOTIFY`` (delivered when the
transaction that made it commits), and :class:`ChangeListener` is the thread of one process that
hears them.  No broker of our own: the database that orders the writes also tells of them.

A SQLite file may be written by several processes of one computer too (the server and the
camera pipelines it runs for phones, see ``tilecam.table_cameras``).  SQLite announces nothing,
but it counts: ``PRAGMA data_version`` changes whenever another connection has committed, and
:class:`SQLiteChangeListener` asks it a few times a second (a few microseconds each).
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

log = logging.getLogger(__name__)

#: What a ``--db`` value starts with when it names a PostgreSQL database.
POSTGRES_SCHEMES = ("postgresql://", "postgres://")

#: The channel on which committed operations are announced: ``"<game id> <seq>"``.
CHANGES_CHANNEL = "tilecam_changes"

#: Key of the advisory lock taken while the schema is created, so that several server processes
#: starting together do not race to create the same tables.
SCHEMA_LOCK_KEY = 0x7469_6C65  # "tile"


def is_postgres(target: str | Path) -> bool:
    """Whether ``target`` (a ``--db`` value) names a PostgreSQL database.

    >>> is_postgres("postgresql://club@db/tilecam"), is_postgres("games.sqlite3")
    (True, False)
    """
    return str(target).startswith(POSTGRES_SCHEMES)


def redacted(target: str | Path) -> str:
    """``target`` as it may be printed: a URL's password is replaced by ``***``.

    >>> redacted("postgresql://club:secret@db:5432/tilecam")
    'postgresql://club:***@db:5432/tilecam'
    >>> redacted("games.sqlite3")
    'games.sqlite3'
    """
    text = str(target)
    if not is_postgres(text):
        return text
    parts = urlsplit(text)
    if parts.password is None:
        return text
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def postgres_schema(schema: str) -> str:
    """The SQLite ``schema`` with PostgreSQL's names for the same types."""
    schema = re.sub(r"\bREAL\b", "DOUBLE PRECISION", schema)
    return re.sub(r"\bBLOB\b", "BYTEA", schema)


def open_database(target: str | Path) -> Database:
    """The database ``target`` names (see the module's description)."""
    if is_postgres(target):
        return PostgresDatabase(str(target))
    return SQLiteDatabase(str(target))


def connection_settings(url: str) -> dict[str, str]:
    """The connection parameters of ``url``, with what the store needs added to those the URL
    gives (a URL's own ``options`` and ``application_name`` are kept)."""
    from psycopg.conninfo import conninfo_to_dict

    settings = {key: str(value) for key, value in conninfo_to_dict(url).items()}
    # synchronous_commit=on whatever the server's default: an operation is acknowledged only
    # once its commit is on disk, as SQLite's synchronous=FULL promises.
    settings["options"] = " ".join(filter(None, [settings.get("options"),
                                                 "-c synchronous_commit=on"]))
    settings.setdefault("application_name", "tilecam")
    return settings


class Database:
    """What the store needs of a database.  Every call is made with the store's lock held, so
    one connection per store serves all its threads."""

    #: ``"sqlite"`` or ``"postgresql"``.
    kind = ""
    #: Whether other processes may change the games (then the store reads what they stored).
    shared = False
    #: The base class of the driver's errors.
    Error: type[Exception] = Exception

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement; returns a cursor (``fetchone``, ``fetchall``, iteration)."""
        raise NotImplementedError

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        raise NotImplementedError

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Everything inside is committed together, or rolled back when an exception leaves."""
        raise NotImplementedError
        yield

    def setup(self, schema: str) -> None:
        """Create the tables of ``schema`` (SQLite's dialect) where they are missing."""
        raise NotImplementedError

    def add_missing_column(self, table: str, column: str, declaration: str) -> None:
        """Add a column that an older version of the schema lacked."""
        raise NotImplementedError

    def lock_game(self, game_id: str) -> None:
        """Inside a transaction: keep other processes from storing an operation of this game
        until the transaction ends."""

    def announce(self, game_id: str, seq: int) -> None:
        """Inside a transaction: tell the other processes, once it commits, that operation
        ``seq`` of the game is stored."""

    def listener(self, on_change: weakref.WeakMethod, on_resync: weakref.WeakMethod
                 ) -> ChangeListener | None:
        """A started thread hearing the other processes' announcements (None: there are no
        other processes)."""
        return None

    def close(self) -> None:
        raise NotImplementedError


class SQLiteDatabase(Database):
    """One SQLite file: the embedded default, for a game or a few at home."""

    kind = "sqlite"
    Error = sqlite3.Error

    def __init__(self, path: str) -> None:
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        # A file may be written by other processes (a camera pipeline beside the server); a
        # database in memory is this connection's alone.
        self.shared = path != ":memory:" and not path.startswith("file::memory:")
        # isolation_level=None: transactions are begun explicitly (BEGIN IMMEDIATE), so a
        # write never waits for a lock it could only get by upgrading a read lock.
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        # FULL: each commit is fsynced before it returns, so an acknowledged operation survives
        # a crash or power cut (NORMAL in WAL mode may lose the last commits on power loss).
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute("PRAGMA foreign_keys=ON")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._conn.executemany(sql, rows)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def setup(self, schema: str) -> None:
        self._conn.executescript(schema)

    def add_missing_column(self, table: str, column: str, declaration: str) -> None:
        columns = {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}
        if column not in columns:
            self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")

    def iterdump(self) -> Iterator[str]:
        return self._conn.iterdump()

    def listener(self, on_change: weakref.WeakMethod, on_resync: weakref.WeakMethod
                 ) -> ChangeListener | None:
        if not self.shared:
            return None
        listener = SQLiteChangeListener(self.path, on_change, on_resync)
        listener.start()
        return listener

    def close(self) -> None:
        self._conn.close()


class PostgresDatabase(Database):
    """A PostgreSQL database, shared by every server process of a club's event.

    A lost connection (the server restarted, or ended it) is made again: at once where nothing
    was sent yet that might have taken effect (the start of a transaction, a statement outside
    one: those are all reads or idempotent writes), else on the next call.  A transaction that
    met the loss fails, as a request during an outage must; it is never sent twice.
    """

    kind = "postgresql"
    shared = True

    def __init__(self, url: str) -> None:
        # psycopg 3 is imported here, not at the top: SQLite users never need it loaded.
        import psycopg

        self._psycopg = psycopg
        self.Error = psycopg.Error
        self.url = url
        self._in_transaction = False
        self._conn = self._connect()

    def _connect(self) -> Any:
        # autocommit: transactions are begun explicitly, as on SQLite.
        return self._psycopg.connect(**connection_settings(self.url), autocommit=True)

    def _connection(self) -> Any:
        if self._conn.closed:
            self._conn = self._connect()
        return self._conn

    def _send(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Execute, connecting again once if the connection turns out to be lost outside a
        transaction."""
        conn = self._connection()
        try:
            return conn.execute(sql, tuple(params))
        except self._psycopg.OperationalError:
            if self._in_transaction or not conn.closed:
                raise
            return self._connection().execute(sql, tuple(params))

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._send(sql.replace("?", "%s"), params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._connection().cursor() as cursor:
            cursor.executemany(sql.replace("?", "%s"), [tuple(r) for r in rows])

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self._send("BEGIN")
        self._in_transaction = True
        try:
            yield
        except BaseException:
            self._in_transaction = False
            if not self._conn.closed:
                try:
                    self._conn.execute("ROLLBACK")
                except self._psycopg.Error:
                    pass  # the connection broke: the server rolls back by itself
            raise
        self._in_transaction = False
        self._conn.execute("COMMIT")

    def setup(self, schema: str) -> None:
        statements = [s.strip() for s in postgres_schema(schema).split(";") if s.strip()]
        with self.transaction():
            self.execute("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK_KEY,))
            for statement in statements:
                self.execute(statement)

    def add_missing_column(self, table: str, column: str, declaration: str) -> None:
        # Looked up first: ALTER TABLE locks the table even when it has nothing to do, and a
        # worker restarted mid-evening would hold up the others' requests.
        found = self.execute(
            "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
            " AND table_name = ? AND column_name = ?", (table, column)).fetchone()
        if found is None:
            self.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {declaration}")

    def lock_game(self, game_id: str) -> None:
        self.execute("SELECT id FROM games WHERE id = ? FOR UPDATE", (game_id,))

    def announce(self, game_id: str, seq: int) -> None:
        self.execute("SELECT pg_notify(?, ?)", (CHANGES_CHANNEL, f"{game_id} {seq}"))

    def listener(self, on_change: weakref.WeakMethod, on_resync: weakref.WeakMethod
                 ) -> ChangeListener:
        listener = ChangeListener(self.url, on_change, on_resync)
        listener.start()
        return listener

    def close(self) -> None:
        self._conn.close()


class ChangeListener:
    """A thread that LISTENs on :data:`CHANGES_CHANNEL` with a connection of its own.

    ``on_change(game_id, seq)`` is called for every announcement, ``on_resync()`` after every
    (re)connection: announcements made while the connection was away are lost, so whoever
    listens must then look at the database itself.  Both are weak references to the store's
    methods: a store that is no longer used ends its listener (tests make many stores).
    The thread also ends when the database no longer exists.
    """

    #: Seconds between checks whether the listener should stop.
    POLL = 1.0
    #: Longest wait between attempts to connect again.
    MAX_RETRY = 10.0

    def __init__(self, url: str, on_change: weakref.WeakMethod,
                 on_resync: weakref.WeakMethod) -> None:
        self.url = url
        self._on_change = on_change
        self._on_resync = on_resync
        self._stop = threading.Event()
        #: Set while the connection is listening (tests wait for it).
        self.listening = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tilecam-listen", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Ask the thread to end (it does within :attr:`POLL` seconds, closing its connection;
        not waited for, so a request that closes a store is not held up)."""
        self._stop.set()

    def _call(self, method: weakref.WeakMethod, *args: Any) -> bool:
        function = method()
        if function is None:
            return False
        function(*args)
        return True

    def _run(self) -> None:
        import psycopg

        delay = 0.25
        while not self._stop.is_set():
            try:
                with psycopg.connect(**connection_settings(self.url), autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANGES_CHANNEL}")
                    self.listening.set()
                    if not self._call(self._on_resync):
                        return
                    delay = 0.25
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=self.POLL):
                            game_id, _, seq = note.payload.partition(" ")
                            if not self._call(self._on_change, game_id, int(seq or 0)):
                                return
                        if self._on_change() is None:
                            return
            except psycopg.Error as exc:
                self.listening.clear()
                if self._stop.is_set() or "does not exist" in str(exc):
                    return  # closed, or the database was dropped
                log.warning("tilecam: live updates from other processes paused: %s", exc)
                self._stop.wait(delay)
                delay = min(delay * 2, self.MAX_RETRY)
            except Exception:  # a failing callback must not end the live updates for good
                self.listening.clear()
                log.exception("tilecam: live updates from other processes failed; restarting")
                self._stop.wait(delay)
                delay = min(delay * 2, self.MAX_RETRY)
        self.listening.clear()


class SQLiteChangeListener(ChangeListener):
    """A thread that notices commits of other processes to a SQLite file: SQLite announces
    nothing, but ``PRAGMA data_version`` (asked on a connection of the thread's own) changes
    whenever another connection has committed.  Every change calls ``on_resync()``: the store
    then reads what was stored since (its own commits count too, and find nothing new)."""

    #: Seconds between two looks at the file: the longest a change made by another process
    #: waits before this one's screens hear of it.
    POLL = 0.1

    def _run(self) -> None:
        delay = 0.25
        while not self._stop.is_set():
            if not Path(self.url).exists():
                return  # the file was removed: no game is left to hear of
            try:
                conn = sqlite3.connect(self.url, check_same_thread=False)
            except sqlite3.Error:
                self._stop.wait(delay)
                delay = min(delay * 2, self.MAX_RETRY)
                continue
            try:
                seen = conn.execute("PRAGMA data_version").fetchone()[0]
                self.listening.set()
                if not self._call(self._on_resync):
                    return
                delay = 0.25
                while not self._stop.wait(self.POLL):
                    version = conn.execute("PRAGMA data_version").fetchone()[0]
                    if version != seen:
                        seen = version
                        if not self._call(self._on_resync):
                            return
                    elif self._on_resync() is None:
                        return
            except sqlite3.Error as exc:
                log.warning("tilecam: live updates from other processes paused: %s", exc)
                self._stop.wait(delay)
                delay = min(delay * 2, self.MAX_RETRY)
            except Exception:  # a failing callback must not end the live updates for good
                log.exception("tilecam: live updates from other processes failed; restarting")
                self._stop.wait(delay)
                delay = min(delay * 2, self.MAX_RETRY)
            finally:
                self.listening.clear()
                conn.close()


__all__ = [
    "CHANGES_CHANNEL",
    "ChangeListener",
    "Database",
    "PostgresDatabase",
    "SQLiteChangeListener",
    "SQLiteDatabase",
    "is_postgres",
    "open_database",
    "postgres_schema",
    "redacted",
]
