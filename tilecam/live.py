"""A running camera pipeline joined to the web pages: moves, questions, frames and calibration.

:class:`PageLink` stands between one :class:`pipeline.Pipeline` and one game of a
:class:`webui.store.GameStore`, inside the process that serves the pages:

- every turn the pipeline scores goes to the game through the JSON API, with the game's PIN,
  exactly as a camera elsewhere would send it: new tiles to ``POST /api/games/<id>/placements``,
  a withdrawn phony to ``.../withdraw``, a pass or an exchange to ``.../pass`` / ``.../exchange``,
  an earlier tile the turn showed to be misread to ``.../correct`` before the turn itself;
  every open scoreboard then updates at once (server-sent events);
- a question the pipeline holds a turn for (a blank's letter the word list cannot settle, a
  letter read without confidence, a placement the rules refuse, a still without new tiles) is
  put on the page (``POST .../questions``), and the players' answer there is handed back to the
  pipeline, which then scores the turn;
- what the players change on the page (a pass, an exchange, an undo, a corrected letter, a
  challenge) is copied back into the pipeline's game, so the board it reads against is the
  page's board;
- the newest frame, with the grid the tracker uses, is shown on the camera preview page; when no
  board is found the frame says so;
- a layout or an empty board captured on the calibration page teaches the pipeline's profile
  (:meth:`calibration.profile.Profile.extend`) and, with ``--profile``, is saved.  Learning
  takes a second or more (each tile is learnt sharp and blurred), so it is done by a worker
  thread while frames go on flowing; the pipeline then starts afresh with the new profile and
  goes on from the view of the board the previous one had settled on, so that clearing the
  layout away while it learnt is seen as such.

The page is the authority: when it refuses a move the pipeline scored (the game disagrees), the
pipeline's game is replaced by the page's and the refusal is reported.

:func:`start_server` serves the pages from a background thread.
"""

from __future__ import annotations

import copy
import logging
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from scorer.squares import Square

if TYPE_CHECKING:
    from flask import Flask

    from calibration.profile import Profile
    from pipeline import MoveReport, Pipeline, Question
    from tracker import Tracker
    from webui.store import GameStore

log = logging.getLogger(__name__)

#: Seconds between two frames published to the preview page (encoding one costs a few ms).
PREVIEW_INTERVAL = 0.4
#: JPEG quality of preview frames.
PREVIEW_QUALITY = 80
#: Seconds without a failed search after which a lost board counts as found again.
BOARD_FOUND_AFTER = 3.0
#: Largest distance (a share of the board's side) between the corners of the view a previous
#: tracker settled on and those of the new pipeline's tracker for the view to be carried over.
CARRY_VIEW_TOLERANCE = 1 / 60

#: The store's question kind for each kind of pipeline question.
QUESTION_KINDS = {
    "blank": "blank_tile",
    "letter": "unsure_letter",
    "placement": "refused_placement",
    "no_placement": "no_placement",
    "split": "split_moves",
}


class LinkError(RuntimeError):
    """The page refused something the pipeline sent (says what and why)."""


# ----------------------------------------------------------------------------------- server


@dataclass
class LiveServer:
    """The pages served from a background thread; :meth:`stop` ends it."""

    server: Any
    thread: threading.Thread
    host: str
    port: int
    scheme: str = "http"
    #: the port asked for when it was taken and another was used instead
    wanted_port: int | None = None

    def url(self, path: str = "/", host: str | None = None) -> str:
        """The address of ``path`` as a browser on this computer opens it."""
        shown = host or ("127.0.0.1" if self.host in ("0.0.0.0", "", "::") else self.host)
        if ":" in shown:
            shown = f"[{shown}]"
        return f"{self.scheme}://{shown}:{self.port}{path}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def start_server(app: Flask, host: str, port: int, *, ssl_context: Any = None,
                 any_port: bool = True, quiet: bool = True) -> LiveServer:
    """Serve ``app`` on ``host``:``port`` from a daemon thread (Werkzeug's threaded server,
    as ``tilecam serve`` uses: every open scoreboard holds a stream).

    When the port is taken and ``any_port`` is set, a free port is used instead (the returned
    server's ``wanted_port`` says so); otherwise the :class:`OSError` is raised.
    """
    from werkzeug.serving import make_server

    if quiet:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    wanted = None
    try:
        server = make_server(host, port, app, threaded=True, ssl_context=ssl_context)
    except OSError:
        if not any_port or port == 0:
            raise
        wanted = port
        server = make_server(host, 0, app, threaded=True, ssl_context=ssl_context)
    thread = threading.Thread(target=server.serve_forever, name="tilecam-pages", daemon=True)
    thread.start()
    return LiveServer(server, thread, host, int(server.server_port),
                      "https" if ssl_context else "http", wanted)


def network_addresses() -> list[str]:
    """IPv4 addresses of this computer other than loopback (where phones on the same network
    reach it), as far as its name resolves."""
    try:
        _, _, addresses = socket.gethostbyname_ex(socket.gethostname())
    except OSError:
        return []
    return sorted({a for a in addresses if not a.startswith("127.")})


# ------------------------------------------------------------------------------------- link


@dataclass
class _Asked:
    """A pipeline question put on the page."""

    pipeline_id: int
    store_id: int
    kind: str


@dataclass
class BoardStatus:
    """Whether the board is in view, as last seen (for messages and the preview)."""

    found: bool | None = None  # None: not known yet
    last_failure: float = 0.0  # clock of the last failed search for the board
    lost_count: int = 0  # the tracker's count of failed searches, as last seen
    message: str = ""


class PageLink:
    """One pipeline joined to one game on the pages (see the module notes).

    ``app`` is the Flask application serving the pages (its JSON API is called in-process,
    through Flask's test client: the same routes, checks and PIN as over the network);
    ``game_id`` and ``pin`` name the game.  Pipeline calls made through the link
    (:meth:`feed`, :meth:`finish`, :meth:`poll`) are serialised by :attr:`lock`, so a
    background thread may :meth:`poll` for answers while frames are fed.

    ``say`` receives one line per thing worth telling the person at the computer (moves,
    questions, refusals, calibration, the board lost and found).
    """

    def __init__(self, app: Flask, game_id: str, pin: str, pipeline: Pipeline, *,
                 say: Callable[[str], None] | None = None,
                 profile_dir: Path | None = None,
                 rebuild: Callable[[Profile | None, Pipeline], Pipeline] | None = None) -> None:
        from webui import STORE_KEY

        self.app = app
        self.store: GameStore = app.extensions[STORE_KEY]
        self.game_id = game_id
        self.pin = pin
        self.pipeline = pipeline
        self.say = say or (lambda line: None)
        self.profile_dir = profile_dir
        self._rebuild = rebuild
        self.lock = threading.RLock()
        self._client = app.test_client()
        self._asked: dict[int, _Asked] = {}  # by pipeline question id
        self._version = self.store.version(game_id)
        self._calibration_seen: dict[str, float] = {
            kind: entry["at"] for kind, entry in self.store.calibration(game_id).items()
        }
        self._pending_profile: Profile | None = None
        #: captures from the calibration page waiting to be learnt, oldest first, and the
        #: worker thread learning them (both guarded by :attr:`lock`)
        self._to_learn: list[dict[str, Any]] = []
        self._learner: threading.Thread | None = None
        #: calibration layout standing on the board, until the new pipeline is told of it
        self._on_board: list[str] | None = None
        self._last_preview = 0.0
        self.board = BoardStatus()
        #: A line to show on the preview picture while it returns one (a table whose club
        #: server is away says so, and how many events wait)
        self.notice: Callable[[], str | None] | None = None
        self.reports: list[MoveReport] = []
        self.refused: list[str] = []

    # -------------------------------------------------------------- the API, in-process

    def post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """POST to ``/api/games/<id>/<path>`` with the PIN; the JSON answer, or
        :class:`LinkError` with the page's message when it refuses."""
        response = self._client.post(
            f"/api/games/{self.game_id}/{path}", json=body or {},
            headers={"X-Game-Pin": self.pin},
        )
        data = response.get_json(silent=True) or {}
        if response.status_code >= 400:
            raise LinkError(f"{path}: {data.get('message') or response.status}")
        return data

    def _note_own_change(self, result: dict[str, Any]) -> None:
        """The game moved on by our own request: remember its version, and pull in the page's
        game when someone else changed it in between."""
        version = result.get("version", result.get("state", {}).get("version"))
        if version is None:
            return
        if version != self._version + 1:
            self._sync_game()
        self._version = int(version)

    # ------------------------------------------------------------------ feeding

    def feed(self, time_: float, frame: np.ndarray) -> list[MoveReport]:
        """One frame through the pipeline; its scored turns sent to the page."""
        with self.lock:
            self._sync_if_changed()
            reports = self.pipeline.feed(time_, frame)
            self._after(reports)
            self._watch_board()
        self.preview(frame)
        return reports

    def finish(self, time_: float = 0.0) -> list[MoveReport]:
        """The source ended: the provisional move is committed and sent."""
        with self.lock:
            reports = self.pipeline.finish(time_)
            self._after(reports)
        return reports

    def poll(self) -> list[MoveReport]:
        """Take in what the players did on the page since the last look: answers to held
        questions (the turns they let through are sent), moves and corrections (copied into
        the pipeline's game), and calibration captures."""
        reports: list[MoveReport] = []
        with self.lock:
            self._sync_if_changed()
            for asked in list(self._asked.values()):
                question = self.store.question(self.game_id, asked.store_id)
                if question.answer is None:
                    continue
                del self._asked[asked.pipeline_id]
                if not any(q.id == asked.pipeline_id for q in self.pipeline.pending):
                    continue
                answer = str(question.answer).strip()
                if asked.kind in ("blank", "letter"):
                    letter = self._one_letter(answer)
                    if letter is None:
                        self.say(f"       {answer!r} answered on the page is not one letter: "
                                 "asked again")
                        pending = next(q for q in self.pipeline.pending
                                       if q.id == asked.pipeline_id)
                        self._asked[asked.pipeline_id] = self.ask(pending)
                        continue
                    answer = letter.lower() if asked.kind == "blank" else letter
                self.say(f"       answered on the page: {answer}")
                out = self.pipeline.answer(asked.pipeline_id, answer)
                self._after(out)
                reports.extend(out)
            self._check_calibration()
        return reports

    def _one_letter(self, text: str) -> str | None:
        """``text`` as one letter of the game's tile set (upper case), or None."""
        from scorer.tiles import BLANK, TileError

        tileset = self.pipeline.tileset
        try:
            tiles = tileset.split(text.upper())
        except TileError:
            return None
        if len(tiles) != 1 or tiles[0] == BLANK or tiles[0] not in tileset.counts:
            return None
        return tiles[0]

    def wait_and_poll(self, timeout: float) -> list[MoveReport]:
        """Wait up to ``timeout`` seconds for the game to change on the page, then :meth:`poll`
        (what a background thread does in a loop)."""
        self.store.wait_for_change(self.game_id, self._version, timeout)
        return self.poll()

    # ------------------------------------------------------------------ turns out

    def _after(self, reports: Sequence[MoveReport]) -> None:
        self.send(reports)
        self._ask_pending()

    def send(self, reports: Sequence[MoveReport]) -> None:
        """Send scored turns to the page; one it refuses is reported (``say``, ``refused``)
        and the pipeline's game becomes the page's again."""
        with self.lock:
            for report in reports:
                self.reports.append(report)
                try:
                    self.publish(report)
                except LinkError as exc:
                    self.refused.append(str(exc))
                    self.say(f"       the page refused turn {report.turn}: {exc}; "
                             "the page's game stands")
                    self._sync_game()

    def publish(self, report: MoveReport) -> dict[str, Any] | None:
        """Send one scored turn to the page (see the module notes); None for a turn that
        carries nothing to send (unresolved).

        Earlier tiles this turn showed to be misread (``report.corrected``) are corrected on
        the page first (``POST .../correct``), so that the new tiles join the board as played.
        """
        for fix in report.corrected:
            self._note_own_change(self.post("correct", {"square": fix.square.name,
                                                        "letter": fix.letter}))
        event = report.event
        if report.kind == "play" and event is not None and event.play is not None:
            tiles = {sq.name: letter for sq, letter in event.play.placement.tiles}
            result = self.post("placements", {"tiles": tiles})
        elif report.kind == "withdrawn":
            result = self.post("withdraw")
        elif report.kind == "undone":
            # Tiles of the last photo that were none (a finger): the play is taken back, and
            # made again without them in the report that follows.
            result = self.post("undo")
        elif report.kind == "pass":
            result = self.post("pass")
        elif report.kind == "start":
            tiles = {sq.name: letter for sq, letter in self.pipeline.game.start_position}
            result = self.post("start-position", {"tiles": tiles})
        elif report.kind == "exchange":
            count = event.count if event is not None and getattr(event, "count", None) else None
            tiles = report.word or (str(count) if count else "")
            result = self.post("exchange", {"tiles": int(tiles) if tiles.isdigit() else tiles})
        else:
            return None
        self._note_own_change(result)
        return result

    def enter(self, action: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """A turn the camera cannot see (a pass, an exchange), as the page's buttons enter
        it.  The caller enters it in the pipeline's game too."""
        with self.lock:
            result = self.post(action, body)
            self._note_own_change(result)
            return result

    # ------------------------------------------------------------------ questions

    def _ask_pending(self) -> None:
        for question in self.pipeline.pending:
            if question.id in self._asked:
                continue
            self._asked[question.id] = self.ask(question)
            self.say(f"       question for the players: {question.prompt} (on the page)")

    def ask(self, question: Question) -> _Asked:
        """Put one pipeline question on the page."""
        kind = QUESTION_KINDS.get(question.kind, question.kind)
        body: dict[str, Any] = {
            "kind": kind, "prompt": question.prompt, "camera_question": question.id,
            # The reader's guess first, then the other letters that would fit.
            "options": list(dict.fromkeys(
                ([question.guess] if question.guess else []) + list(question.choices))),
        }
        if question.guess:
            body["guess"] = question.guess
        if question.square is not None:
            body["squares"] = [question.square.name]
        result = self.post("questions", body)
        self._note_own_change(result)
        return _Asked(question.id, int(result["question"]["qid"]), question.kind)

    def asked_on_page(self, pipeline_question_id: int) -> int | None:
        """The page's number of a pipeline question put there (None if it was not)."""
        asked = self._asked.get(pipeline_question_id)
        return None if asked is None else asked.store_id

    # ------------------------------------------------------------------ the page's game

    def _sync_if_changed(self) -> None:
        version = self.store.version(self.game_id)
        if version != self._version:
            self._sync_game()
            self._version = version

    def _sync_game(self) -> None:
        """Make the pipeline's game a copy of the page's (the page is the authority)."""
        store = self.store
        # The store's lock keeps the game still while it is copied (as its own API does).
        with store._lock:
            live = store.live(self.game_id)
            game = copy.deepcopy(live.game)
            self._version = live.version
        old_board = self.pipeline.game.board
        before = old_board.rows()
        self.pipeline.game = game
        after = game.board.rows()
        if after != before:
            self.pipeline.tracker.confirm_board(after)
            # A letter corrected on the page: the profile learnt that tile as the old letter.
            for index, (was, now) in enumerate(zip(old_board.cells, game.board.cells,
                                                   strict=True)):
                if was is not None and now is not None and was != now:
                    self.pipeline.relabel(Square(index // 15, index % 15), was, now)

    # ------------------------------------------------------------------ preview

    def _watch_board(self) -> None:
        """Say when the board goes out of view (the tracker failed to find it) and when it is
        found again; the preview shows the former."""
        tracker = self.pipeline.tracker
        status = self.board
        now = time.monotonic()
        lost = tracker.counters.get("lost", 0)
        if lost < status.lost_count:  # a new pipeline (new calibration) counts afresh
            status.lost_count = lost
        if lost > status.lost_count:
            status.lost_count = lost
            status.last_failure = now
            if status.found is not False:
                status.found = False
                status.message = ("no board found in the picture: the whole board must be in "
                                  "view (or tap its corners on the calibration page); trying "
                                  "again every second")
                self.say(f"tilecam: {status.message}")
        elif tracker.corners is not None and status.found is not True and (
            status.found is None or now - status.last_failure >= BOARD_FOUND_AFTER
        ):
            status.found, status.message = True, ""
            self.say("tilecam: board found in the picture")

    def preview(self, frame: np.ndarray, *, force: bool = False) -> bool:
        """Show ``frame`` on the camera preview page with the grid the tracker uses (at most
        every :data:`PREVIEW_INTERVAL` seconds unless ``force``); True when published."""
        from webui.frames import GridCorners

        now = time.monotonic()
        if not force and now - self._last_preview < PREVIEW_INTERVAL:
            return False
        self._last_preview = now
        lines: list[str] = []
        if self.board.found is False:
            lines += ["No board found: get the whole board in view",
                      "or tap its corners on the calibration page"]
        notice = self.notice() if self.notice is not None else None
        if notice:
            lines.append(notice)
        shown = annotate(frame, *lines) if lines else frame
        ok, jpeg = cv2.imencode(".jpg", shown, [cv2.IMWRITE_JPEG_QUALITY, PREVIEW_QUALITY])
        if not ok:
            return False
        latest = self.store.frames.latest(self.game_id)
        latest.set_frame(jpeg.tobytes())
        corners = self.pipeline.tracker.corners
        height, width = frame.shape[:2]
        latest.set_grid(None if corners is None else GridCorners(
            tuple((float(x), float(y)) for x, y in np.asarray(corners).reshape(4, 2)),
            int(width), int(height),
        ))
        return True

    # ------------------------------------------------------------------ calibration

    def _check_calibration(self) -> None:
        """Captures made on the calibration page since the last look are handed to the
        learning thread (:meth:`_learn_captures`), which teaches them to a copy of the profile.

        A captured layout or empty board means the board is being calibrated, not played on:
        once learnt, the pipeline starts afresh with the new profile, whatever it was making of
        the calibration tiles (a question about them is closed), and the layout's tiles are
        expected to be cleared off before play (their removal is no move).  New corners alone
        are taken between turns."""
        saved = self.store.calibration(self.game_id)
        fresh = {kind: entry for kind, entry in saved.items()
                 if entry["at"] > self._calibration_seen.get(kind, 0.0)}
        for kind, entry in fresh.items():
            self._calibration_seen[kind] = entry["at"]
        if fresh:
            self._to_learn.append(fresh)
            if self._learner is None:
                self._learner = threading.Thread(target=self._learn_captures,
                                                 name="tilecam-calibration")
                self._learner.start()
        self._take_profile()

    def _learn_captures(self) -> None:
        """The learning thread: teaches a copy of the profile each batch of captures, then
        hands it over (:meth:`_take_profile`) and saves it, until no capture waits.

        The frame loop is never held up by learning: the link's lock is held only to take a
        batch and the profile to copy, and to hand the learnt profile over."""
        from calibration.profile import Profile

        while True:
            with self.lock:
                if not self._to_learn:
                    self._learner = None
                    return
                fresh = self._to_learn.pop(0)
                pipeline = self.pipeline
                pipeline.finish_learning()  # the moves it is learning from are in the copy
                profile = copy.deepcopy(self._pending_profile or pipeline.profile or Profile(
                    tileset=pipeline.tileset.code))
                frame_size = self._frame_size() if "corners" in fresh else None
            try:
                learnt, layout = self._learn(profile, fresh, frame_size)
            except Exception:  # noqa: BLE001 - the game goes on without this calibration
                log.exception("learning the calibration page's captures failed")
                continue
            if not learnt:
                continue
            with self.lock:
                self._pending_profile = profile
                if layout is not None:
                    self._on_board = layout
                self._take_profile()
            if self.profile_dir is not None:
                try:
                    profile.save(self.profile_dir)
                    self.say(f"tilecam: profile saved in {self.profile_dir}")
                except OSError as exc:
                    self.say(f"tilecam: cannot save the profile in {self.profile_dir}: "
                             f"{exc.strerror or exc}")

    def _learn(self, profile: Profile, fresh: dict[str, Any],
               frame_size: tuple[int, int] | None) -> tuple[bool, list[str] | None]:
        """Teach ``profile`` one batch of captures (by kind); whether it learnt anything, and
        the layout standing on the board (None for none)."""
        from calibration.profile import ProfileError, parse_board_rows
        from vision.sources import decode_image

        tileset = self.pipeline.tileset
        learnt = False
        layout: list[str] | None = None
        if "corners" in fresh:
            profile.corners = _scaled_corners(fresh["corners"]["data"], frame_size)
            self.say("tilecam: grid corners taken from the calibration page")
            learnt = True
        for kind in ("empty", "layout"):
            if kind not in fresh or fresh[kind]["image"] is None:
                continue
            image = decode_image(fresh[kind]["image"])
            rows = (["." * 15] * 15 if kind == "empty"
                    else fresh[kind]["data"].get("rows", []))
            try:
                rows = parse_board_rows(rows, tileset)
                if image is None:
                    raise ProfileError("the captured frame is not a readable image")
                report = profile.extend(image, rows)
            except (ProfileError, ValueError) as exc:
                self.say(f"tilecam: the {kind} captured on the calibration page could not "
                         f"be used: {exc}")
                continue
            learnt = True
            layout = rows
            what = ("the empty board" if kind == "empty"
                    else f"the layout: {report.letters} letters, {report.blanks} blanks")
            self.say(f"tilecam: calibrated from {what} (calibration page)")
            if report.disagreements:
                squares = ", ".join(f"{Square(r, c).name}:{t}"
                                    for r, c, t in report.disagreements[:8])
                self.say(f"tilecam: no letter seen where the layout has one: {squares}")
        if learnt:
            profile.classifier()  # built here rather than at the next frame's first read
        return learnt, layout

    def _take_profile(self) -> None:
        if self._pending_profile is None or self._rebuild is None:
            return
        pipeline = self.pipeline
        if self._on_board is None and (pipeline.pending or pipeline.tracker.provisional):
            return  # in the middle of a turn: the next look takes it
        for asked in self._asked.values():
            # Questions about calibration tiles have no answer: close them on the page.
            try:
                self.post(f"questions/{asked.store_id}/answer",
                          {"answer": "calibration tiles, not a move"})
            except LinkError as exc:
                log.info("question %d could not be closed: %s", asked.store_id, exc)
        self._asked.clear()
        if self._on_board is not None and pipeline.game.start_position and not (
                pipeline.game.events):
            # The layout was taken for the position of a game joined in progress: the board
            # is being calibrated, and the game starts from an empty one.
            try:
                self._note_own_change(self.post("start-position", {"tiles": {}}))
                pipeline.game.set_up({})
            except LinkError as exc:
                log.info("the calibration layout stays the game's start position: %s", exc)
        self.pipeline = self._rebuild(self._pending_profile, pipeline)
        self._pending_profile = None
        if self._on_board is not None:
            self._expect_cleared(self._on_board, pipeline.tracker)
            self._on_board = None
        self._version = self.store.version(self.game_id)

    def _expect_cleared(self, rows: Sequence[str], previous: Tracker | None = None) -> None:
        """Tell the new tracker that the layout's tiles stand on the board but belong to no
        move: it takes them as the last move, so that clearing them away is a withdrawal,
        which the pipeline ignores when the game has no play to withdraw.

        The new tracker goes on from the view the ``previous`` tracker settled on when that
        view shows the layout (:meth:`_carry_view`): the new pipeline arrives once the layout
        is learnt, and the players may have cleared the board by then, which a tracker
        with no view to compare with would not see."""
        tracker = self.pipeline.tracker
        game_rows = self.pipeline.game.board.rows()
        extra = np.array([[ch != "." and game_rows[r][c] == "." for c, ch in enumerate(row)]
                          for r, row in enumerate(rows)], bool)
        if not extra.any():
            return
        if self.pipeline.game.last_play() is not None:
            # Taking them off would withdraw the game's last play: they must be read as new
            # tiles, and the players told.
            self.say("tilecam: take the calibration tiles off the board before the next move")
            return
        # The tracker keeps squares as the camera sees them: upright rows turned back.
        seen = np.rot90(extra, -tracker.orientation)
        if previous is not None:
            self._carry_view(previous, seen)
        tracker.known = tracker.known | seen
        tracker.last_move = {(int(r), int(c)) for r, c in np.argwhere(seen)}

    def _carry_view(self, previous: Tracker, layout: np.ndarray) -> bool:
        """Give the new pipeline's tracker the settled view of ``previous`` (and its corners)
        to compare the next frames with, when that view holds every tile of the ``layout``
        (camera's view) and was taken with the same corners (within
        :data:`CARRY_VIEW_TOLERANCE`); whether it was given.

        A view without the whole layout is not carried: its tiles may have been cleared away
        already or not yet been seen, and the new tracker cannot tell which."""
        tracker = self.pipeline.tracker
        view = previous.stable
        if view is None or tracker.stills or previous.stills:
            return False
        if not (layout <= previous.known).all():
            return False
        if tracker.corners is not None:
            corners = np.asarray(tracker.corners, np.float64).reshape(4, 2)
            side = float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).mean())
            if np.abs(corners - view.corners.reshape(4, 2)).max() > CARRY_VIEW_TOLERANCE * side:
                return False
        tracker.corners = view.corners.copy()
        tracker.stable = view
        return True

    def _frame_size(self) -> tuple[int, int] | None:
        jpeg = self.store.frames.latest(self.game_id).jpeg
        if jpeg is None:
            return None
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_REDUCED_GRAYSCALE_2)
        if image is None:
            return None
        return image.shape[1] * 2, image.shape[0] * 2


def _scaled_corners(data: dict[str, Any], frame_size: tuple[int, int] | None) -> np.ndarray:
    """Tapped corners (in the picture the page showed, ``width`` x ``height``) in the pixels
    of the frames the pipeline gets."""
    points = np.asarray(data["corners"], np.float32).reshape(4, 2)
    if frame_size is not None and data.get("width") and data.get("height"):
        points[:, 0] *= frame_size[0] / float(data["width"])
        points[:, 1] *= frame_size[1] / float(data["height"])
    return points


def annotate(frame: np.ndarray, *lines: str) -> np.ndarray:
    """A copy of ``frame`` with ``lines`` written on a dark band at the top (for the preview
    page, which shows frames as they are)."""
    out = frame.copy()
    height, width = out.shape[:2]
    scale = max(0.5, width / 1400.0)
    line_h = int(34 * scale)
    band = line_h * len(lines) + int(16 * scale)
    out[:band] = (out[:band] * 0.35).astype(out.dtype)
    for i, text in enumerate(lines):
        y = int(8 * scale) + line_h * (i + 1) - int(8 * scale)
        cv2.putText(out, text, (int(14 * scale), y), cv2.FONT_HERSHEY_SIMPLEX, 0.9 * scale,
                    (255, 255, 255), max(1, int(2 * scale)), cv2.LINE_AA)
    return out

