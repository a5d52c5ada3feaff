"""The JSON API: what the pages' scripts, the camera pipeline and other programs call.

Reading needs nothing; every change needs the game's PIN (header ``X-Game-Pin``, or a form or
JSON field ``pin``).  Errors are JSON ``{"error": code, "message": text}`` with a 4xx status, and
a refused request changes nothing.

A change may carry an operation id (JSON field ``op_id``, at most 80 characters, unique within
the game): sent again, it is answered ``{"ok": true, "already": true, "seq": N}`` (status 200)
and not applied twice.  A table's client that lost a reply sends the change again safely.
With ``after_seq`` (the number of the game's last operation as the sender knows it) a change
is refused with 409 ``behind`` when someone else changed the game since.

=========================================  ====================================================
``GET  /api/games``                         stored games, newest first
``POST /api/games``                         new game (JSON or a form with a word-list upload)
``POST /api/games/import``                  new game from a GCG record
``GET  /api/games/<id>/state``              everything the scoreboard shows
``GET  /api/games/<id>/events``             live updates (server-sent events, see events.py)
``POST /api/games/<id>/<action>``           play, pass, exchange, challenge, withdraw, undo,
                                            correct, end, adjust, time-penalty, lose-turn,
                                            challenge-bonus, clock, edit (a past event:
                                            replace, delete, insert), end-by-agreement,
                                            resign, time-out
``GET  /api/games/<id>/history``            changes to past events: what, who, when
``GET  /api/games/<id>/ops?after=N``        the stored operations after number N, in order
``POST /api/games/<id>/placements``         new tiles seen by the camera ``{"tiles": {sq: l}}``
``POST /api/games/<id>/start-position``     the tiles a game joined in progress starts from
                                            ``{"tiles": {sq: l}}`` (before its first turn)
``GET|POST /api/games/<id>/questions``      the tracker's questions; ``.../<qid>/answer``
``GET  /api/dictionary?words=..``           word check (``&game=<id>``: that game's list)
``POST /api/games/<id>/check-play``         the words a play would form, checked, not played
``GET  /api/games/<id>/game.gcg``           the game as a GCG record
=========================================  ====================================================
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import BadRequest

from scorer.tiles import TileSet
from webui import STORE_KEY
from webui.store import GameStore, StoreError, require_int, require_str

if TYPE_CHECKING:
    from webui.gcgimport import ImportedGame

bp = Blueprint("api", __name__, url_prefix="/api")

#: URL action name -> stored operation.
ACTIONS: dict[str, str] = {
    "play": "play",
    "pass": "pass",
    "exchange": "exchange",
    "challenge": "challenge",
    "withdraw": "withdraw",
    "challenge-bonus": "challenge_bonus",
    "lose-turn": "lose_turn",
    "undo": "undo",
    "correct": "correct",
    "end": "end_game",
    "adjust": "adjust",
    "time-penalty": "time_penalty",
    "clock": "clock",
    "placements": "place",
    "start-position": "set_up",
    "edit": "edit",
    "end-by-agreement": "end_by_agreement",
    "resign": "resign",
    "time-out": "time_out",
}

#: Finish-line targets of the rule sheet, by number of players and level.
FINISH_LINE_TARGETS: dict[int, dict[str, int]] = {
    2: {"beginner": 70, "intermediate": 120, "expert": 200},
    3: {"beginner": 60, "intermediate": 100, "expert": 180},
    4: {"beginner": 50, "intermediate": 90, "expert": 160},
}

MAX_DICTIONARY_WORDS = 50


def get_store() -> GameStore:
    return current_app.extensions[STORE_KEY]


def require_game(game_id: str) -> None:
    if not get_store().exists(game_id):
        raise StoreError("no_such_game", f"there is no game {game_id!r}", 404)


def request_data() -> dict[str, Any]:
    """The request's fields: a JSON object, or the form fields (empty when neither)."""
    if request.mimetype == "application/json" or (request.data and not request.form):
        if not request.data:
            return {}
        try:
            data = request.get_json(force=True)
        except BadRequest:
            raise StoreError("malformed_json", "the request body is not valid JSON") from None
        if not isinstance(data, dict):
            raise StoreError("bad_request", "the request body must be a JSON object")
        return data
    return request.form.to_dict()


def require_pin(game_id: str, data: dict[str, Any] | None = None) -> None:
    """Refuse (403) unless the request carries the game's PIN."""
    require_game(game_id)
    pin = request.headers.get("X-Game-Pin")
    if pin is None and data is not None:
        pin = data.get("pin")
    if pin is None:
        pin = request.form.get("pin")
    if not pin:
        raise StoreError("pin_required", "changing this game needs its PIN", 403)
    if not get_store().check_pin(game_id, pin, request.remote_addr or ""):
        raise StoreError("wrong_pin", "that is not this game's PIN", 403)


def _ok(result: dict[str, Any], game_id: str, status: int = 200) -> tuple[Response, int]:
    if result.get("already"):
        status = 200  # nothing was made or accepted anew: the operation was stored before
    payload = {"ok": True, **result, "state": get_store().state(game_id)}
    return jsonify(payload), status


def take_op_id(data: dict[str, Any]) -> str | None:
    """The request's operation id (removed from ``data``; checked by the store)."""
    return data.pop("op_id", None)


def take_after_seq(data: dict[str, Any]) -> int | None:
    """The number of the game's last operation as the sender knows it (``after_seq``,
    removed from ``data``): the change is refused (409 ``behind``) when the game has moved
    on since (see :meth:`GameStore.apply`)."""
    if data.get("after_seq") is None:
        data.pop("after_seq", None)
        return None
    return require_int({"after_seq": data.pop("after_seq")}, "after_seq", low=0,
                       high=10**9)


# -- games --------------------------------------------------------------------------------------


@bp.get("/games")
def list_games() -> Response:
    return jsonify(games=get_store().list_games())


@bp.get("/tilesets")
def tilesets() -> Response:
    return jsonify(tilesets=[
        {"code": code, "name": TileSet.named(code).name} for code in TileSet.available()
    ])


def settings_from_request(data: dict[str, Any]) -> dict[str, Any]:
    """Turn setup fields (JSON or form) into :meth:`GameStore.create_game` arguments."""
    from scorer.game import ChallengeRule, Rules

    players = data.get("players")
    if players is None:
        # A form sends player1..player4 (blank ones left out) or repeated "player" fields.
        players = [data.get(f"player{i}", "") for i in range(1, 5)]
        players += request.form.getlist("player") if request.form else []
        players = [p for p in players if isinstance(p, str) and p.strip()]
    if not isinstance(players, list):
        raise StoreError("wrong_type", "players must be a list of names")
    pin = data.get("pin")
    if not isinstance(pin, str):
        raise StoreError("bad_pin", "a PIN (4 to 32 characters) is needed to set up a game")
    tileset = require_str(data, "tileset", max_len=10, optional=True) or "en"
    challenge = require_str(data, "challenge", max_len=10, optional=True) or "double"
    try:
        challenge_rule = ChallengeRule(challenge)
    except ValueError:
        known = ", ".join(r.value for r in ChallengeRule)
        raise StoreError("bad_rules", f"challenge rule {challenge!r}; known: {known}") from None
    rack_size = require_int(data, "rack_size", low=7, high=9, optional=True) or 7
    if rack_size not in (7, 9):
        raise StoreError("bad_rules", "racks hold 7 or 9 tiles")
    finish_line = require_int(data, "finish_line", low=10, high=2000, optional=True)
    level = require_str(data, "finish_level", max_len=20, optional=True)
    if level and finish_line is None:
        targets = FINISH_LINE_TARGETS.get(len(players))
        if targets is None or level not in targets:
            raise StoreError("bad_rules", f"finish-line level {level!r} for {len(players)} players;"
                             " known: beginner, intermediate, expert")
        finish_line = targets[level]
    overtime = require_int(data, "overtime_points_per_minute", low=0, high=100, optional=True)
    clock_minutes = require_int(data, "clock_minutes", low=1, high=600, optional=True)
    out_bonus = require_str(data, "out_bonus", max_len=10, optional=True) or "transfer"
    if out_bonus not in ("transfer", "double"):
        raise StoreError("bad_rules", "going out: 'transfer' or 'double'")
    kwargs: dict[str, Any] = {"challenge": challenge_rule, "rack_size": rack_size,
                              "finish_line": finish_line, "out_bonus": out_bonus}
    if overtime is not None:
        kwargs["overtime_points_per_minute"] = overtime
    rules = Rules(**kwargs)
    title = require_str(data, "title", max_len=80, optional=True) or ""
    return {"players": players, "pin": pin, "tileset": tileset, "rules": rules.to_dict(),
            "clock_minutes": clock_minutes, "title": title}


def create_game_from_request() -> str:
    data = request_data()
    settings = settings_from_request(data)
    lexicon_key = "enable"
    upload = request.files.get("wordlist")
    if upload is not None and upload.filename:
        raw = upload.read()
        name = re.sub(r"[^\w.\- ]", "_", upload.filename)[:60]
        lexicon_key, _ = get_store().add_lexicon(raw, name, settings["tileset"])
    return get_store().create_game(
        settings["players"], pin=settings["pin"], tileset=settings["tileset"],
        rules=settings["rules"], clock_minutes=settings["clock_minutes"],
        lexicon=lexicon_key, title=settings["title"],
    )


@bp.post("/games")
def create_game() -> tuple[Response, int]:
    game_id = create_game_from_request()
    return jsonify(ok=True, id=game_id, state=get_store().state(game_id)), 201


def import_game_from_request() -> tuple[str, ImportedGame]:
    from webui.gcgimport import GcgImportError, import_gcg

    data = request_data()
    pin = data.get("pin")
    if not isinstance(pin, str):
        raise StoreError("bad_pin", "a PIN (4 to 32 characters) is needed for the imported game")
    upload = request.files.get("gcg")
    if upload is not None and upload.filename:
        raw = upload.read()
    elif isinstance(data.get("gcg"), str):
        raw = data["gcg"].encode("utf-8")
    else:
        raise StoreError("missing_field", "send the GCG record as file 'gcg' or field 'gcg'")
    tileset = require_str(data, "tileset", max_len=10, optional=True)
    try:
        imported = import_gcg(raw, tileset)
    except GcgImportError as exc:
        raise StoreError("bad_gcg", str(exc)) from None
    game_id = get_store().create_game(
        imported.players, pin=pin, tileset=imported.tileset, rules=imported.rules,
        title=imported.title, ops=imported.ops, gcg_header=imported.header,
    )
    return game_id, imported


@bp.post("/games/import")
def import_game() -> tuple[Response, int]:
    """``warnings``: where the record disagrees with the rules; ``format_warnings``: harmless
    faults in how it is written, read as meant."""
    game_id, imported = import_game_from_request()
    return jsonify(ok=True, id=game_id, warnings=imported.warnings,
                   format_warnings=imported.format_warnings,
                   state=get_store().state(game_id)), 201


@bp.get("/games/<game_id>/state")
def state(game_id: str) -> Response:
    require_game(game_id)
    return jsonify(get_store().state(game_id))


@bp.get("/games/<game_id>/ops")
def ops(game_id: str) -> Response:
    require_game(game_id)
    after = request.args.get("after", "0")
    if not after.isdigit():
        raise StoreError("bad_request", "after must be an operation's number")
    return jsonify(ops=get_store().ops(game_id, int(after)))


@bp.get("/games/<game_id>/history")
def history(game_id: str) -> Response:
    """Every change made to a past event (and each undo of one), oldest first."""
    require_game(game_id)
    return jsonify(history=get_store().state(game_id)["history"])


@bp.post("/games/<game_id>/pin")
def pin_check(game_id: str) -> Response:
    """Whether a PIN is right (the page asks before it remembers one)."""
    require_pin(game_id, request_data())
    return jsonify(ok=True)


@bp.post("/games/<game_id>/<action>")
def act(game_id: str, action: str) -> tuple[Response, int]:
    if action not in ACTIONS:
        raise StoreError("not_found", f"no action {action!r}; known: {', '.join(ACTIONS)}", 404)
    data = request_data()
    require_pin(game_id, data)
    op_id = take_op_id(data)
    after_seq = take_after_seq(data)
    op = {k: v for k, v in data.items() if k != "pin"}
    op["op"] = ACTIONS[action]
    # Where a change came from, for the game's history (a name may come with it as "by").
    op["client"] = request.remote_addr or None
    result = get_store().apply(game_id, op, op_id=op_id, after_seq=after_seq)
    # A camera placement that needs a person's answer first is accepted, not yet played.
    status = 202 if action == "placements" and "question" in result else 200
    return _ok(result, game_id, status)


# -- questions ------------------------------------------------------------------------------------


@bp.get("/games/<game_id>/questions")
def questions(game_id: str) -> Response:
    require_game(game_id)
    open_only = request.args.get("open") in ("1", "true", "yes")
    return jsonify(questions=[q.to_dict() for q in get_store().questions(game_id, open_only)])


@bp.post("/games/<game_id>/questions")
def add_question(game_id: str) -> tuple[Response, int]:
    data = request_data()
    require_pin(game_id, data)
    op_id = take_op_id(data)
    after_seq = take_after_seq(data)
    kind = data.get("kind")
    options = data.get("options", [])
    fields = {k: v for k, v in data.items() if k not in ("kind", "options", "pin")}
    result = get_store().apply(
        game_id, {"op": "question", "kind": kind, "options": options, "data": fields},
        op_id=op_id, after_seq=after_seq,
    )
    return _ok(result, game_id, 201)


@bp.post("/games/<game_id>/questions/<int:qid>/answer")
def answer_question(game_id: str, qid: int) -> tuple[Response, int]:
    data = request_data()
    require_pin(game_id, data)
    result = get_store().apply(game_id, {"op": "answer", "qid": qid, "answer": data.get("answer")},
                               op_id=take_op_id(data), after_seq=take_after_seq(data))
    return _ok(result, game_id)


# -- dictionary ------------------------------------------------------------------------------


def words_from_request() -> list[str]:
    raw = request.args.getlist("word") + request.args.getlist("words")
    words = [w for text in raw for w in re.split(r"[\s,;]+", text) if w]
    if len(words) > MAX_DICTIONARY_WORDS:
        raise StoreError("too_many_words", f"at most {MAX_DICTIONARY_WORDS} words at once")
    for word in words:
        if len(word) > 20:
            raise StoreError("too_long", f"{word[:20]}...: words are at most 20 letters")
    return words


def check_words(words: list[str], game_id: str | None) -> dict[str, Any]:
    from scorer.lexicon import Lexicon, normalise

    if game_id:
        require_game(game_id)
        live = get_store().live(game_id)
        lexicon, name = live.lexicon, live.lexicon_label
    else:
        lexicon, name = Lexicon.default(), "ENABLE (bundled)"
    checked = [{"word": normalise(w), "valid": lexicon.is_valid(w)} for w in words]
    return {"lexicon": name, "words": checked,
            "all_valid": bool(checked) and all(c["valid"] for c in checked)}


@bp.get("/dictionary")
def dictionary() -> Response:
    return jsonify(check_words(words_from_request(), request.args.get("game") or None))


@bp.route("/games/<game_id>/check-play", methods=["GET", "POST"])
def check_play(game_id: str) -> Response:
    """The words a play would form and whether each is valid; nothing is played."""
    from scorer.rules import IllegalPlay, Placement, score_play

    require_game(game_id)
    data = request_data() if request.method == "POST" else request.args.to_dict()
    position = require_str(data, "position", max_len=4)
    word = require_str(data, "word", max_len=40)
    store = get_store()
    with store._lock:  # the board must not change while it is read
        live = store.live(game_id)
        board = live.game.board.copy()
        rack_size = live.game.rules.rack_size
        try:
            placement = Placement.from_position(position, word, board, live.tileset)
            bingo_sizes = frozenset(range(7, rack_size + 1))
            scored = score_play(board, placement, live.tileset, bingo_sizes)
        except IllegalPlay as exc:
            raise StoreError(exc.code, exc.message, 422) from None
        words = [{"word": w.text, "valid": live.lexicon.is_valid(w.text), "score": w.score}
                 for w in scored.words]
        label = live.lexicon_label
    return jsonify(position=scored.position, seed=scored.seed_notation, score=scored.score,
                   bingo=scored.bingo, words=words, lexicon=label,
                   all_valid=all(w["valid"] for w in words))


# -- GCG ----------------------------------------------------------------------------------------


@bp.get("/games/<game_id>/game.gcg")
def export_gcg(game_id: str) -> Response:
    require_game(game_id)
    from scorer.gcg import Header, write_gcg
    from webui.gcgimport import header_from_dict

    store = get_store()
    with store._lock:
        live = store.live(game_id)
        lexicon = None if live.settings.lexicon != "enable" else "ENABLE"
        header = Header(title=live.settings.title or None, lexicon=lexicon)
        if live.settings.gcg_header is not None:
            header = header_from_dict(live.settings.gcg_header, live.game, header)
        text = write_gcg(live.game, header)
    response = Response(text, mimetype="text/plain")
    response.headers["Content-Disposition"] = f'attachment; filename="tilecam-{game_id}.gcg"'
    return response
