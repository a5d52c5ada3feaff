"""A phone as the camera of a table: frames posted to any server process reach the camera
pipeline that the server runs for the table.

``tilecam serve`` starts a *supervisor* process beside its web server processes
(``tilecam.table_cameras``); it runs one camera pipeline process per table whose phone is
streaming.  Each web server process (each gunicorn worker) reaches the supervisor through
:class:`TableCameras`: a connection to its Unix socket (``multiprocessing.connection``, which
frames the messages and checks a key that only the server's own processes hold).  A frame a
phone posts to ``/api/games/<id>/frames`` is handed over as it is, and the supervisor answers
at once with how the table's pipeline is doing; it never waits for the pipeline.

``GET /api/games/<id>/pipeline``      how the game's camera pipeline on the server is doing:
                                      ``{"pipeline": {"state": "running"|"starting"|"stopped"|
                                      ..., "pid", "frames", "dropped", "restarts", ...}}``

The messages (pickled dicts, between processes of one server only) are defined here, below the
supervisor that answers them:

* ``{"op": "frame", "game": ID, "pin": PIN, "jpeg": BYTES}``: a frame of the table's camera;
  the PIN (checked by the web server already) lets the pipeline store the moves it finds;
* ``{"op": "status", "game": ID}``: how the table's pipeline is doing.

Both are answered with the table's status (a dict, ``state`` always in it).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from multiprocessing.connection import Client, Connection
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify

from webui.api import get_store, require_game

log = logging.getLogger(__name__)

bp = Blueprint("table_cameras", __name__)

#: Key of the application's configuration that names the supervisor: a
#: :class:`SupervisorAddress` (absent: this server runs no pipelines for phones, and the frames
#: wait for a ``tilecam run`` in the same process, as at home).
CONFIG_KEY = "TABLE_CAMERAS"
#: Key of this process's :class:`TableCameras` in ``app.extensions``.
EXTENSION_KEY = "tilecam_table_cameras"
#: Seconds the supervisor may take to answer before a frame counts as dropped.
ANSWER_TIMEOUT = 2.0

#: States of a table's pipeline, as the supervisor reports them.
STATES = ("starting", "running", "stopping", "stopped", "crashed", "waiting", "busy",
          "unavailable")


@dataclass(frozen=True)
class SupervisorAddress:
    """Where the supervisor listens and the key that opens it."""

    path: str
    authkey: bytes


class TableCameras:
    """This process's connection to the supervisor, shared by its threads (one request at a
    time: each is answered in well under a millisecond).  A lost connection is made again on
    the next request; while the supervisor cannot be reached, frames are dropped and the
    status says so."""

    def __init__(self, address: SupervisorAddress, timeout: float = ANSWER_TIMEOUT) -> None:
        self.address = address
        self.timeout = timeout
        self._lock = threading.Lock()
        self._conn: Connection | None = None

    def frame(self, game_id: str, jpeg: bytes, pin: str) -> dict[str, Any]:
        """Hand one frame to the table's pipeline (started if it is not running); its
        status."""
        return self._ask({"op": "frame", "game": game_id, "pin": pin, "jpeg": jpeg})

    def status(self, game_id: str) -> dict[str, Any]:
        return self._ask({"op": "status", "game": game_id})

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            for attempt in (1, 2):
                try:
                    conn = self._connection()
                    conn.send(request)
                    if not conn.poll(self.timeout):
                        # The answer may still come: a connection out of step is not reused.
                        self._drop()
                        return {"state": "busy", "message": "the camera pipelines' supervisor"
                                " did not answer in time: the frame was dropped"}
                    answer: dict[str, Any] = conn.recv()
                    return answer
                except (OSError, EOFError) as exc:
                    self._drop()
                    if attempt == 2:
                        log.warning("tilecam: the camera pipelines' supervisor cannot be "
                                    "reached: %s", exc)
                        return {"state": "unavailable", "message": "the server's camera "
                                "pipelines cannot be reached just now: frames are dropped"}
        raise AssertionError("unreachable")

    def _connection(self) -> Connection:
        if self._conn is None:
            self._conn = Client(self.address.path, family="AF_UNIX",
                                authkey=self.address.authkey)
        return self._conn

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except OSError:
                pass
            self._conn = None

    def close(self) -> None:
        with self._lock:
            self._drop()


def table_cameras(app: Flask) -> TableCameras | None:
    """The application's link to the supervisor, made on first use (in the process that uses
    it: a gunicorn worker connects after it was forked); None when the server runs none."""
    address = app.config.get(CONFIG_KEY)
    if address is None:
        return None
    cameras = app.extensions.get(EXTENSION_KEY)
    if cameras is None:
        cameras = app.extensions.setdefault(EXTENSION_KEY, TableCameras(address))
    return cameras


def game_over(game_id: str) -> bool:
    """Whether the game has ended (its camera has nothing more to read)."""
    return bool(get_store().live(game_id).game.over)


@bp.get("/api/games/<game_id>/pipeline")
def pipeline_status(game_id: str) -> Response:
    require_game(game_id)
    cameras = table_cameras(current_app)
    if cameras is None:
        return jsonify(pipeline={"state": "unavailable", "message":
                                 "this server runs no camera pipelines (tilecam run does)"})
    return jsonify(pipeline=cameras.status(game_id))
