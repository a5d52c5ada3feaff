"""Live updates: one server-sent-events stream per game.

Every open scoreboard holds ``GET /api/games/<id>/events`` open.  The stream starts with the
current state and then carries each new state version as one ``state`` event whose data is the
whole state as JSON (a few kilobytes: sending it whole means a screen that missed an update, or
reconnects, is never left with a half-applied diff).  The JSON text is built once per version and
shared by every stream.  A comment line goes out every ``SSE_HEARTBEAT`` seconds so that proxies
keep the connection open and a vanished client is noticed (its thread ends on the failed write).

Each stream occupies one server thread while it is open, which is why ``tilecam serve`` runs a
threaded server (Werkzeug's, or gunicorn's threaded workers with ``--workers``).

Where a change comes from does not matter: in one process the store wakes the streams itself;
on PostgreSQL, a change stored by another server process is announced by the database
(LISTEN/NOTIFY), the store replays it onto its own copy of the game and wakes the streams the
same way (see :meth:`webui.store.GameStore.wait_for_change`).
"""

from __future__ import annotations

from collections.abc import Iterator

from flask import Blueprint, Response, current_app, request

from webui.store import GameStore

bp = Blueprint("events", __name__)


def state_stream(store: GameStore, game_id: str, heartbeat: float,
                 max_events: int | None = None) -> Iterator[str]:
    """SSE text for one client: the current state at once, then every new version.

    ``max_events`` ends the stream after that many state events (tests use it; browsers
    leave it unset and reconnect by themselves if the stream ever ends).
    """
    seen = -1
    sent = 0
    # Tell the browser to retry quickly after a restart of the server.
    yield "retry: 1000\n\n"
    while max_events is None or sent < max_events:
        current = store.wait_for_change(game_id, seen, heartbeat)
        if current == seen:
            yield ": keep-alive\n\n"
            continue
        # Once woken, the store holds the new version already: only the first state needs
        # to ask a shared database (one query per stream and change would add up).
        seen, text = store.state_json(game_id, fresh=sent == 0)
        sent += 1
        yield f"id: {seen}\nevent: state\ndata: {text}\n\n"


@bp.get("/api/games/<game_id>/events")
def events(game_id: str) -> Response:
    from webui.api import get_store, require_game

    store = get_store()
    require_game(game_id)
    heartbeat = float(current_app.config["SSE_HEARTBEAT"])
    max_events = request.args.get("max_events", type=int)
    response = Response(
        state_stream(store, game_id, heartbeat, max_events),
        mimetype="text/event-stream",
    )
    response.headers["Cache-Control"] = "no-cache"
    # Tells a buffering reverse proxy (nginx) to pass events through at once.
    response.headers["X-Accel-Buffering"] = "no"
    return response
