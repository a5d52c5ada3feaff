"""Camera pages and their endpoints: live preview, calibration, and a phone as the camera.

The camera pipeline runs elsewhere; these are the places where it meets the web server:

* it publishes the newest frame and the grid it found with
  ``store.frames.latest(game_id).set_frame(jpeg)`` / ``.set_grid(GridCorners)`` (or by posting
  ``/api/games/<id>/grid``), and the preview page shows them;
* a phone's browser posts JPEG frames to ``/api/games/<id>/frames``; a frame source reads them
  from ``store.frames.pushed(game_id)`` (a :class:`webui.frames.PushedFrames`), or, on a server
  that runs the tables' pipelines itself (``tilecam serve``), they are handed to the table's
  pipeline process (:mod:`webui.table_cameras`);
* the calibration page stores the corners a person tapped, the empty board and a known layout
  (``store.calibration(game_id)``).

A phone's camera (``getUserMedia``) is only available to pages from a *secure context*: HTTPS,
or ``http://localhost``.  On a local network, serve over HTTPS with a self-signed certificate::

    openssl req -x509 -newkey rsa:2048 -nodes -days 365 -subj "/CN=tilecam" \\
        -keyout key.pem -out cert.pem
    tilecam run --cert cert.pem --key key.pem

and accept the certificate warning once on the phone.
"""

from __future__ import annotations

import re

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from scorer.squares import SIZE
from webui.api import get_store, request_data, require_game, require_pin
from webui.frames import FrameError, GridCorners, check_jpeg
from webui.store import StoreError
from webui.table_cameras import TableCameras, game_over, table_cameras

bp = Blueprint("camera", __name__)


@bp.get("/games/<game_id>/camera")
def preview_page(game_id: str) -> str:
    require_game(game_id)
    return render_template("camera.html", state=get_store().state(game_id))


@bp.get("/games/<game_id>/calibrate")
def calibrate_page(game_id: str) -> str:
    require_game(game_id)
    return render_template("calibrate.html", state=get_store().state(game_id))


@bp.get("/games/<game_id>/phone")
def phone_page(game_id: str) -> str:
    require_game(game_id)
    return render_template("phone.html", state=get_store().state(game_id))


@bp.get("/api/games/<game_id>/frame.jpg")
def latest_frame(game_id: str) -> Response:
    require_game(game_id)
    frames = get_store().frames
    jpeg = frames.latest(game_id).jpeg
    if jpeg is None:
        raise StoreError("no_frame", "no camera frame has arrived for this game yet", 404)
    response = Response(jpeg, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/api/games/<game_id>/grid")
def grid(game_id: str) -> Response:
    require_game(game_id)
    latest = get_store().frames.latest(game_id)
    found = latest.grid
    return jsonify(grid=None if found is None else found.to_json(), updated=latest.updated)


@bp.post("/api/games/<game_id>/grid")
def set_grid(game_id: str) -> Response:
    data = request_data()
    require_pin(game_id, data)
    try:
        corners = GridCorners.from_json(data)
    except FrameError as exc:
        raise StoreError("bad_grid", str(exc)) from None
    get_store().frames.latest(game_id).set_grid(corners)
    return jsonify(ok=True, grid=corners.to_json())


def _frame_body() -> bytes:
    limit = int(current_app.config["MAX_FRAME_BYTES"])
    if request.content_length is not None and request.content_length > limit:
        raise StoreError("too_large", f"a frame is at most {limit // 1024} KB", 413)
    upload = request.files.get("frame")
    data = upload.read(limit + 1) if upload is not None else request.get_data(cache=False)
    if len(data) > limit:
        raise StoreError("too_large", f"a frame is at most {limit // 1024} KB", 413)
    return data


@bp.post("/api/games/<game_id>/frames")
def push_frame(game_id: str) -> tuple[Response, int]:
    require_pin(game_id)
    jpeg = _frame_body()
    frames = get_store().frames
    cameras = table_cameras(current_app)
    if cameras is not None:
        # A server that runs the pipelines itself (tilecam serve): the frame goes to the
        # table's pipeline process, whichever of the server's processes received it.
        return forward_frame(cameras, game_id, jpeg)
    try:
        frames.pushed(game_id).push(jpeg)
    except FrameError as exc:
        raise StoreError("bad_frame", str(exc), 415) from None
    # Until the pipeline publishes its own annotated frame, preview what the phone sends.
    frames.latest(game_id).set_frame(jpeg)
    queue = frames.pushed(game_id)
    return jsonify(ok=True, queued=len(queue), dropped=queue.dropped), 202


def forward_frame(cameras: TableCameras, game_id: str, jpeg: bytes) -> tuple[Response, int]:
    try:
        check_jpeg(jpeg)
    except FrameError as exc:
        raise StoreError("bad_frame", str(exc), 415) from None
    latest = get_store().frames.latest(game_id)
    latest.set_frame(jpeg)
    if game_over(game_id):
        return jsonify(ok=True, pipeline={"state": "stopped", "reason": "game_over"}), 202
    pin = request.headers.get("X-Game-Pin") or request.form.get("pin") or ""
    status = cameras.frame(game_id, jpeg, pin)
    grid = status.get("grid")
    if grid is not None:
        # The grid the table's pipeline found, for this process's preview page.
        try:
            latest.set_grid(GridCorners.from_json(grid))
        except FrameError:
            latest.set_grid(None)
    return jsonify(ok=True, pipeline=status), 202


@bp.get("/api/games/<game_id>/calibration")
def calibration(game_id: str) -> Response:
    require_game(game_id)
    saved = get_store().calibration(game_id)
    return jsonify(calibration={
        kind: {"at": entry["at"], "data": entry["data"], "has_image": entry["image"] is not None}
        for kind, entry in saved.items()
    })


@bp.post("/api/games/<game_id>/calibration/<kind>")
def save_calibration(game_id: str, kind: str) -> Response:
    data = request_data()
    require_pin(game_id, data)
    store = get_store()
    if kind == "corners":
        try:
            corners = GridCorners.from_json(data)
        except FrameError as exc:
            raise StoreError("bad_grid", str(exc)) from None
        image = store.frames.latest(game_id).jpeg
        store.save_calibration(game_id, "corners", corners.to_json(), image)
        store.frames.latest(game_id).set_grid(corners)
        return jsonify(ok=True, saved="corners")
    if kind not in ("empty", "layout"):
        raise StoreError("not_found", "calibration is corners, empty or layout", 404)
    image = store.frames.latest(game_id).jpeg
    if image is None:
        raise StoreError("no_frame", "no camera frame to capture yet: start a camera first", 409)
    payload: dict[str, object] = {}
    if kind == "layout":
        rows = data.get("rows")
        if isinstance(rows, str):
            rows = [r for r in re.split(r"[\r\n]+", rows) if r.strip()]
        if (not isinstance(rows, list) or len(rows) != SIZE
                or not all(isinstance(r, str) and len(r.strip()) == SIZE for r in rows)):
            raise StoreError("bad_layout",
                             f"a layout is {SIZE} rows of {SIZE} characters ('.' = empty)")
        payload["rows"] = [r.strip() for r in rows]
    store.save_calibration(game_id, kind, payload, image)
    return jsonify(ok=True, saved=kind)
