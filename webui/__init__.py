"""The web pages of tilecam: a live scoreboard, game controls, a dictionary and camera pages.

:func:`create_app` builds the Flask application (the app-factory pattern of Flask's tutorial):

>>> app = create_app({"DATABASE": ":memory:", "TESTING": True})
>>> app.test_client().get("/dictionary?words=qi+xyzzy").status_code
200

Configuration keys (all optional):

``DATABASE``
    SQLite file of the games (default ``$XDG_DATA_HOME/tilecam/games.sqlite3``), or the
    ``postgresql://`` URL of a database that several server processes share.
``MAX_CONTENT_LENGTH``
    Largest request body: 2 MB (word lists and GCG files).  Camera frames have their own,
    smaller limit, ``MAX_FRAME_BYTES`` (1 MB).
``SSE_HEARTBEAT``
    Seconds between keep-alive comments on the live-update streams (15).

Watching is open to anyone who can reach the server; every change to a game needs the game's
PIN (header ``X-Game-Pin``, form field or JSON field ``pin``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from webui.store import GameStore, StoreError, default_database

#: Key of the :class:`~webui.store.GameStore` in ``app.extensions``.
STORE_KEY = "tilecam_store"


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the application.  ``config`` overrides the defaults above (``TESTING`` etc.)."""
    app = Flask(__name__)
    app.config.from_mapping(
        DATABASE=str(default_database()),
        MAX_CONTENT_LENGTH=2 * 1024 * 1024,
        MAX_FRAME_BYTES=1024 * 1024,
        SSE_HEARTBEAT=15.0,
        # Static files may be cached for a few minutes only, so an upgrade shows up soon.
        SEND_FILE_MAX_AGE_DEFAULT=300,
    )
    if config:
        app.config.update(config)
    app.extensions[STORE_KEY] = GameStore(app.config["DATABASE"])

    from webui import (
        analysis,
        api,
        camera,
        club,
        club_setup,
        controls,
        dictionary,
        events,
        scoreboard,
        table_cameras,
    )

    for module in (api, events, scoreboard, controls, dictionary, camera, analysis, club,
                   club_setup, table_cameras):
        app.register_blueprint(module.bp)

    @app.errorhandler(StoreError)
    def store_error(exc: StoreError) -> tuple[Response | str, int]:
        return error_response(exc.code, exc.message, exc.status, exc.field)

    @app.errorhandler(app.extensions[STORE_KEY].database_error)
    def database_error(exc: Exception) -> tuple[Response | str, int]:
        # The database went away (PostgreSQL restarting, a disk failing): nothing of this
        # request was acknowledged, and the next one may work again.  One line in the log,
        # not a traceback per request of the outage.
        app.logger.warning("tilecam: database error: %s", str(exc).strip().splitlines()[0]
                           if str(exc).strip() else type(exc).__name__)
        return error_response("database_unavailable",
                              "the games' database cannot be reached just now: try again", 503)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> tuple[Response | str, int]:
        code = (exc.name or "error").lower().replace(" ", "_")
        status = exc.code or 500
        message = exc.description or exc.name
        if status == 413:
            limit = app.config["MAX_CONTENT_LENGTH"]
            message = f"the upload is too large (limit {limit // 1024} KB)"
        return error_response(code, message, status)

    @app.after_request
    def security_headers(response: Response) -> Response:
        # Everything is served from this server: no CDN, so the policy can be strict.  The
        # phone-camera page needs the camera of its own origin only.
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' blob: data:; media-src 'self' blob: mediastream:;"
            " style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none';"
            " base-uri 'none'; frame-ancestors 'none'",
        )
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    return app


def wants_json() -> bool:
    """API paths and clients that ask for JSON get JSON errors; pages get an HTML page."""
    if request.path.startswith("/api/"):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def error_response(code: str, message: str, status: int,
                   field: str | None = None) -> tuple[Response | str, int]:
    if wants_json():
        if field is not None:
            return jsonify(error=code, message=message, field=field), status
        return jsonify(error=code, message=message), status
    return render_template("error.html", code=code, message=message, status=status), status


__all__ = ["STORE_KEY", "create_app"]
