"""A club night: an *event* of many tables playing at once, and the director's page over them.

``POST /api/events``                  set up an event: ``{"name", "pin": the director's PIN,
                                      "tables": [{"name", "players": [...], "pin"}, ...]}``
                                      (one game per table; the director's PIN changes any of
                                      them, each table's PIN only its own)
``GET  /api/events``                  every event, newest first (id, name, created, tables)
``GET  /api/events/<id>``             every table in brief and the standings (JSON)
``GET  /api/events/<id>/stream``      the same as server-sent ``overview`` events, again on
                                      every change of any table's game
``GET  /events/<id>``                 the director's page: every board in miniature, scores,
                                      whose turn, questions waiting, results and standings
``GET  /events/<id>/records.zip``     every table's game record (GCG) and the standings (CSV)
                                      in one archive

Watching is open, as for a game's scoreboard; setting up needs nothing but choosing the PINs.
One stream per director's screen carries all tables: a browser opens only a few connections to
one server, far fewer than a club has tables.
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Iterator, Mapping
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from webui.api import get_store, request_data
from webui.store import GameStore, StoreError, premium_rows

bp = Blueprint("club", __name__)


def create_event_from(data: Mapping[str, Any]) -> str:
    """Set up the event ``data`` describes (the JSON of ``POST /api/events``; the setup page
    sends the same); its id, or the :class:`StoreError` naming the field at fault."""
    tables = data.get("tables")
    if not isinstance(tables, list):
        raise StoreError("wrong_type", "tables must be a list of {name, players, pin}",
                         field="tables")
    return get_store().create_club_event(data.get("name"), pin=data.get("pin"), tables=tables)


@bp.post("/api/events")
def create_event() -> tuple[Response, int]:
    event_id = create_event_from(request_data())
    return jsonify(ok=True, id=event_id, overview=get_store().club_overview(event_id)), 201


@bp.get("/api/events")
def list_events() -> Response:
    return jsonify(events=get_store().list_club_events())


@bp.get("/api/events/<event_id>")
def overview(event_id: str) -> Response:
    return jsonify(get_store().club_overview(event_id))


def overview_stream(store: GameStore, event_id: str, heartbeat: float,
                    max_events: int | None = None) -> Iterator[str]:
    """SSE text for one director's screen: the overview at once, then again whenever a game
    of the event changes (several changes close together may come as one)."""
    seen: dict[str, int] = {}
    sent = 0
    yield "retry: 1000\n\n"
    while max_events is None or sent < max_events:
        current = store.wait_for_club_change(event_id, seen, heartbeat)
        if current == seen:
            yield ": keep-alive\n\n"
            continue
        # Only the first overview asks a shared database; later ones follow its news.
        brief = store.club_overview(event_id, fresh=sent == 0)
        seen = brief["versions"]
        sent += 1
        yield f"event: overview\ndata: {json.dumps(brief, separators=(',', ':'))}\n\n"


@bp.get("/api/events/<event_id>/stream")
def stream(event_id: str) -> Response:
    store = get_store()
    store.club_event(event_id)  # 404 before the stream starts
    heartbeat = float(current_app.config["SSE_HEARTBEAT"])
    response = Response(
        overview_stream(store, event_id, heartbeat, request.args.get("max_events", type=int)),
        mimetype="text/event-stream",
    )
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/events/<event_id>")
def director(event_id: str) -> str:
    return render_template("director.html", overview=get_store().club_overview(event_id),
                           premium=premium_rows())


@bp.get("/events/<event_id>/records.zip")
def records(event_id: str) -> Response:
    from webui.api import export_gcg

    store = get_store()
    brief = store.club_overview(event_id)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        for table in brief["tables"]:
            # The same record as each game's own download, so the two never differ.
            gcg = export_gcg(table["game_id"]).get_data()
            bundle.writestr(f"{table['number']:02d}-{slug(table['name'])}.gcg", gcg)
        text = io.StringIO()
        writer = csv.writer(text)
        writer.writerow(["rank", "player", "played", "wins", "spread"])
        for rank, row in enumerate(brief["standings"], start=1):
            writer.writerow([rank, row["player"], row["played"], row["wins"], row["spread"]])
        bundle.writestr("standings.csv", text.getvalue())
    response = Response(archive.getvalue(), mimetype="application/zip")
    response.headers["Content-Disposition"] = (
        f'attachment; filename="tilecam-event-{event_id}.zip"')
    return response


def slug(name: str) -> str:
    """A table's name as part of a file name.

    >>> slug("Table 3: Ann vs Bob")
    'table-3-ann-vs-bob'
    """
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "table"

