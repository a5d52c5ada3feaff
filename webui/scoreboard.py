"""The pages anyone may open: the list of games and a game's live scoreboard."""

from __future__ import annotations

from flask import Blueprint, render_template

from webui.api import get_store, require_game
from webui.store import premium_rows

bp = Blueprint("scoreboard", __name__)


@bp.get("/")
def index() -> str:
    return render_template("index.html", games=get_store().list_games())


@bp.get("/games/<game_id>")
def scoreboard(game_id: str) -> str:
    require_game(game_id)
    state = get_store().state(game_id)
    return render_template("scoreboard.html", state=state, premium=premium_rows())
