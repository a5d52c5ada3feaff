"""Camera pipelines that the server runs for tables whose camera is a phone.

A phone at a table opens the table's phone page on the club server and posts its frames to
``/api/games/<id>/frames``.  ``tilecam serve`` runs the table's camera pipeline itself, the
same way as ``tilecam run``: frames -> :class:`pipeline.Pipeline` -> :class:`tilecam.live.PageLink`
-> the game in the server's database, with the players' questions on the game's pages.

Three kinds of process:

* the web server's processes (gunicorn's workers, or the one process of Werkzeug's server)
  receive the frames and hand each to the supervisor over a Unix socket
  (:class:`webui.table_cameras.TableCameras`).  A socket of the supervisor's own, rather than
  the database or a broker: frames are large (about 100 KB), many, and worth nothing a second
  later, so they go from process to process once, in memory, and are never stored;
* the *supervisor* (:func:`start_supervisor`, a process of its own beside the web server, so
  that gunicorn may replace its workers at will) keeps one pipeline process per table whose
  phone is streaming, starts it when the table's frames start arriving, learns at once when it
  ends (its status pipe closes), and starts it again on the next frames after a crash;
* a table's *pipeline process* (:func:`run_table_pipeline`) holds the table's tracker, reader and
  profile and stores what it finds in the database through its own store, as ``tilecam run``
  does; the pages of every server process hear of it as of any change (PostgreSQL's
  LISTEN/NOTIFY, or SQLite's change counter).

One process per table rather than a pool shared by tables: a table's pipeline is state (the
tracker's settled view, the profile learning the table's tiles, turns held for answers) that
would have to move with it between pool processes, a crash or a hung frame takes down one
table and no other, and the operating system spreads the tables over the cores.  The price is
memory (see the README), hence a ceiling (``max_tables``); processes are forked from a
forkserver that has imported the pipeline's modules already, so starting one is quick and the
modules' pages are shared.

Frames are never queued without bound: the supervisor keeps one waiting frame per table (a
newer one replaces it), the pipeline process two (a newer one pushes out the oldest).  A table
needs only a few frames a second; a phone sending more, or a pipeline busy reading a move, costs
dropped frames, never memory or latency.

A pipeline process ends by itself when no frame has come for ``idle_seconds`` (the phone
stopped) or the game has ended.  A crash (any other end) is restarted on the next frames, after
a pause that grows while it keeps crashing at once; the game is safe in the database, where
every move was committed before it was acknowledged, and the new pipeline goes on from it.
Questions the crashed pipeline had put on the page are closed (it alone could take their
answers); the new one asks again about whatever is still on the board unscored.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection, Listener
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from pipeline import MoveReport, Pipeline
    from tilecam.live import PageLink
    from webui.table_cameras import SupervisorAddress

log = logging.getLogger("tilecam.table_cameras")

#: Seconds without a frame after which a table's pipeline ends (the phone stopped streaming).
DEFAULT_IDLE_SECONDS = 60.0
#: Pipelines running at once at most (each is a process of about 130 MB, 95 MB of it its own).
DEFAULT_MAX_TABLES = 40
#: Frames a pipeline process holds for its pipeline: the newest are kept.
FRAMES_HELD = 2
#: Seconds between two status reports of a pipeline process to the supervisor.
STATUS_INTERVAL = 0.5
#: Pause before starting again a pipeline that crashed: the first, and the longest (doubling
#: while it keeps crashing within :data:`STEADY_SECONDS` of its start).
RESTART_PAUSE_FIRST = 1.0
RESTART_PAUSE_LONGEST = 30.0
STEADY_SECONDS = 60.0
#: Seconds a stopping pipeline is given to finish its turn before it is terminated.
STOP_SECONDS = 5.0
#: Seconds the supervisor may take to start listening.
START_SECONDS = 30.0
#: Modules a forkserver imports once for every pipeline process it forks.
PRELOADED = ["numpy", "cv2", "flask", "scorer.lexicon", "pipeline", "tracker", "vision.sources",
             "calibration.profile", "webui", "tilecam.live", "tilecam.table_cameras"]
#: What a pipeline process sends when it ends normally (its status's ``reason``).
ENDED_IDLE = "idle"
ENDED_GAME_OVER = "game_over"
ENDED_STOPPED = "stopped"
ENDED_NO_GAME = "no_game"


@dataclass(frozen=True)
class PipelineSettings:
    """What every table's pipeline is run with (from ``tilecam serve``'s options)."""

    #: the server's ``--db``: a SQLite file or a PostgreSQL URL
    database: str
    #: the calibration profile every table starts from (None: the stock letters)
    profile_dir: str | None = None
    #: where each table's profile is kept as it learns the table's tiles (a folder per game)
    table_profiles: str | None = None
    #: the tracker's quiet period (None: its default)
    quiet_seconds: float | None = None
    idle_seconds: float = DEFAULT_IDLE_SECONDS
    max_tables: int = DEFAULT_MAX_TABLES
    #: one line per move, question and restart in the server's log
    verbose: bool = True


# ------------------------------------------------------------------ started by tilecam serve


@dataclass
class SupervisorHandle:
    """The running supervisor, as ``tilecam serve`` holds it."""

    process: subprocess.Popen[bytes]
    address: SupervisorAddress
    folder: Path

    def stop(self, timeout: float = STOP_SECONDS + 5.0) -> None:
        """Stop the supervisor and, through it, every table's pipeline."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        shutil.rmtree(self.folder, ignore_errors=True)


def start_supervisor(settings: PipelineSettings) -> SupervisorHandle:
    """Start the supervisor process and wait until it listens.

    Its socket is in a new folder only this user may enter, and opens only with a key made
    here, which the web server's processes get through their configuration (gunicorn's workers
    are forked from this process)."""
    from webui.table_cameras import SupervisorAddress

    folder = Path(tempfile.mkdtemp(prefix="tilecam-cameras-"))
    address = SupervisorAddress(str(folder / "supervisor.sock"), os.urandom(32))
    order = json.dumps({"settings": asdict(settings), "socket": address.path,
                        "authkey": address.authkey.hex(), "parent": os.getpid()})
    # A fresh interpreter, not a fork: this process may already hold database connections,
    # and it goes on to become gunicorn's master.
    process = subprocess.Popen(
        [sys.executable, "-c", "from tilecam.table_cameras import main; main()"],
        stdin=subprocess.PIPE)
    assert process.stdin is not None
    process.stdin.write(order.encode())
    process.stdin.close()
    deadline = time.monotonic() + START_SECONDS
    while not Path(address.path).exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            shutil.rmtree(folder, ignore_errors=True)
            raise RuntimeError("the camera pipelines' supervisor did not start")
        time.sleep(0.02)
    return SupervisorHandle(process, address, folder)


def main() -> None:
    """The supervisor process: reads its order (JSON) from stdin and serves until stopped."""
    from webui.table_cameras import SupervisorAddress

    order = json.loads(sys.stdin.read())
    settings = PipelineSettings(**order["settings"])
    logging.basicConfig(level=logging.INFO if settings.verbose else logging.WARNING,
                        format="tilecam: %(message)s")
    # Ctrl-C at the terminal reaches every process of the group: the server stops this one.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    supervisor = Supervisor(settings, SupervisorAddress(order["socket"],
                                                        bytes.fromhex(order["authkey"])))
    signal.signal(signal.SIGTERM, lambda signum, frame: supervisor.stopping.set())
    supervisor.serve(int(order["parent"]))


# ------------------------------------------------------------------------------ supervisor


@dataclass
class Table:
    """One table's pipeline as the supervisor keeps it (guarded by the supervisor's lock)."""

    game_id: str
    process: multiprocessing.process.BaseProcess | None = None
    frames_out: Connection | None = None
    #: the newest frame not yet handed to the pipeline process (a newer one replaces it)
    waiting: bytes | None = None
    wake: threading.Condition = field(default_factory=threading.Condition)
    started: float = 0.0
    received: int = 0
    dropped: int = 0
    starts: int = 0
    crashes: int = 0
    #: crashes in a row, each soon after its start (the restart pause doubles with them)
    quick_crashes: int = 0
    not_before: float = 0.0
    #: the pipeline process's last status report
    report: dict[str, Any] = field(default_factory=dict)
    last_exit: dict[str, Any] | None = None

    def status(self) -> dict[str, Any]:
        state = "stopped"
        if self.process is not None:
            state = self.report.get("state", "starting")
            if state == "stopped":
                state = "stopping"  # its last report is in, its end not yet seen
        elif self.last_exit is not None and self.last_exit["crashed"]:
            state = "crashed"
        out: dict[str, Any] = {
            "state": state, "received": self.received,
            "dropped": self.dropped + int(self.report.get("dropped", 0)),
            "starts": self.starts, "restarts": max(0, self.starts - 1), "crashes": self.crashes,
        }
        if self.process is not None:
            out["pid"] = self.process.pid
            out["since"] = self.started
            for key in ("frames", "moves", "questions", "board", "grid", "feed_ms", "fps"):
                if key in self.report:
                    out[key] = self.report[key]
        if self.last_exit is not None:
            out["last_exit"] = self.last_exit
        return out


class Supervisor:
    """Keeps one pipeline process per streaming table (see the module notes)."""

    def __init__(self, settings: PipelineSettings, address: SupervisorAddress) -> None:
        self.settings = settings
        self.address = address
        self.tables: dict[str, Table] = {}
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(PRELOADED)
        self.listener = Listener(address.path, family="AF_UNIX", authkey=address.authkey)

    def serve(self, parent: int) -> None:
        threading.Thread(target=self._accept, name="tilecam-cameras-accept", daemon=True).start()
        # The forkserver imports the pipeline's modules once (a second or two): now, rather
        # than while the first table's frames wait for it.
        threading.Thread(target=self._warm_up, name="tilecam-cameras-warm", daemon=True).start()
        # The server that started this process may die without stopping it (killed): then
        # its tables' pipelines have no frames to wait for.
        while not self.stopping.wait(0.5):
            if os.getppid() != parent:
                log.warning("the server is gone: stopping the camera pipelines")
                break
        self.shutdown()

    def _warm_up(self) -> None:
        from multiprocessing import forkserver

        try:
            forkserver.ensure_running()
        except Exception:  # noqa: BLE001 - the first pipeline's start tries again, and says why
            log.exception("the camera pipelines' forkserver did not start")

    def shutdown(self) -> None:
        self.stopping.set()
        try:
            self.listener.close()
        except OSError:
            pass
        with self.lock:
            running = [t for t in self.tables.values() if t.process is not None]
            for table in running:
                self._hand(table, b"")  # the empty frame: finish the turn and end
        deadline = time.monotonic() + STOP_SECONDS
        for table in running:
            process = table.process
            if process is None:
                continue
            process.join(max(0.1, deadline - time.monotonic()))
            if process.is_alive():
                process.terminate()
                process.join(2)

    # -------------------------------------------------------------- the web server's requests

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn = self.listener.accept()
            except multiprocessing.AuthenticationError:
                continue
            except OSError:
                return  # closed: shutting down
            threading.Thread(target=self._answer, args=(conn,), name="tilecam-cameras-conn",
                             daemon=True).start()

    def _answer(self, conn: Connection) -> None:
        """One web server process's requests, answered in turn until it disconnects."""
        with conn:
            while True:
                try:
                    request = conn.recv()
                except (EOFError, OSError):
                    return
                try:
                    answer = self.handle(request)
                except Exception as exc:  # noqa: BLE001 - one bad request must not end the rest
                    log.exception("a request to the camera pipelines failed")
                    answer = {"state": "unavailable", "message": f"{type(exc).__name__}: {exc}"}
                try:
                    conn.send(answer)
                except OSError:
                    return

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        game_id = str(request.get("game", ""))
        if request.get("op") == "status":
            with self.lock:
                table = self.tables.get(game_id)
                return Table(game_id).status() if table is None else table.status()
        if request.get("op") != "frame":
            return {"state": "unavailable", "message": f"unknown request {request.get('op')!r}"}
        with self.lock:
            table = self.tables.setdefault(game_id, Table(game_id))
            table.received += 1
            if table.process is None:
                refused = self._may_not_start(table)
                if refused is not None:
                    table.dropped += 1
                    return {**table.status(), **refused}
                self._start(table, str(request.get("pin", "")))
            self._hand(table, request["jpeg"])
            return table.status()

    def _may_not_start(self, table: Table) -> dict[str, Any] | None:
        if self.stopping.is_set():
            return {"state": "stopped", "message": "the server is stopping"}
        wait = table.not_before - time.monotonic()
        if wait > 0:
            return {"state": "waiting", "message": f"the camera pipeline crashed: it is started "
                    f"again in {wait:.0f} s"}
        running = sum(1 for t in self.tables.values() if t.process is not None)
        if running >= self.settings.max_tables:
            return {"state": "busy", "message": f"the server already runs {running} camera "
                    "pipelines, its most: this table's frames wait for one to end"}
        return None

    def _hand(self, table: Table, jpeg: bytes) -> None:
        """Leave ``jpeg`` for the table's sender thread; a frame it has not sent yet is
        dropped (the newest view is what the pipeline wants)."""
        with table.wake:
            if table.waiting is not None and table.waiting:
                table.dropped += 1
            table.waiting = jpeg
            table.wake.notify()

    # -------------------------------------------------------------- pipeline processes

    def _start(self, table: Table, pin: str) -> None:
        """Start the table's pipeline process (with the lock held)."""
        frames_in, frames_out = self.context.Pipe(duplex=False)
        status_in, status_out = self.context.Pipe(duplex=False)
        process = self.context.Process(
            target=run_table_pipeline, name=f"tilecam-table-{table.game_id}",
            args=(table.game_id, pin, self.settings, frames_in, status_out),
            # Ended with the supervisor, however it ends (shutdown() first lets them finish).
            daemon=True)
        process.start()
        # Only the child holds these ends now: its death closes them, which is how it is seen.
        frames_in.close()
        status_out.close()
        table.process, table.frames_out = process, frames_out
        table.waiting, table.report = None, {"state": "starting"}
        table.started = time.monotonic()
        table.starts += 1
        if table.starts > 1:
            log.info("table %s: camera pipeline started again (pid %d)", table.game_id,
                     process.pid)
        else:
            log.info("table %s: camera pipeline started (pid %d)", table.game_id, process.pid)
        threading.Thread(target=self._send_frames, args=(table, process, frames_out),
                         name=f"tilecam-frames-{table.game_id}", daemon=True).start()
        threading.Thread(target=self._read_status, args=(table, process, status_in),
                         name=f"tilecam-status-{table.game_id}", daemon=True).start()

    def _send_frames(self, table: Table, process: multiprocessing.process.BaseProcess,
                     frames_out: Connection) -> None:
        """Hands the table's newest frame to its process, one at a time.  Only this thread
        waits when the process does not read (hung): the others' frames go on."""
        with frames_out:
            while True:
                with table.wake:
                    table.wake.wait_for(lambda: table.waiting is not None
                                        or table.process is not process)
                    if table.process is not process:
                        return
                    jpeg, table.waiting = table.waiting, None
                assert jpeg is not None
                try:
                    frames_out.send_bytes(jpeg)
                except OSError:
                    return  # the process has ended: _read_status says how
                if not jpeg:
                    return

    def _read_status(self, table: Table, process: multiprocessing.process.BaseProcess,
                     status_in: Connection) -> None:
        """The pipeline process's reports, until it ends (its end of the pipe closes)."""
        while True:
            try:
                report = status_in.recv()
            except (EOFError, OSError):
                break
            with self.lock:
                table.report = report
        process.join(STOP_SECONDS)
        code = process.exitcode
        with self.lock:
            reason = table.report.get("reason")
            crashed = code != 0 or reason is None
            running_for = time.monotonic() - table.started
            table.last_exit = {"crashed": crashed, "code": code,
                               "reason": reason or "crashed", "at": time.time()}
            if crashed:
                table.crashes += 1
                table.quick_crashes = table.quick_crashes + 1 if running_for < STEADY_SECONDS else 1
                # The first crash is started again on the next frame; one crash after another,
                # with a growing pause.
                pause = 0.0 if table.quick_crashes <= 1 else min(
                    RESTART_PAUSE_LONGEST, RESTART_PAUSE_FIRST * 2 ** (table.quick_crashes - 2))
                table.not_before = time.monotonic() + pause
                how = f"signal {-code}" if code is not None and code < 0 else f"status {code}"
                log.warning("table %s: the camera pipeline ended unexpectedly (%s); it is "
                            "started again on the next frames", table.game_id, how)
            else:
                table.quick_crashes = 0
                log.info("table %s: camera pipeline stopped (%s)", table.game_id, reason)
            table.process, table.frames_out = None, None
            table.report = {}
        with table.wake:
            table.wake.notify_all()  # the sender thread ends (and closes its pipe)
        status_in.close()


# ------------------------------------------------------------------------ pipeline process


class StatusReporter:
    """Sends the pipeline process's status to the supervisor (the last one is kept there
    and shown with every frame's answer)."""

    def __init__(self, out: Connection) -> None:
        self.out = out
        self.last = 0.0
        self._feeds: list[float] = []

    def fed(self, seconds: float) -> None:
        self._feeds.append(seconds)

    def due(self) -> bool:
        return time.monotonic() - self.last >= STATUS_INTERVAL

    def send(self, report: dict[str, Any]) -> None:
        now = time.monotonic()
        if self._feeds:
            report["feed_ms"] = round(1000 * sum(self._feeds) / len(self._feeds), 1)
            report["fps"] = round(len(self._feeds) / max(now - self.last, 1e-3), 2)
            self._feeds = []
        self.last = now
        try:
            self.out.send(report)
        except OSError:
            pass  # the supervisor is gone: the frames stop too, and this process ends


def run_table_pipeline(game_id: str, pin: str, settings: PipelineSettings,
                       frames_in: Connection, status_out: Connection) -> None:
    """A table's pipeline process (see the module notes): frames from ``frames_in`` through
    the pipeline into the game ``game_id`` of the server's database."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the supervisor says when to stop
    logging.basicConfig(level=logging.WARNING, format=f"tilecam: table {game_id}: %(message)s")
    TablePipeline(game_id, pin, settings, frames_in, status_out).run()


class TablePipeline:
    """The loop of :func:`run_table_pipeline`: ``tilecam run``'s, fed by the supervisor."""

    def __init__(self, game_id: str, pin: str, settings: PipelineSettings,
                 frames_in: Connection, status_out: Connection) -> None:
        from webui.frames import PushedFrames

        self.game_id = game_id
        self.pin = pin
        self.settings = settings
        self.frames_in = frames_in
        self.status = StatusReporter(status_out)
        self.queue = PushedFrames(FRAMES_HELD)
        self.stop = threading.Event()
        self.reason = ENDED_IDLE

    def say(self, line: str) -> None:
        if self.settings.verbose:
            line = line.strip().removeprefix("tilecam: ")
            print(f"tilecam: table {self.game_id}: {line}", flush=True)

    def tell(self, reports: Sequence[MoveReport]) -> None:
        """The scored turns in the server's log, as ``tilecam run`` prints them."""
        for report in reports:
            self.say(report.line())
            for note in report.notes:
                self.say(f"note: {note}")

    def run(self) -> None:
        from tilecam.live import PageLink
        from vision.sources import PushedFrameSource
        from webui import STORE_KEY, create_app

        app = create_app({"DATABASE": self.settings.database})
        store = app.extensions[STORE_KEY]
        if not store.exists(self.game_id):
            self.status.send({"state": "stopped", "reason": ENDED_NO_GAME})
            return
        if store.live(self.game_id).game.over:
            self.status.send({"state": "stopped", "reason": ENDED_GAME_OVER})
            return
        own_profile = (None if self.settings.table_profiles is None
                       else Path(self.settings.table_profiles) / self.game_id)
        pipeline = self._pipeline(store, own_profile)
        samples_at_start = 0 if pipeline.profile is None else len(pipeline.profile.labels)
        link = PageLink(app, self.game_id, self.pin, pipeline, say=self.say,
                        profile_dir=own_profile, rebuild=self._rebuilt)
        self._close_orphan_questions(link)
        source = PushedFrameSource(self.queue, poll=0.25,
                                   idle_timeout=self.settings.idle_seconds)
        self.source = source
        self.status.send({"state": "running", "frames": 0, "moves": 0})
        threading.Thread(target=self._receive, args=(source,), daemon=True).start()
        relay = threading.Thread(target=self._relay, args=(link, store, source), daemon=True)
        relay.start()
        last = 0.0
        failures: set[str] = set()
        try:
            with source:
                for stamp, frame in source:
                    last = stamp
                    began = time.perf_counter()
                    try:
                        self.tell(link.feed(stamp, frame))
                    except Exception as exc:  # noqa: BLE001 - the game goes on with the next frame
                        what = f"{type(exc).__name__}: {exc}"
                        if what not in failures:
                            failures.add(what)
                            log.exception("the camera pipeline failed on a frame (%s); going on "
                                          "with the next frames", what)
                    self.status.fed(time.perf_counter() - began)
                    if self.status.due():
                        self.status.send(self._report(link, frame))
            self.tell(link.finish(last))
        finally:
            self.stop.set()
            relay.join(5)  # it uses the store, closed below
            self._keep_learnt(link.pipeline, own_profile, samples_at_start)
            self.status.send({**self._report(link, None), "state": "stopped",
                              "reason": self.reason})
            store.close()

    def _pipeline(self, store: Any, own_profile: Path | None) -> Pipeline:
        """The table's pipeline on the stored game, with its own profile when it has learnt
        one, else the club's."""
        import copy

        from pipeline import Pipeline
        from scorer.lexicon import default_lexicon
        from tilecam.profile_options import OptionError, profile_and_tileset
        from tracker import TrackerConfig

        live = store.live(self.game_id)
        folder = self.settings.profile_dir
        if own_profile is not None and (own_profile / "profile.json").exists():
            folder = str(own_profile)
        profile = None
        if folder is not None:
            try:
                profile, _ = profile_and_tileset(Path(folder), live.tileset.code)
            except OptionError as exc:
                self.say(f"the profile in {folder} is not used: {exc}")
        self.tileset = live.tileset
        self.lexicon = default_lexicon(live.tileset)
        config = TrackerConfig()
        self.tracker_config = (config if self.settings.quiet_seconds is None
                               else TrackerConfig(quiet_seconds=self.settings.quiet_seconds))
        with store._lock:  # the game must not change while it is copied (as tilecam run does)
            game = copy.deepcopy(store.live(self.game_id).game)
        return Pipeline(game.players, profile=profile, tileset=self.tileset, lexicon=self.lexicon,
                        hold=True, game=game, tracker_config=self.tracker_config)

    def _rebuilt(self, profile: Any, previous: Pipeline) -> Pipeline:
        from pipeline import Pipeline

        self.say("reading with the new calibration from the next move on")
        return Pipeline(previous.game.players, profile=profile, tileset=self.tileset,
                        lexicon=self.lexicon, hold=True, game=previous.game,
                        tracker_config=self.tracker_config)

    def _close_orphan_questions(self, link: PageLink) -> None:
        """Questions a previous pipeline of this table put on the page and never had answered:
        only it could take their answers (it held the turn), so they are closed; this pipeline
        asks again about whatever is still unscored on the board."""
        from tilecam.live import LinkError

        for question in link.store.questions(self.game_id, open_only=True):
            if "camera_question" not in question.data:
                continue
            try:
                link.post(f"questions/{question.qid}/answer",
                          {"answer": "camera restarted: asked again if still open"})
            except LinkError as exc:
                log.info("question %d could not be closed: %s", question.qid, exc)

    def _receive(self, source: Any) -> None:
        """Frames from the supervisor into the held frames (the oldest pushed out); the empty
        frame, or the supervisor gone, ends the source."""
        while not self.stop.is_set():
            try:
                jpeg = self.frames_in.recv_bytes()
            except (EOFError, OSError):
                jpeg = b""
            if not jpeg:
                self.reason = ENDED_STOPPED
                source.close()
                return
            try:
                self.queue.push(jpeg)
            except ValueError:
                continue  # not a JPEG: the web server checks, so never

    def _relay(self, link: PageLink, store: Any, source: Any) -> None:
        """Answers and corrections made on the pages, taken in while frames flow; the game's
        end ends the pipeline."""
        while not self.stop.is_set():
            try:
                self.tell(link.wait_and_poll(1.0))
                if store.live(self.game_id).game.over:
                    self.reason = ENDED_GAME_OVER
                    self.say("the game has ended: the camera pipeline stops")
                    source.close()
                    return
            except Exception:  # noqa: BLE001 - the camera must go on
                log.exception("taking in the page's changes failed")
                self.stop.wait(1.0)

    def _report(self, link: PageLink, frame: np.ndarray | None) -> dict[str, Any]:
        pipeline = link.pipeline
        report: dict[str, Any] = {
            "state": "running", "frames": self.source.frames_read,
            "dropped": self.queue.dropped, "moves": len(link.reports),
            "questions": len(pipeline.pending),
            "board": {True: "found", False: "lost", None: "looking"}[link.board.found],
        }
        corners = pipeline.tracker.corners
        if corners is not None and frame is not None:
            import numpy as np

            height, width = frame.shape[:2]
            report["grid"] = {"corners": np.asarray(corners, float).reshape(4, 2).tolist(),
                              "width": int(width), "height": int(height)}
        return report

    def _keep_learnt(self, pipeline: Pipeline, folder: Path | None, samples_at_start: int
                     ) -> None:
        """The tiles of the moves confirmed meanwhile, learnt by the profile, kept for the
        table's next pipeline."""
        profile = pipeline.profile
        if profile is None or folder is None:
            return
        try:
            pipeline.finish_learning()
            if len(profile.labels) != samples_at_start:
                profile.save(folder)
        except OSError as exc:
            log.warning("cannot save the table's profile in %s: %s", folder, exc)
