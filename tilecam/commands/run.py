"""``tilecam run``: score a real game from a camera, with the live scoreboard, in one command.

Starts the web pages (as ``tilecam serve``) and the camera pipeline together, on one game:

- ``--source`` is where frames come from: a camera index (``0``), a stream URL (an IP-camera
  app on a phone: ``http://PHONE:8080/video``, ``rtsp://...``), a video file, or a folder of
  photos taken one per turn.  Without it, frames come from the game's phone-camera page
  (``/games/<id>/phone``; a phone's browser opens its camera only over HTTPS, hence
  ``--cert``/``--key``);
- a new game is set up for ``--players`` (its PIN is printed), or ``--game ID --pin PIN``
  continues a game kept in the database (one set up on the pages of ``tilecam serve``);
- every move the pipeline scores appears on every open scoreboard at once; a question it holds
  a turn for (a blank's letter, an unsure letter) is put on the controls page, and play goes
  on once the players answer it there; what they change there (a pass, an exchange, an undo, a
  corrected letter) is what the pipeline reads on from;
- the camera preview page shows the newest frame with the grid tilecam found (or says that it
  found none: it keeps trying); the calibration page's captures teach the reader the tiles
  (saved in ``--profile DIR`` when given).

Everything missing is said, with what to do: no camera, no board in the picture, no
calibration yet.  A video file or a folder ends; the pages stay open until Ctrl-C.

A table of a club event adds ``--server URL --event ID --table NAME --pin PIN`` (the table's
PIN): the game is played here as ever, in a local file (``--db``, by default
``tilecam-table.sqlite3`` in the current folder), and everything stored in it is sent to the
table's game on the club server, kept in that file while the server cannot be reached (see
:mod:`tilecam.table`).  The event and the table name the game rather than its id: they are
what the director hands out, and what is printed on the table's card.
"""

from __future__ import annotations

import argparse
import logging
import secrets
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeline import MoveReport, Pipeline
    from tilecam.live import LiveServer
    from tilecam.table import TableUplink

HELP = "Score a game from a camera (or a phone, a video, photos) with the live scoreboard."

DEFAULT_HOST = "0.0.0.0"
DEFAULT_PORT = 5000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--source", metavar="CAMERA|URL|FILE|FOLDER",
        help="camera index (0), stream URL, video file, or folder of photos one per turn "
             "(default: frames sent by the game's phone-camera page)",
    )
    parser.add_argument("--profile", metavar="DIR", type=Path,
                        help="calibration profile folder (from tilecam calibrate, or where the "
                             "calibration page's captures are saved)")
    parser.add_argument("--players", default="Player 1,Player 2",
                        help="player names in turn order, comma-separated (a new game)")
    parser.add_argument("--tileset", default=None,
                        help="tile set of a new game: en, de, ... (default: the profile's, "
                             "else en)")
    parser.add_argument("--game", metavar="ID", help="continue this stored game (needs --pin)")
    parser.add_argument("--pin", help="the game's PIN (a new game: default a random one)")
    parser.add_argument("--stills", action="store_true",
                        help="every frame is a photo of a settled board, one per turn (the "
                             "default for a folder of photos)")
    parser.add_argument("--quiet-seconds", type=float, default=None, metavar="S",
                        help="seconds without activity that end a move (default 8)")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help="address to listen on (default 0.0.0.0: phones and tablets on the "
                             "network can open the pages; 127.0.0.1: this computer only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; a free one when it is taken)")
    parser.add_argument("--db", metavar="FILE", type=Path, default=None,
                        help="SQLite file of the games (default: the one tilecam serve uses)")
    parser.add_argument("--cert", metavar="PEM", type=Path,
                        help="TLS certificate: serve HTTPS (a phone's camera needs it)")
    parser.add_argument("--key", metavar="PEM", type=Path, help="TLS private key for --cert")
    club = parser.add_argument_group("a table of a club event")
    club.add_argument("--server", metavar="URL",
                      help="the club server (http://SERVER:5000): the table's game is sent "
                           "there, and kept in --db while it cannot be reached")
    club.add_argument("--event", metavar="ID", help="the event's id (with --server)")
    club.add_argument("--table", metavar="NAME",
                      help="the table's name or number in the event (with --server)")


def _fail(message: str, status: int = 2) -> int:
    print(f"tilecam run: {message}", file=sys.stderr)
    return status


NO_CAMERA_HELP = (
    "Without a camera on this computer:\n"
    "  - use a phone: start tilecam run without --source (add --cert/--key, see the README) "
    "and open the phone page it prints on the phone;\n"
    "  - or an IP-camera app on the phone: --source http://PHONE-ADDRESS:8080/video;\n"
    "  - or a video file or a folder of photos: --source game.mp4, --source shots/."
)


def run(args: argparse.Namespace) -> int:
    import cv2

    from pipeline import Pipeline
    from scorer.lexicon import default_lexicon
    from tilecam.live import PageLink, start_server
    from tilecam.profile_options import OptionError, profile_and_tileset
    from tilecam.table import DEFAULT_TABLE_DATABASE, TableError
    from tracker import TrackerConfig
    from vision.sources import ImageFolderSource, SourceError, open_source
    from webui import STORE_KEY, create_app
    from webui.store import StoreError, default_database

    # Warnings of the pipeline and the sources (a lost stream reconnecting, a frame that could
    # not be read) are for the person at the computer, in tilecam's voice.
    logging.basicConfig(level=logging.WARNING, format="tilecam: %(message)s")
    if (args.cert is None) != (args.key is None):
        return _fail("--cert and --key go together")
    for path in (args.cert, args.key):
        if path is not None and not path.is_file():
            return _fail(f"{path} does not exist")
    if not 0 <= args.port < 65536:
        return _fail(f"port {args.port} is not a port number")
    if args.game and not args.pin:
        return _fail("--game needs the game's --pin")
    if args.quiet_seconds is not None and not args.quiet_seconds > 0:
        return _fail("--quiet-seconds must be above 0")
    if args.server or args.event or args.table:
        if not (args.server and args.event and args.table and args.pin):
            return _fail("a club table needs --server, --event, --table and the table's --pin")
        if args.game:
            return _fail("--game and --server exclude each other: a table's game is the one "
                         "the event gives it")
        if not args.server.startswith(("http://", "https://")):
            return _fail(f"--server {args.server}: give the address as http://SERVER:PORT")

    try:
        profile, tileset = profile_and_tileset(args.profile, args.tileset, may_be_new=True)
    except OptionError as exc:
        return _fail(str(exc))

    source = None
    if args.source is not None:
        try:
            # OpenCV prints its own complaints about a missing camera; ours says what to do.
            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
            source = open_source(args.source)
        except SourceError as exc:
            what = str(exc)
            if args.source.strip().isdigit():
                what = (f"camera {args.source.strip()} cannot be opened: no camera is connected "
                        "at that number, or another program is using it")
            return _fail(f"{what}.\n{NO_CAMERA_HELP}")
        finally:
            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_WARNING)
    stills = args.stills or isinstance(source, ImageFolderSource)

    table_mode = bool(args.server)
    database = args.db or (Path(DEFAULT_TABLE_DATABASE) if table_mode else default_database())
    app = create_app({"DATABASE": str(database)})
    store = app.extensions[STORE_KEY]
    uplink: TableUplink | None = None
    try:
        if table_mode:
            try:
                uplink = _join_club(store, database, args)
            except TableError as exc:
                store.close()
                return _fail(str(exc))
            game_id, pin = uplink.local_game, args.pin
            _serve_uplink_status(app, uplink)
        elif args.game:
            if not store.exists(args.game):
                return _fail(f"there is no game {args.game!r} in {database}")
            if not store.check_pin(args.game, args.pin):
                return _fail(f"that is not the PIN of game {args.game}")
            game_id, pin = args.game, args.pin
        else:
            players = [p.strip() for p in args.players.split(",") if p.strip()]
            pin = args.pin or f"{secrets.randbelow(10000):04d}"
            game_id = store.create_game(players, pin=pin, tileset=tileset.code)
    except StoreError as exc:
        return _fail(exc.message)
    live = store.live(game_id)
    if live.tileset.code != tileset.code:
        return _fail(f"game {game_id} uses the {live.tileset.code} tile set, the profile "
                     f"{tileset.code}")

    ssl_context = (str(args.cert), str(args.key)) if args.cert else None
    try:
        server = start_server(app, args.host, args.port, ssl_context=ssl_context)
    except OSError as exc:
        return _fail(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", 1)

    quiet = TrackerConfig().quiet_seconds if args.quiet_seconds is None else args.quiet_seconds
    lexicon = default_lexicon(tileset)

    def make_pipeline(with_profile: Any, previous: Pipeline | None = None) -> Pipeline:
        game = previous.game if previous is not None else None
        if game is None:
            import copy

            with store._lock:  # the game must not change while it is copied
                game = copy.deepcopy(store.live(game_id).game)
        return Pipeline(game.players, profile=with_profile, tileset=tileset, lexicon=lexicon,
                        stills=stills, hold=True, game=game,
                        tracker_config=TrackerConfig(quiet_seconds=quiet))

    def say(line: str) -> None:
        print(line, flush=True)

    def rebuilt(new_profile: Any, previous: Pipeline) -> Pipeline:
        say("tilecam: reading with the new calibration from the next move on")
        return make_pipeline(new_profile, previous)

    pipeline = make_pipeline(profile)
    samples_at_start = 0 if profile is None else len(profile.labels)
    link = PageLink(app, game_id, pin, pipeline, say=say, profile_dir=args.profile,
                    rebuild=rebuilt)
    _introduce(server, game_id, pin, args, profile, source, stills, lexicon is not None)
    if uplink is not None:
        link.notice = uplink.notice
        say(f"Club: {uplink.record.table_name} of event {uplink.record.event_id} on "
            f"{uplink.server.base} (its game {uplink.record.server_game}); events are kept in "
            f"{database} until the server has them.")
        uplink.start()

    stop = threading.Event()

    def stop_on_signal(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous_handler = signal.signal(signal.SIGTERM, stop_on_signal)

    def relay() -> None:
        # Answers, corrections and calibration made on the page, taken in while frames flow
        # (and after the source has ended).
        while not stop.is_set():
            try:
                for report in link.wait_and_poll(1.0):
                    _print_move(report)
            except Exception:  # noqa: BLE001 - the pages and the camera must go on
                logging.getLogger("tilecam.run").exception("taking in the page's changes failed")
                stop.wait(1.0)

    relay_thread = threading.Thread(target=relay, name="tilecam-relay", daemon=True)
    relay_thread.start()
    frames = None
    try:
        if source is None:
            from vision.sources import PushedFrameSource

            frames = PushedFrameSource(store.frames.pushed(game_id))
        else:
            frames = source
        last = 0.0
        with frames:
            failures: set[str] = set()
            for stamp, frame in frames:
                last = stamp
                try:
                    reports = link.feed(stamp, frame)
                except Exception as exc:  # noqa: BLE001 - the game on the pages must go on
                    # The game is safe in the database; the pipeline goes on with the next
                    # frame.  Each kind of failure is told once, with where it happened.
                    what = f"{type(exc).__name__}: {exc}"
                    if what not in failures:
                        failures.add(what)
                        logging.getLogger("tilecam.run").exception(
                            "the camera pipeline failed on the frame at %.2f s (%s); "
                            "going on with the next frames", stamp, what)
                    continue
                for report in reports:
                    _print_move(report)
        for report in link.finish(last):
            _print_move(report)
        scores = " : ".join(f"{name} {score}" for name, score in
                            zip(link.pipeline.game.players, link.pipeline.game.scores,
                                strict=True))
        counters = frames.counters()
        say(f"tilecam: the source has ended ({counters['frames_read']} frames, "
            f"{counters['corrupt_skipped']} unreadable): {_turns(len(link.reports))} scored, "
            f"{scores}.")
        if link.pipeline.pending:
            say(f"tilecam: {len(link.pipeline.pending)} question(s) wait for an answer on the "
                "controls page.")
        say(f"tilecam: the pages stay open at {server.url(f'/games/{game_id}')} "
            "(Ctrl-C to stop).")
        while not stop.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
        stop.set()
        if frames is not None:
            frames.close()
        relay_thread.join(timeout=3)
        if uplink is not None:
            _stop_uplink(uplink, say)
        server.stop()
        store.close()
        link.pipeline.finish_learning()
        _keep_learnt(link.pipeline.profile, args.profile, samples_at_start)
    return 0


#: Seconds a stopping table run gives the club server to take what still waits.
UPLINK_DRAIN_SECONDS = 5.0


def _join_club(store: Any, database: Path | str, args: argparse.Namespace) -> TableUplink:
    """The table's game in the local store (a copy of the server's at the first start) and the
    uplink that sends it there."""
    from tilecam.table import ClubServer, Outbox, TableUplink, join_table

    def say(line: str) -> None:
        print(line, flush=True)

    outbox = Outbox(database)
    club = ClubServer(args.server, args.pin)
    record = join_table(store, outbox, club, args.event, args.table, say=say)
    return TableUplink(store, outbox, club, record, say=say)


def _serve_uplink_status(app: Any, uplink: TableUplink) -> None:
    """``GET /api/uplink``: whether the club server has the table's events (for a screen or a
    script beside the table; the camera page shows the same on the picture)."""
    from flask import jsonify

    def status() -> Any:
        return jsonify(server=uplink.server.base, event=uplink.record.event_id,
                       table=uplink.record.table_name, game=uplink.record.server_game,
                       waiting=uplink.waiting(), **{k: v for k, v in
                                                   uplink.status.to_dict().items()
                                                   if k != "waiting"})

    app.add_url_rule("/api/uplink", "uplink_status", status)


def _stop_uplink(uplink: TableUplink, say: Any) -> None:
    uplink.drained(UPLINK_DRAIN_SECONDS)
    uplink.stop()
    waiting = uplink.waiting()
    if waiting:
        say(f"tilecam: {waiting} event(s) are not on the club server yet: they are kept in "
            f"{uplink.outbox.path} and sent when this table is started again")
    uplink.outbox.close()


def _keep_learnt(profile: Any, folder: Path | None, samples_at_start: int) -> None:
    """The tiles of the moves confirmed during the game, learnt by the profile, saved in its
    folder for the next game."""
    if profile is None or folder is None or len(profile.labels) == samples_at_start:
        return
    try:
        profile.save(folder)
    except OSError as exc:
        print(f"tilecam: cannot save the profile in {folder}: {exc.strerror or exc}",
              file=sys.stderr)
        return
    print(f"tilecam: the profile in {folder} now holds {len(profile.labels)} tile samples "
          f"({len(profile.labels) - samples_at_start:+d} from this game)", flush=True)


def _introduce(server: LiveServer, game_id: str, pin: str, args: argparse.Namespace,
               profile: Any, source: Any, stills: bool, dictionary: bool) -> None:
    """What is where, and what is still missing."""
    from tilecam.live import network_addresses

    def url(path: str) -> str:
        return server.url(f"/games/{game_id}{path}")

    lines = []
    if server.wanted_port is not None:
        lines.append(f"(port {server.wanted_port} is taken: using {server.port})")
    lines += [
        f"tilecam: game {game_id}, PIN {pin}",
        f"  scoreboard:   {url('')}",
        f"  controls:     {url('/control')}  (questions are answered here; needs the PIN)",
        f"  camera view:  {url('/camera')}",
        f"  calibration:  {url('/calibrate')}",
    ]
    if server.host in ("0.0.0.0", "::"):
        for address in network_addresses():
            lines.append(f"  on this network: {server.url(f'/games/{game_id}', host=address)}")
    if source is None:
        lines.append(f"Camera: none given. Open {url('/phone')} on a phone held over the board "
                     "and press Start camera.")
        if server.scheme != "https":
            lines.append("  A phone opens its camera only for an HTTPS page: start again with "
                         "--cert cert.pem --key key.pem (see the README), or use --source 0 for "
                         "a webcam, --source http://PHONE:8080/video for an IP-camera app.")
    else:
        kind = "photos, one per turn" if stills else "frames"
        lines.append(f"Camera: {source.description} ({kind}).")
    if profile is None:
        lines.append(
            "No calibration yet: letters are read by Tesseract alone (slower, less sure). Lay "
            f"the alphabet out on the board and capture it on {url('/calibrate')}, or run "
            "`tilecam calibrate --profile DIR --pair PHOTO BOARD.txt` and start again with "
            "--profile DIR."
        )
        if args.profile is not None:
            lines.append(f"  (the calibration page's captures will be saved in {args.profile})")
    else:
        lines.append(f"Calibration: {args.profile} ({len(profile.labels)} tile samples).")
    if not dictionary:
        lines.append("No word list for this tile set: blanks' letters are asked on the "
                     "controls page.")
    for line in lines:
        print(line, flush=True)


def _turns(count: int) -> str:
    return f"{count} turn" if count == 1 else f"{count} turns"


def _print_move(report: MoveReport) -> None:
    print(report.line(), flush=True)
    for note in report.notes:
        print(f"       note: {note}", flush=True)

