"""The dictionary page: is this word valid, and are all the words a play formed valid.

It works without JavaScript (a plain GET form) so that it is usable on any phone; with
``?game=<id>`` it uses that game's word list instead of the bundled ENABLE list.
"""

from __future__ import annotations

from flask import Blueprint, render_template, request

from webui.api import check_words, get_store, words_from_request

bp = Blueprint("dictionary", __name__)


@bp.get("/dictionary")
def dictionary() -> str:
    game_id = request.args.get("game") or None
    words = words_from_request()
    result = check_words(words, game_id) if words else None
    lexicon_name = None
    last_words: list[str] = []
    if game_id and get_store().exists(game_id):
        state = get_store().state(game_id)
        lexicon_name = state["lexicon"]
        if state["last_play"]:
            last_words = state["last_play"]["play"]["words"]
    return render_template(
        "dictionary.html", result=result, query=" ".join(words), game_id=game_id,
        lexicon_name=lexicon_name or (result or {}).get("lexicon") or "ENABLE (bundled)",
        last_words=last_words,
    )
