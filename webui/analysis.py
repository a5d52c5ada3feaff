"""The analysis of a stored game: for every play, what it could have been.

``GET /games/<id>/analysis`` shows it as a page, ``GET /api/games/<id>/analysis`` as JSON (the
fields of :meth:`scorer.analysis.GameAnalysis.to_dict`, with the word list's name).  Plays are
judged by the game's own word list; the racks are those entered with the moves or imported
with a record (a play without its whole rack gets the same-tiles half only).

An analysis takes about a second of move generation for a whole game, so the result is kept
per game and version: opening the page again costs nothing until the game changes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template

from scorer.analysis import analyse_game
from webui.api import get_store, require_game

bp = Blueprint("analysis", __name__)

#: Key of the analyses kept in ``app.extensions``, and how many games' analyses are kept.
CACHE_KEY = "tilecam_analyses"
CACHE_SIZE = 8

_cache_lock = threading.Lock()


def game_analysis(game_id: str) -> dict[str, Any]:
    """The analysis of the game as it stands now, as a JSON-able dict (kept per version)."""
    require_game(game_id)
    live = get_store().live(game_id)
    # Read before the events: a move made meanwhile then only makes the next visit redo it.
    version = live.version
    cache: OrderedDict[tuple[str, int], dict[str, Any]] = current_app.extensions.setdefault(
        CACHE_KEY, OrderedDict()
    )
    with _cache_lock:
        kept = cache.get((game_id, version))
        if kept is not None:
            cache.move_to_end((game_id, version))
            return kept
    analysis = analyse_game(live.game, live.lexicon)
    result = {"id": game_id, "title": live.settings.title, "lexicon": live.lexicon_label,
              "over": live.game.over} | analysis.to_dict()  # fmt: skip
    with _cache_lock:
        cache[(game_id, version)] = result
        while len(cache) > CACHE_SIZE:
            cache.popitem(last=False)
    return result


@bp.get("/games/<game_id>/analysis")
def analysis_page(game_id: str) -> str:
    return render_template("analysis.html", analysis=game_analysis(game_id))


@bp.get("/api/games/<game_id>/analysis")
def analysis_json(game_id: str) -> Response:
    return jsonify(game_analysis(game_id))
