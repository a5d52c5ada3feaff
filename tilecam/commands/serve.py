"""``tilecam serve``: the scoreboard and game controls as a web server on the local network.

By default it listens on every interface (``0.0.0.0``), port 5000: the point is a phone or tablet
beside the board, which reaches the server over the local network, so listening on 127.0.0.1
only would leave the scoreboard unreachable from the very screens it is for.  Anyone on the
network may watch; every change to a game needs the game's PIN.  ``--host 127.0.0.1`` keeps it
to this computer.

The server is Werkzeug's threaded server (already installed with Flask): each open scoreboard
holds a live-update stream, and a thread per connection keeps any number of them open without
blocking requests.  Pooled servers such as waitress serve a fixed number of requests at once and
would be filled by open streams.

For a club (many tables, many screens), ``--workers N`` runs gunicorn instead: N worker
processes, each with ``--threads`` threads (gunicorn's ``gthread`` workers), on a PostgreSQL
database (``--db postgresql://...``) that they share and through which each hears the others'
changes.  Threads rather than gevent's green threads: a stream waits on the store's
``threading.Condition`` and the store's listener is a thread blocked in psycopg, both of which
work as they are in a thread, while gevent would have to patch threading and the database
driver underneath them.  A thread per open stream costs little memory (its stack is mostly
untouched), and gthread's threads are not counted against the worker's time-out: a stream may
stay open for hours.  gunicorn's master restarts a worker that dies; a screen whose stream
ended reconnects by itself.

A phone used as a table's camera posts its frames to the server, which runs the table's camera
pipeline in a process of its own (:mod:`tilecam.table_cameras`: a supervisor beside the web
server starts one when a table's frames start arriving).  ``--profile`` is the calibration they
start from, ``--pipelines 0`` turns them off.

A phone's camera can only be used by a page served over HTTPS (or from localhost).  To use one
as the camera, make a self-signed certificate once and pass it::

    openssl req -x509 -newkey rsa:2048 -nodes -days 365 -subj "/CN=tilecam" \\
        -keyout key.pem -out cert.pem
    tilecam serve --cert cert.pem --key key.pem
"""

from __future__ import annotations

import argparse
import logging
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tilecam.table_cameras import SupervisorHandle

HELP = "Serve the live scoreboard and game controls on the local network."

DEFAULT_HOST = "0.0.0.0"
DEFAULT_PORT = 5000
#: Threads per gunicorn worker: each open scoreboard holds one while it is open.
DEFAULT_THREADS = 100
#: Seconds a stopping worker is given to finish; live-update streams never finish by
#: themselves, and the screens reconnect to the workers that remain.
GRACEFUL_SECONDS = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help="address to listen on (default 0.0.0.0: every interface, so phones"
                             " on the network can open the scoreboard; 127.0.0.1: this computer"
                             " only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT})")
    parser.add_argument("--db", metavar="FILE|URL", type=database_argument, default=None,
                        help="SQLite file of the games (default:"
                             " $XDG_DATA_HOME/tilecam/games.sqlite3, else"
                             " ~/.local/share/tilecam/games.sqlite3), or a PostgreSQL database"
                             " as postgresql://USER:PASSWORD@HOST/DATABASE")
    parser.add_argument("--workers", type=int, default=0, metavar="N",
                        help="serve with gunicorn in N worker processes (a club's server;"
                             " more than one needs --db postgresql://...); default: one"
                             " process, Werkzeug's threaded server")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS, metavar="T",
                        help="with --workers: threads per worker, which is how many requests"
                             " and open live-update streams each serves at once (default"
                             f" {DEFAULT_THREADS})")
    parser.add_argument("--cert", metavar="PEM", type=Path,
                        help="TLS certificate: serve HTTPS (needed for a phone's camera)")
    parser.add_argument("--key", metavar="PEM", type=Path, help="TLS private key for --cert")
    from tilecam.table_cameras import DEFAULT_IDLE_SECONDS, DEFAULT_MAX_TABLES

    parser.add_argument("--quiet", action="store_true", help="do not log each request")
    phones = parser.add_argument_group("phones as the cameras of tables")
    phones.add_argument("--profile", metavar="DIR", type=Path,
                        help="calibration profile every table's camera pipeline starts from"
                             " (each table then keeps what it learns of its tiles)")
    phones.add_argument("--quiet-seconds", type=float, default=None, metavar="S",
                        help="seconds without activity that end a move (default 8)")
    phones.add_argument("--pipelines", type=int, default=DEFAULT_MAX_TABLES, metavar="N",
                        help="camera pipelines run at once at most, one per table whose phone"
                             f" streams (default {DEFAULT_MAX_TABLES}; 0: none, phones' frames"
                             " are only previewed)")
    phones.add_argument("--pipeline-idle", type=float, default=DEFAULT_IDLE_SECONDS,
                        metavar="S", help="seconds without frames after which a table's"
                                          f" pipeline stops (default {DEFAULT_IDLE_SECONDS:g})")


def database_argument(text: str) -> Path | str:
    """``--db``: a PostgreSQL URL as it is (a path would fold its ``//``), else a file.

    >>> database_argument("games.sqlite3"), database_argument("postgresql://db/tilecam")
    (PosixPath('games.sqlite3'), 'postgresql://db/tilecam')
    """
    from webui.database import is_postgres

    return text if is_postgres(text) else Path(text)


def local_addresses() -> list[str]:
    """IPv4 addresses of this computer other than loopback, as far as its name resolves."""
    try:
        _, _, addresses = socket.gethostbyname_ex(socket.gethostname())
    except OSError:
        return []
    return sorted({a for a in addresses if not a.startswith("127.")})


def run(args: argparse.Namespace) -> int:
    from webui.database import is_postgres, redacted
    from webui.store import GameStore, default_database

    if (args.cert is None) != (args.key is None):
        print("tilecam serve: --cert and --key go together", file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        print(f"tilecam serve: port {args.port} is not a port number", file=sys.stderr)
        return 2
    if args.workers < 0 or args.threads < 1:
        print("tilecam serve: --workers must be 0 or more and --threads 1 or more",
              file=sys.stderr)
        return 2
    database = args.db or default_database()
    if args.workers > 1 and not is_postgres(database):
        print("tilecam serve: several workers need a PostgreSQL database (--db"
              " postgresql://...): with SQLite each worker would only see its own changes",
              file=sys.stderr)
        return 2
    ssl_context = None
    if args.cert is not None:
        for path in (args.cert, args.key):
            if not path.is_file():
                print(f"tilecam serve: {path} does not exist", file=sys.stderr)
                return 2
        ssl_context = (str(args.cert), str(args.key))
    if args.quiet:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)

    try:
        # Opened once before serving: a database that cannot be reached is reported now, and
        # the tables are made before any worker starts.
        GameStore(database).close()
    except Exception as exc:  # noqa: BLE001 - sqlite3 or psycopg, whatever stops it
        print(f"tilecam serve: cannot open the database {redacted(database)}: {exc}",
              file=sys.stderr)
        return 1
    problem = check_pipeline_options(args)
    if problem:
        print(f"tilecam serve: {problem}", file=sys.stderr)
        return 2
    cameras = start_table_cameras(args, str(database))
    try:
        return serve_pages(args, database, ssl_context, cameras)
    finally:
        if cameras is not None:
            cameras.stop()


def check_pipeline_options(args: argparse.Namespace) -> str:
    """What is wrong with the options of the tables' camera pipelines ('' when nothing)."""
    if args.pipelines < 0:
        return "--pipelines must be 0 or more"
    if not args.pipeline_idle > 0 or (args.quiet_seconds is not None
                                      and not args.quiet_seconds > 0):
        return "--pipeline-idle and --quiet-seconds must be above 0"
    if args.profile is not None and not (args.profile / "profile.json").is_file():
        return f"--profile {args.profile}: no profile there (tilecam calibrate makes one)"
    return ""


def start_table_cameras(args: argparse.Namespace, database: str) -> SupervisorHandle | None:
    """The supervisor of the tables' camera pipelines (None with ``--pipelines 0``)."""
    from tilecam.table_cameras import PipelineSettings, start_supervisor
    from webui.database import is_postgres
    from webui.store import default_database

    if args.pipelines == 0:
        return None
    if not is_postgres(database):
        database = str(Path(database).resolve())  # the same file whatever the folder
    settings = PipelineSettings(
        database=database,
        profile_dir=None if args.profile is None else str(args.profile.resolve()),
        # Beside the default games file, whichever database keeps the games: a profile is
        # files, and the folder is this computer's.
        table_profiles=str(default_database().parent / "table-profiles"),
        quiet_seconds=args.quiet_seconds, idle_seconds=args.pipeline_idle,
        max_tables=args.pipelines)
    return start_supervisor(settings)


def serve_pages(args: argparse.Namespace, database: str | Path,
                ssl_context: tuple[str, str] | None, cameras: SupervisorHandle | None) -> int:
    from werkzeug.serving import make_server

    from webui import create_app
    from webui.table_cameras import CONFIG_KEY

    config: dict[str, object] = {"DATABASE": str(database)}
    if cameras is not None:
        config[CONFIG_KEY] = cameras.address
    if args.workers:
        return serve_with_gunicorn(args, config, ssl_context)

    app = create_app(config)
    try:
        server = make_server(args.host, args.port, app, threaded=True, ssl_context=ssl_context)
    except OSError as exc:
        print(f"tilecam serve: cannot listen on {args.host}:{args.port}: {exc.strerror}",
              file=sys.stderr)
        return 1
    announce(args.host, server.server_port, str(database), ssl_context is not None)

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def announce(host: str, port: int, database: str, https: bool) -> None:
    """Say where the games are and where the pages can be opened."""
    from webui.database import redacted

    scheme = "https" if https else "http"
    print(f"tilecam: games in {redacted(database)}", flush=True)
    print(f"tilecam: serving on {scheme}://{host}:{port}/", flush=True)
    if host in ("0.0.0.0", "::"):
        for address in local_addresses():
            print(f"tilecam: on this network open {scheme}://{address}:{port}/", flush=True)


def serve_with_gunicorn(args: argparse.Namespace, config: dict[str, object],
                        ssl_context: tuple[str, str] | None) -> int:
    """Serve the pages with gunicorn: ``args.workers`` processes of ``args.threads`` threads."""
    from gunicorn.app.base import BaseApplication

    from webui import create_app

    database = str(config["DATABASE"])
    host = f"[{args.host}]" if ":" in args.host else args.host
    settings: dict[str, object] = {
        "bind": f"{host}:{args.port}",
        "workers": args.workers,
        "worker_class": "gthread",
        "threads": args.threads,
        # No more connections than threads: a stream keeps its thread for as long as it is
        # open, so a connection accepted beyond them could wait for ever.  A full worker stops
        # accepting and leaves new connections to the others.  For the same reason no idle
        # connection is kept open after its response (keep-alive would count against them).
        "worker_connections": args.threads,
        "keepalive": 0,
        "graceful_timeout": GRACEFUL_SECONDS,
        "proc_name": "tilecam",
        "accesslog": None if args.quiet else "-",
        "errorlog": "-",
        "loglevel": "warning" if args.quiet else "info",
        "when_ready": lambda arbiter: announce(args.host, arbiter.LISTENERS[0].getsockname()[1],
                                               database, ssl_context is not None),
    }
    if ssl_context is not None:
        settings["certfile"], settings["keyfile"] = ssl_context

    class ClubServer(BaseApplication):
        def load_config(self) -> None:
            for key, value in settings.items():
                self.cfg.set(key, value)
            if "control_socket_disable" in self.cfg.settings:
                # Newer gunicorn's run-time control socket sits in the home folder, one for every
                # server: tilecam needs none, and two servers would contend for it.
                self.cfg.set("control_socket_disable", True)

        def load(self) -> object:
            # Each worker makes its own app after the fork: its own database connections,
            # its own games in memory and its own listener for the others' changes.
            return create_app(config)

    try:
        ClubServer().run()
    except SystemExit as stop:  # gunicorn's master ends by exiting with its status
        return int(stop.code or 0)
    return 0
