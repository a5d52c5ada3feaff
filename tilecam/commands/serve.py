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

HELP = "Serve the live scoreboard and game controls on the local network."

DEFAULT_HOST = "0.0.0.0"
DEFAULT_PORT = 5000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help="address to listen on (default 0.0.0.0: every interface, so phones"
                             " on the network can open the scoreboard; 127.0.0.1: this computer"
                             " only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT})")
    parser.add_argument("--db", metavar="FILE", type=Path, default=None,
                        help="SQLite file of the games (default:"
                             " $XDG_DATA_HOME/tilecam/games.sqlite3, else"
                             " ~/.local/share/tilecam/games.sqlite3)")
    parser.add_argument("--cert", metavar="PEM", type=Path,
                        help="TLS certificate: serve HTTPS (needed for a phone's camera)")
    parser.add_argument("--key", metavar="PEM", type=Path, help="TLS private key for --cert")
    parser.add_argument("--quiet", action="store_true", help="do not log each request")


def local_addresses() -> list[str]:
    """IPv4 addresses of this computer other than loopback, as far as its name resolves."""
    try:
        _, _, addresses = socket.gethostbyname_ex(socket.gethostname())
    except OSError:
        return []
    return sorted({a for a in addresses if not a.startswith("127.")})


def run(args: argparse.Namespace) -> int:
    from werkzeug.serving import make_server

    from webui import create_app
    from webui.store import default_database

    if (args.cert is None) != (args.key is None):
        print("tilecam serve: --cert and --key go together", file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        print(f"tilecam serve: port {args.port} is not a port number", file=sys.stderr)
        return 2
    database = args.db or default_database()
    ssl_context = None
    if args.cert is not None:
        for path in (args.cert, args.key):
            if not path.is_file():
                print(f"tilecam serve: {path} does not exist", file=sys.stderr)
                return 2
        ssl_context = (str(args.cert), str(args.key))
    if args.quiet:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)

    app = create_app({"DATABASE": str(database)})
    try:
        server = make_server(args.host, args.port, app, threaded=True, ssl_context=ssl_context)
    except OSError as exc:
        print(f"tilecam serve: cannot listen on {args.host}:{args.port}: {exc.strerror}",
              file=sys.stderr)
        return 1
    scheme = "https" if ssl_context else "http"
    port = server.server_port
    print(f"tilecam: games in {database}", flush=True)
    print(f"tilecam: serving on {scheme}://{args.host}:{port}/", flush=True)
    if args.host in ("0.0.0.0", "::"):
        for address in local_addresses():
            print(f"tilecam: on this network open {scheme}://{address}:{port}/", flush=True)

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
