"""Setting up games, importing them, and the scorekeeper's control page.

The control page itself works through the JSON API (``static/control.js``); the setup and import
forms also work as plain HTML form posts, for a browser without JavaScript.
"""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, url_for
from werkzeug.wrappers import Response

from scorer.tiles import TileSet
from webui.api import (
    FINISH_LINE_TARGETS,
    create_game_from_request,
    get_store,
    import_game_from_request,
    require_game,
)
from webui.store import premium_rows

bp = Blueprint("controls", __name__)

CHALLENGE_RULES = [
    ("double", "Double: a wrong challenge loses the challenger's next turn"),
    ("single", "Single: no penalty for a wrong challenge"),
    ("five", "5 points to the player per unsuccessful challenge"),
    ("ten", "10 points to the player per unsuccessful challenge"),
    ("void", "Void: plays with invalid words are not accepted"),
]


def tileset_choices() -> list[tuple[str, str]]:
    return [(code, TileSet.named(code).name) for code in TileSet.available()]


@bp.get("/games/new")
def new_game_form() -> str:
    return render_template("setup.html", tilesets=tileset_choices(),
                           challenge_rules=CHALLENGE_RULES, finish_targets=FINISH_LINE_TARGETS)


@bp.post("/games/new")
def new_game() -> Response:
    game_id = create_game_from_request()
    return redirect(url_for("controls.control", game_id=game_id), code=303)


@bp.get("/import")
def import_form() -> str:
    return render_template("import.html", tilesets=tileset_choices())


@bp.post("/import")
def import_game() -> Response | str:
    """Straight to the game's control page, or first to what the record's warnings say."""
    game_id, imported = import_game_from_request()
    game_url = url_for("controls.control", game_id=game_id)
    if imported.warnings or imported.format_warnings:
        return render_template("import.html", imported=imported, game_url=game_url)
    return redirect(game_url, code=303)


@bp.get("/games/<game_id>/control")
def control(game_id: str) -> str:
    require_game(game_id)
    state = get_store().state(game_id)
    return render_template("control.html", state=state, premium=premium_rows())
