"""Games kept in a database (SQLite, or PostgreSQL for a club) as the ordered list of calls
that made them.

One file, about 1,800 lines, on purpose: every operation, its replay after a restart and the
schema it is written in must agree, and are changed together.  The two databases are reached
through :mod:`webui.database`, with the same schema and the same SQL.  A club's *event* (many
tables at once, a director over them) is a few rows beside the games it groups (see
:meth:`GameStore.create_club_event`).

A game is stored as its settings (players, tile set, rules, word list, clock, hashed PIN) and an
append-only log of *operations*: each mutating call with its concrete arguments (``play``,
``place``, ``pass``, ``exchange``, ``challenge``, ``undo``, ``correct``, ``question``,
``answer``, ...).  Every :class:`scorer.game.Game` call is deterministic, so replaying the log
rebuilds the game exactly; that is how games come back after a restart.

Durability: SQLite runs in WAL mode with ``synchronous=FULL`` (PostgreSQL with
``synchronous_commit=on``), and :meth:`GameStore.apply` commits the operation before it returns,
so by the time a web request is acknowledged its operation is on disk.  An operation is first
tried on the live game; only one the game accepts is written, and one the game refuses leaves
both the game and the log untouched.

Several processes (the workers of a club's server, on PostgreSQL) may serve the same games.
Each keeps its own games in memory, so before a game is used, and under a row lock before an
operation is stored, the operations other processes stored since are replayed onto it; their
announcements (``NOTIFY``) wake the live-update streams of every process.

Questions are how the camera pipeline asks a person something (which letter a blank stands for,
whether an odd placement is real).  They are operations too, so they survive restarts and keep
their order with the moves:

>>> store = GameStore(":memory:")
>>> game_id = store.create_game(["Ann", "Bob"], pin="1234")
>>> q = store.add_question(game_id, "illegal_placement", squares=["A1"], options=["dismiss"])
>>> [(q.qid, q.kind, q.open) for q in store.questions(game_id)]
[(1, 'illegal_placement', True)]
>>> store.check_pin(game_id, "1234"), store.check_pin(game_id, "0000")
(True, False)
"""

from __future__ import annotations

import gzip
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorer.lexicon import Lexicon, LexiconError
from scorer.squares import PREMIUM_LAYOUT, SIZE, Square
from scorer.tiles import TileError, TileSet
from webui.database import ChangeListener, open_database
from webui.frames import FrameHub

#: Name under which the bundled word list is referred to in a game's settings.
DEFAULT_LEXICON = "enable"

#: PBKDF2 rounds for PIN hashes: slow enough to make a stolen database costly to search,
#: fast enough (a few ms) for the first check of each PIN; later checks hit a cache.
PIN_ROUNDS = 60_000

#: Wrong PINs allowed per game within PIN_WINDOW seconds before changes are refused for a while.
PIN_FAILURES_ALLOWED = 8
PIN_WINDOW = 60.0

#: Tables of one club event (a club plays 10 to 40 boards at once).
MAX_TABLES = 60
#: Which field of a club event's table a refusal of its game's settings is about (the
#: players, where not named here).
TABLE_FIELD_OF_ERROR = {"bad_pin": "pin", "unknown_tileset": "tileset", "bad_rules": "rules",
                        "out_of_range": "clock_minutes", "no_such_word_list": "lexicon"}

GAME_ID_RE = re.compile(r"^[a-z0-9]{6,16}$")
PIN_RE = re.compile(r"^[^\s]{4,32}$")
NAME_MAX = 40

#: Operation ids are unique per game: a client that sends an operation again (its reply was
#: lost) is told the game already has it, whichever server process stored it first.  Made after
#: the column, which a database older than operation ids gains first.
OP_ID_INDEX = "CREATE UNIQUE INDEX IF NOT EXISTS ops_op_id ON ops (game_id, op_id);"

#: Longest operation id a client may send.
OP_ID_MAX = 80

#: The tables, in SQLite's dialect; PostgreSQL gets the same with its names for the types
#: (:func:`webui.database.postgres_schema`).
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    settings TEXT NOT NULL,
    pin_salt BLOB NOT NULL,
    pin_hash BLOB NOT NULL,
    summary TEXT
);
CREATE TABLE IF NOT EXISTS ops (
    game_id TEXT NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    at REAL NOT NULL,
    op TEXT NOT NULL,
    op_id TEXT,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS lexicons (
    key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS club_events (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    name TEXT NOT NULL,
    pin_salt BLOB NOT NULL,
    pin_hash BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS club_tables (
    event_id TEXT NOT NULL REFERENCES club_events(id),
    number INTEGER NOT NULL,
    name TEXT NOT NULL,
    game_id TEXT NOT NULL UNIQUE REFERENCES games(id),
    PRIMARY KEY (event_id, number)
);
CREATE TABLE IF NOT EXISTS calibration (
    game_id TEXT NOT NULL REFERENCES games(id),
    kind TEXT NOT NULL,
    at REAL NOT NULL,
    data TEXT NOT NULL,
    image BLOB,
    PRIMARY KEY (game_id, kind)
);
"""


class StoreError(ValueError):
    """A request the store refuses.  ``code`` is a stable name, ``status`` the HTTP status;
    ``field``, where known, the request field at fault (``tables.2.pin``), so a form can say
    it next to that field."""

    def __init__(self, code: str, message: str, status: int = 400,
                 field: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.field = field


def default_database() -> Path:
    """``$XDG_DATA_HOME/tilecam/games.sqlite3`` (``~/.local/share`` when the variable is unset).

    >>> default_database().name
    'games.sqlite3'
    """
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tilecam" / "games.sqlite3"


def hash_pin(pin: str, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", pin.encode("utf-8"), salt, PIN_ROUNDS)


def new_game_id() -> str:
    """Ten lower-case letters and digits: short enough to type, too many to guess."""
    alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
    return "".join(secrets.choice(alphabet) for _ in range(10))


# -- small validators shared with the HTTP layer ---------------------------------------------


def require_str(data: Mapping[str, Any], key: str, *, max_len: int = 64, optional: bool = False
                ) -> str | None:
    """``data[key]`` as a stripped string, or a :class:`StoreError` naming the field."""
    value = data.get(key)
    if value is None or (isinstance(value, str) and not value.strip() and optional):
        if optional:
            return None
        raise StoreError("missing_field", f"{key!r} is required")
    if not isinstance(value, str):
        raise StoreError("wrong_type", f"{key!r} must be a string, got {type(value).__name__}")
    value = value.strip()
    if not value:
        raise StoreError("missing_field", f"{key!r} must not be empty")
    if len(value) > max_len:
        raise StoreError("too_long", f"{key!r} is longer than {max_len} characters")
    return value


def require_int(data: Mapping[str, Any], key: str, *, low: int, high: int,
                optional: bool = False) -> int | None:
    """``data[key]`` as an int within [low, high] (a string of digits is accepted from forms)."""
    value = data.get(key)
    if value is None or value == "":
        if optional:
            return None
        raise StoreError("missing_field", f"{key!r} is required")
    if isinstance(value, str) and re.fullmatch(r"-?\d{1,9}", value.strip()):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise StoreError("wrong_type", f"{key!r} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise StoreError("out_of_range", f"{key!r} must be between {low} and {high}, got {value}")
    return value


def parse_square(name: object, field_name: str = "square") -> Square:
    if not isinstance(name, str):
        raise StoreError("wrong_type", f"{field_name} must be a square name like H8")
    try:
        return Square.parse(name)
    except ValueError as exc:
        raise StoreError("bad_square", str(exc)) from None


# -- settings ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameSettings:
    """What is fixed when a game is set up."""

    players: tuple[str, ...]
    tileset: str = "en"
    rules: dict[str, Any] = field(default_factory=dict)
    clock_minutes: int | None = None
    lexicon: str = DEFAULT_LEXICON
    lexicon_name: str = "ENABLE (bundled)"
    title: str = ""
    #: What an imported record said besides its events, written back by the GCG export
    #: (see :func:`webui.gcgimport.header_dict`); None for a game set up here.
    gcg_header: dict[str, Any] | None = None

    def to_json(self) -> str:
        return json.dumps({
            "players": list(self.players), "tileset": self.tileset, "rules": self.rules,
            "clock_minutes": self.clock_minutes, "lexicon": self.lexicon,
            "lexicon_name": self.lexicon_name, "title": self.title,
            "gcg_header": self.gcg_header,
        })

    @staticmethod
    def from_json(text: str) -> GameSettings:
        d = json.loads(text)
        return GameSettings(
            tuple(d["players"]), d["tileset"], d.get("rules", {}), d.get("clock_minutes"),
            d.get("lexicon", DEFAULT_LEXICON), d.get("lexicon_name", ""), d.get("title", ""),
            d.get("gcg_header"),
        )


@dataclass
class Question:
    """Something the tracker could not decide alone, waiting for a person's answer."""

    qid: int
    kind: str
    data: dict[str, Any]
    options: list[str]
    asked: float
    answer: str | None = None
    answered: float | None = None

    @property
    def open(self) -> bool:
        return self.answer is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "qid": self.qid, "kind": self.kind, "data": self.data, "options": self.options,
            "asked": self.asked, "answer": self.answer, "answered": self.answered,
            "open": self.open,
        }


@dataclass
class Clocks:
    """Chess-clock time used per player, charged to whoever was on turn between operations.

    Time is taken from the operations' stored timestamps, so replaying the log rebuilds the
    clocks too.
    """

    limit_seconds: float | None
    used: list[float]
    running: bool = False
    since: float = 0.0

    def charge(self, player: int, at: float) -> None:
        if self.running:
            self.used[player] += max(0.0, at - self.since)
            self.since = at

    def overtime_minutes(self, now: float, turn: int) -> list[int]:
        """Started minutes over the limit per player (the basis of the time penalty)."""
        if self.limit_seconds is None:
            return [0] * len(self.used)
        out = []
        for player, used in enumerate(self.used):
            if self.running and player == turn:
                used += max(0.0, now - self.since)
            over = used - self.limit_seconds
            out.append(math.ceil(over / 60.0) if over > 0 else 0)
        return out

    def to_dict(self, now: float, turn: int) -> dict[str, Any]:
        used = list(self.used)
        if self.running:
            used[turn] += max(0.0, now - self.since)
        return {
            "enabled": self.limit_seconds is not None,
            "limit": self.limit_seconds,
            "used": [round(u, 3) for u in used],
            "running": self.running,
            "turn": turn,
            "server_time": now,
        }


@dataclass
class StackEntry:
    """One action of the effective history: the game call and how many events it made."""

    op: dict[str, Any]
    first_event: int
    count: int
    #: For an edit of a past event: the game as it was before (undo puts it back whole).
    restore: Any = None
    #: For an edit: its entry in :attr:`LiveGame.history`.
    history_index: int | None = None

    @property
    def undoable(self) -> bool:
        """Whether undo takes this entry back (an action that made no event is skipped)."""
        return bool(self.count) or self.restore is not None


class LiveGame:
    """A game in memory: the :class:`scorer.game.Game`, its questions, clocks and undo stack."""

    def __init__(self, game_id: str, settings: GameSettings, lexicon: Lexicon,
                 created: float) -> None:
        from scorer.game import Game, Rules

        self.id = game_id
        self.settings = settings
        self.lexicon = lexicon
        self.created = created
        self.updated = created
        rules = Rules.from_dict(settings.rules) if settings.rules else Rules()
        self.game = Game(list(settings.players), settings.tileset, rules)
        self.tileset: TileSet = self.game.tileset
        limit = None if settings.clock_minutes is None else settings.clock_minutes * 60.0
        self.clocks = Clocks(limit, [0.0] * len(settings.players))
        self.stack: list[StackEntry] = []
        self.questions: list[Question] = []
        #: Changes to past events, oldest first: what, who, when, and whether undone since.
        self.history: list[dict[str, Any]] = []
        self.last_challenge: dict[str, Any] | None = None
        self.ops = 0
        self.version = 0
        self.damaged: str | None = None
        self._snapshot: tuple[int, dict[str, Any], str] | None = None

    # -- applying operations ------------------------------------------------------------------

    def execute(self, op: dict[str, Any], at: float) -> dict[str, Any]:
        """Apply one normalised operation; on error the game is as it was (or must be rebuilt
        by the caller: see :class:`NeedsRebuild`).  Returns what the caller reports back."""
        kind = op["op"]
        game = self.game
        if kind == "clock":
            self.clocks.charge(game.turn, at)
            if op["action"] == "start":
                if self.clocks.limit_seconds is None:
                    raise StoreError("no_clocks", "this game was set up without clocks")
                self.clocks.running = True
                self.clocks.since = at
            else:
                self.clocks.running = False
            return {}
        if kind == "question":
            qid = len(self.questions) + 1
            q = Question(qid, op["kind"], op["data"], op["options"], at)
            self.questions.append(q)
            return {"question": q.to_dict()}
        if kind == "answer":
            return self._answer(op, at)
        if kind == "undo":
            return self._undo(op, at)
        if kind == "edit":
            return self._edit(op, at)
        if kind == "correct" and any(e.restore is not None for e in self.stack):
            # The stack's entries before an edit count events of the game before it: the
            # correction is made as an edit of the play instead.
            return self._correct_by_edit(op, at)
        if kind == "correct":
            return self._correct(op, at)
        self.clocks.charge(game.turn, at)
        before = len(game.events)
        extra = self._game_call(op)
        self._push(op, before)
        return extra

    def _push(self, op: dict[str, Any], before: int) -> None:
        self.stack.append(StackEntry(op, before, len(self.game.events) - before))
        if self.game.over:
            self.clocks.running = False

    def _game_call(self, op: dict[str, Any]) -> dict[str, Any]:
        """Call the game for one turn/score operation.  Raises GameError/StoreError untouched."""
        game = self.game
        kind = op["op"]
        # player/note/check_rack come only from imported records (see gcgimport.py); a
        # person's or the camera's move acts for the player to move, with racks checked.
        who = {"player": op.get("player"), "note": op.get("note")}
        if kind == "play":
            game.play(op["position"], op["word"], rack=op.get("rack"),
                      check_rack=op.get("check_rack", True), **who)
            self._refuse_phony_if_void()
        elif kind == "place":
            tiles = {Square.parse(name): letter for name, letter in op["tiles"].items()}
            game.place(tiles, rack=op.get("rack"))
            self._refuse_phony_if_void()
        elif kind == "pass":
            game.pass_turn(rack=op.get("rack"), **who)
        elif kind == "set_up":
            game.set_up({Square.parse(name): letter for name, letter in op["tiles"].items()})
        elif kind == "exchange":
            game.exchange(op["tiles"], rack=op.get("rack"),
                          check_rack=op.get("check_rack", True), **who)
        elif kind == "challenge":
            result = game.challenge(self.lexicon.is_valid, challenger=op.get("challenger"))
            self.last_challenge = {
                "words": [[w, bool(ok)] for w, ok in result.words],
                "valid": bool(result.valid),
                "rule": str(result.rule),
                "events": [event_dict(e, -1) for e in result.events],
            }
            return {"challenge": self.last_challenge}
        elif kind == "withdraw":
            game.withdraw(note=op.get("note"))
        elif kind == "challenge_bonus":
            game.challenge_bonus(op.get("points"), note=op.get("note"))
        elif kind == "lose_turn":
            game.lose_turn(op.get("player"), note=op.get("note"))
        elif kind == "end_game":
            racks = op.get("racks")
            game.end_game(None if racks is None else {int(k): v for k, v in racks.items()})
            for player, minutes in sorted((op.get("time_penalties") or {}).items()):
                if minutes > 0:
                    game.time_penalty(int(player), minutes)
        elif kind == "end_rack_points":
            game.end_rack_points(op["player"], op.get("tiles"), op.get("score"),
                                 note=op.get("note"))
        elif kind == "end_rack_penalty":
            game.end_rack_penalty(op["player"], op.get("tiles"), op.get("score"),
                                  note=op.get("note"))
        elif kind == "time_penalty":
            if "score" in op:
                game.time_penalty(op["player"], score=op["score"], note=op.get("note"))
            else:
                game.time_penalty(op["player"], op["minutes"])
        elif kind == "adjust":
            game.adjust(op["player"], op["points"], op["reason"])
        elif kind == "end_by_agreement":
            self._end_by_agreement(op)
        elif kind == "resign":
            game.resign(op["player"], note=op.get("note"))
        elif kind == "time_out":
            game.lose_on_time(op["player"], note=op.get("note"))
        else:
            raise StoreError("unknown_op", f"unknown operation {kind!r}")
        return {}

    def _end_by_agreement(self, op: dict[str, Any]) -> None:
        """End the game now and settle every rack given; both in one step, or neither.
        An imported record's agreement comes without racks (its rack lines follow as
        operations of their own)."""
        game = self.game
        game.end_by_agreement(op.get("player"), note=op.get("note"))
        racks = op.get("racks")
        if racks is None:
            return
        try:
            game.end_game({int(k): v for k, v in racks.items()})
        except ValueError:
            game.undo()  # end_game took back its own events; this takes back the agreement
            raise

    def _refuse_phony_if_void(self) -> None:
        """Under the void rule a play with an invalid word is not accepted at all."""
        from scorer.game import ChallengeRule

        if self.game.rules.challenge != ChallengeRule.VOID:
            return
        event = self.game.events[-1]
        bad = [w.text for w in event.play.words if not self.lexicon.is_valid(w.text)]
        if bad:
            self.game.undo()
            raise StoreError(
                "phony_refused",
                "not accepted (void rule): " + ", ".join(bad) + " not in " + self.lexicon_label,
                422,
            )

    @property
    def lexicon_label(self) -> str:
        return self.settings.lexicon_name or self.settings.lexicon

    def _undo(self, op: dict[str, Any], at: float) -> dict[str, Any]:
        self.clocks.charge(self.game.turn, at)
        # An action that made no event (a valid challenge under the single rule) is skipped
        # over: undo always takes back something visible.
        while self.stack and not self.stack[-1].undoable:
            self.stack.pop()
        if not self.stack:
            raise StoreError("nothing_to_undo", "there is nothing to undo", 409)
        entry = self.stack.pop()
        if entry.restore is not None:
            # An edit replayed the whole game into a new one: the one before is put back as
            # it was, which restores it exactly.
            self.game = entry.restore
            if entry.history_index is not None:
                change = self.history[entry.history_index]
                change["undone"] = True
                self._record_change(op, at, f"undone: {change['what']}", undo_of=change["seq"])
            return {"undone": entry.op}
        for _ in range(entry.count):
            self.game.undo()
        if entry.op["op"] == "challenge":
            self.last_challenge = None
        return {"undone": entry.op}

    # -- edits of past events ------------------------------------------------------------------

    def _record_change(self, op: Mapping[str, Any], at: float, what: str,
                       undo_of: int | None = None) -> int:
        """Add a change to the history (who: the name given with it, and the client's address;
        when: the operation's time); returns its index."""
        self.history.append({
            "seq": self.ops + 1, "at": at, "by": op.get("by"), "client": op.get("client"),
            "what": what, "undone": False, "undo_of": undo_of,
        })
        return len(self.history) - 1

    def _edit(self, op: dict[str, Any], at: float) -> dict[str, Any]:
        """Replace, delete or insert one past event and replay the game (scorer.edits); a
        change that makes any event impossible is refused whole, naming the event."""
        from scorer.edits import Action, Edit, EditKind, actions_of

        change = EditKind(op["change"])
        action = (None if change is EditKind.DELETE
                  else Action.from_dict(op["event"], len(self.game.players)))
        edit = Edit(change, op["number"] - 1, action)
        return self._apply_edit(op, at, edit, actions_of(self.game))

    def _apply_edit(self, op: dict[str, Any], at: float, edit: Any,
                    before: list[Any]) -> dict[str, Any]:
        from scorer.edits import EditError, replay_actions
        from scorer.game import GameError

        try:
            free = None if edit.action is None else edit.index
            edited = replay_actions(self.game, edit.applied_to(before), free)
        except EditError as exc:
            raise StoreError("edit_refused", str(exc), 409) from None
        except GameError as exc:
            raise StoreError(exc.code, exc.message, 409) from None
        if edit.action is not None and edit.action.kind == "play":
            self._refuse_void_phony(edited.events[edit.index], edit.index)
        what = edit.describe(self.game.players, before, [e.player for e in self.game.events])
        self.clocks.charge(self.game.turn, at)
        index = self._record_change(op, at, what)
        self.stack.append(StackEntry(op, 0, len(edited.events), restore=self.game,
                                     history_index=index))
        self.game = edited
        if edited.over:
            self.clocks.running = False
        return {"edited": what}

    def _refuse_void_phony(self, event: Any, index: int) -> None:
        """Under the void rule an edited play must form listed words, as a new one must."""
        from scorer.game import ChallengeRule

        if self.game.rules.challenge != ChallengeRule.VOID:
            return
        bad = [w.text for w in event.play.words if not self.lexicon.is_valid(w.text)]
        if bad:
            raise StoreError(
                "phony_refused",
                f"event {index + 1} not accepted (void rule): " + ", ".join(bad)
                + " not in " + self.lexicon_label,
                422,
            )

    def _play_that_placed(self, square: Square) -> int:
        """The index of the play that put the tile on ``square`` (the latest, should a
        withdrawn play have put one there first)."""
        target = None
        for index, event in enumerate(self.game.events):
            if event.play is not None and square in event.play.placement.squares:
                target = index
        if target is None:
            raise StoreError("not_placed", f"no play on record put a tile on {square}", 409)
        return target

    def _correct_by_edit(self, op: dict[str, Any], at: float) -> dict[str, Any]:
        """A correction of one square's letter, made as an edit of the play that put it."""
        from scorer.edits import Edit, actions_of

        square = Square.parse(op["square"])
        target = self._play_that_placed(square)
        main = self.game.events[target].play.main
        word = list(self.tileset.split(main.gcg_word))
        word[main.squares.index(square)] = op["letter"]
        before = actions_of(self.game)
        edit = Edit.replace(target, before[target].but(word="".join(word)))
        try:
            result = self._apply_edit(op, at, edit, before)
        except StoreError as exc:
            raise StoreError("correction_conflict",
                             f"correcting {square} to {op['letter']!r}: {exc.message}",
                             409) from None
        return {"corrected": before[target].but(word="".join(word)).to_dict(), **result}

    def _correct(self, op: dict[str, Any], at: float) -> dict[str, Any]:
        """Change the letter on a square: take back every action from the play that put it
        there, replay that play with the corrected letter, then replay the rest."""
        square = Square.parse(op["square"])
        letter = op["letter"]
        target = self._play_that_placed(square)
        k = next(i for i, e in enumerate(self.stack)
                 if e.first_event <= target < e.first_event + e.count)
        event = self.game.events[target]
        play = event.play
        main = play.main
        offset = main.squares.index(square)
        word = list(self.tileset.split(main.gcg_word))
        word[offset] = letter
        corrected: dict[str, Any] = {"op": "play", "position": play.position,
                                     "word": "".join(word)}
        for key in ("rack", "player", "check_rack", "note"):
            if self.stack[k].op.get(key) is not None:
                corrected[key] = self.stack[k].op[key]
        later = [e.op for e in self.stack[k + 1:]]
        self.clocks.charge(self.game.turn, at)
        raise_later = None
        for entry in reversed(self.stack[k:]):
            for _ in range(entry.count):
                self.game.undo()
        del self.stack[k:]
        for n, call in enumerate([corrected, *later]):
            before = len(self.game.events)
            try:
                self._game_call(call)
            except (ValueError, KeyError) as exc:
                what = "the corrected play" if n == 0 else f"later action {describe_op(call)}"
                raise_later = StoreError(
                    "correction_conflict",
                    f"correcting {square} to {letter!r}: {what} is refused: {exc}",
                    409,
                )
                break
            self._push(call, before)
        if raise_later is not None:
            raise NeedsRebuild(raise_later)
        return {"corrected": corrected}

    def _answer(self, op: dict[str, Any], at: float) -> dict[str, Any]:
        q = self.question(op["qid"])
        if not q.open:
            raise StoreError("already_answered", f"question {q.qid} was already answered", 409)
        result: dict[str, Any] = {}
        placement = q.data.get("placement")
        if q.kind == "blank_letter" and placement:
            letters = self.tileset.split(op["answer"])
            squares = q.data["squares"]
            tiles = dict(placement)
            for name, letter in zip(squares, letters, strict=True):
                tiles[name] = letter.lower()
            call: dict[str, Any] = {"op": "place", "tiles": tiles}
            if q.data.get("rack"):
                call["rack"] = q.data["rack"]
            self.clocks.charge(self.game.turn, at)
            before = len(self.game.events)
            self._game_call(call)
            self._push(call, before)
            result["placed"] = tiles
        q.answer = op["answer"]
        q.answered = at
        result["question"] = q.to_dict()
        return result

    def question(self, qid: int) -> Question:
        if not 1 <= qid <= len(self.questions):
            raise StoreError("no_such_question", f"there is no question {qid}", 404)
        return self.questions[qid - 1]

    # -- reading -----------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The state shown on the page (cached per version; call with the store lock held)."""
        return self._cached()[1]

    def snapshot_json(self) -> str:
        """:meth:`snapshot` as JSON text, serialised once per version for every screen."""
        return self._cached()[2]

    def _cached(self) -> tuple[int, dict[str, Any], str]:
        if self._snapshot is None or self._snapshot[0] != self.version:
            state = build_state(self)
            self._snapshot = (self.version, state, json.dumps(state, separators=(",", ":")))
        return self._snapshot


class NeedsRebuild(Exception):
    """A compound operation failed half-way: the live game must be rebuilt from the log."""

    def __init__(self, error: StoreError) -> None:
        super().__init__(error.message)
        self.error = error


def describe_op(op: Mapping[str, Any]) -> str:
    """A short human description of an operation, for messages.

    >>> describe_op({"op": "play", "position": "8D", "word": "HORN"})
    'play 8D HORN'
    >>> describe_op({"op": "pass"})
    'pass'
    """
    kind = op["op"]
    if kind == "play":
        return f"play {op['position']} {op['word']}"
    if kind == "place":
        return "place " + " ".join(f"{k}={v}" for k, v in sorted(op["tiles"].items()))
    if kind == "exchange":
        return f"exchange {op['tiles']}"
    return str(kind)


def event_dict(event: Any, index: int, lexicon: Lexicon | None = None) -> dict[str, Any]:
    """One game event as the page shows it (built from the Event's fields, so it is stable
    whatever ``Event.to_dict`` chooses to include).  With the game's ``lexicon``, a play also
    carries the dictionary's verdict: the words it formed that are in no list
    (``not_in_word_list``), which the page shows beside the play for the players to challenge
    or let stand."""
    play = event.play
    out: dict[str, Any] = {
        "n": index,
        "kind": str(event.kind),
        "player": event.player,
        "score": event.score,
        "total": event.total,
        "rack": event.rack,
        "tiles": event.tiles,
        "count": getattr(event, "count", None),
        "note": event.note,
        "play": None,
    }
    if play is not None:
        out["play"] = {
            "position": play.position,
            "word": play.gcg_word,
            "seed": play.seed_notation,
            "words": [w.text for w in play.words],
            "bingo": bool(play.bingo),
            "score": play.score,
            "squares": [sq.name for sq in play.placement.squares],
        }
        if lexicon is not None:
            out["play"]["not_in_word_list"] = [
                w.text for w in play.words if not lexicon.is_valid(w.text)]
    return out


def build_state(live: LiveGame) -> dict[str, Any]:
    game = live.game
    now = time.time()
    game_events = game.events
    events = [event_dict(e, i, live.lexicon) for i, e in enumerate(game_events)]
    cells = game.board.cells  # game.board is a fresh copy per access: read it once
    board = [cells[r * SIZE:(r + 1) * SIZE] for r in range(SIZE)]
    last = game.last_play()
    last_squares = [sq.name for sq in last.play.placement.squares] if last and last.play else []
    last_index = next((i for i in range(len(game_events) - 1, -1, -1)
                       if game_events[i] is last), None)
    unseen = game.unseen()
    order = {t: i for i, t in enumerate(live.tileset.counts)}
    over = bool(game.over)
    scores = list(game.scores)
    return {
        "id": live.id,
        "version": live.version,
        "title": live.settings.title,
        "created": live.created,
        "players": [
            {"name": name, "score": scores[i]} for i, name in enumerate(game.players)
        ],
        "turn": game.turn,
        "over": over,
        "winners": list(game.winner()) if over else [],
        "end_reason": None if game.end_reason is None else str(game.end_reason),
        "racks_settled": bool(game.racks_settled()) if over else False,
        "tileset": {"code": live.tileset.code, "name": live.tileset.name,
                    "values": dict(live.tileset.values)},
        "rules": game.rules.to_dict(),
        "lexicon": live.lexicon_label,
        "board": board,
        "last": events[-1] if events else None,
        "last_play": events[last_index] if last_index is not None else None,
        "last_squares": last_squares,
        "log": events,
        "bag": game.bag_count(),
        "unseen": {t: n for t, n in sorted(unseen.items(), key=lambda kv: order.get(kv[0], 99))
                   if n > 0},
        "unseen_total": sum(unseen.values()),
        "clock": live.clocks.to_dict(now, game.turn),
        "questions": [q.to_dict() for q in live.questions if q.open],
        "challenge": live.last_challenge,
        "can_undo": any(e.undoable for e in live.stack),
        "loser": game.loser,
        "history": live.history,
        "damaged": live.damaged,
    }


# -- the store ---------------------------------------------------------------------------------


@dataclass
class NewGame:
    """A game set up in memory and what storing it takes (see ``GameStore._new_game``)."""

    live: LiveGame
    salt: bytes
    digest: bytes
    pin_token: bytes
    op_rows: list[tuple[str, int, float, str]]


class GameStore:
    """Every game, on disk and (once opened) in memory; thread-safe.

    ``path`` is a SQLite file (created with its folder), ``":memory:"``, or a
    ``postgresql://`` URL (see :mod:`webui.database`).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self._db = open_database(self.path)
        self._db.setup(SCHEMA)
        # A database made before the list of games showed scores.
        self._db.add_missing_column("games", "summary", "TEXT")
        # A database made before operations carried a client's id.
        self._db.add_missing_column("ops", "op_id", "TEXT")
        self._db.setup(OP_ID_INDEX)
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._live: dict[str, LiveGame] = {}
        self._lexicons: dict[str, Lexicon] = {}
        self._pin_ok: dict[str, set[bytes]] = {}
        self._pin_failures: dict[tuple[str, str], list[float]] = {}
        self._club_events: dict[str, dict[str, Any]] = {}
        #: Hears the operations other processes store (started when a first change is waited
        #: for: a store nobody watches needs no second connection).
        self._listener: ChangeListener | None = None
        self.frames = FrameHub()

    @property
    def database_error(self) -> type[Exception]:
        """The base class of the errors the database raises (sqlite3's or psycopg's)."""
        return self._db.Error

    @property
    def shared(self) -> bool:
        """Whether other processes may change the games (a PostgreSQL database, a SQLite file)."""
        return self._db.shared

    def close(self) -> None:
        with self._lock:
            if self._listener is not None:
                self._listener.close()
                self._listener = None
            self._db.close()

    # -- word lists --------------------------------------------------------------------------

    def add_lexicon(self, data: bytes, name: str, tileset: str = "en") -> tuple[str, Lexicon]:
        """Store an uploaded word list (kept with the games so they replay after a restart);
        returns its key and the loaded list.  A list with no usable word is refused."""
        try:
            lexicon = Lexicon.from_bytes(data, source=name, tileset=tileset)
        except (LexiconError, TileError) as exc:
            raise StoreError("bad_word_list", str(exc)) from None
        if len(lexicon) == 0:
            raise StoreError("bad_word_list", f"{name}: no line of the file is a word")
        raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        key = "sha256-" + hashlib.sha256(raw).hexdigest()[:32]
        with self._lock:
            self._db.execute(
                "INSERT INTO lexicons (key, name, data) VALUES (?, ?, ?)"
                " ON CONFLICT (key) DO NOTHING",
                (key, name, gzip.compress(raw, 6)),
            )
            self._lexicons[key] = lexicon
        return key, lexicon

    def lexicon(self, key: str, tileset: str = "en") -> Lexicon:
        with self._lock:
            if key == DEFAULT_LEXICON:
                return Lexicon.default()
            if key not in self._lexicons:
                row = self._db.execute(
                    "SELECT name, data FROM lexicons WHERE key = ?", (key,)
                ).fetchone()
                if row is None:
                    raise StoreError("no_such_word_list", f"word list {key} is not stored", 404)
                self._lexicons[key] = Lexicon.from_bytes(
                    gzip.decompress(row[1]), source=row[0], tileset=tileset
                )
            return self._lexicons[key]

    # -- games -------------------------------------------------------------------------------

    def create_game(
        self,
        players: Sequence[str],
        *,
        pin: str,
        tileset: str = "en",
        rules: Mapping[str, Any] | None = None,
        clock_minutes: int | None = None,
        lexicon: str = DEFAULT_LEXICON,
        title: str = "",
        ops: Sequence[dict[str, Any]] = (),
        gcg_header: Mapping[str, Any] | None = None,
    ) -> str:
        """Set up a game and return its id.  ``ops`` (already normalised) are applied and
        stored in the same transaction: an imported game is stored whole or not at all.
        ``gcg_header``: an imported record's header, kept for the GCG export."""
        new = self._new_game(players, pin=pin, tileset=tileset, rules=rules,
                             clock_minutes=clock_minutes, lexicon=lexicon, title=title, ops=ops,
                             gcg_header=gcg_header)
        with self._lock:
            with self._db.transaction():
                self._insert_game(new)
            self._adopt(new)
        return new.live.id

    def _new_game(
        self,
        players: Sequence[str],
        *,
        pin: str,
        tileset: str,
        rules: Mapping[str, Any] | None,
        clock_minutes: int | None,
        lexicon: str,
        title: str,
        ops: Sequence[dict[str, Any]],
        gcg_header: Mapping[str, Any] | None,
    ) -> NewGame:
        """A game checked and set up in memory with its ``ops`` applied, not stored yet."""
        from scorer.game import GameError, Rules

        names = [validate_name(p) for p in players]
        if not 2 <= len(names) <= 4:
            raise StoreError("player_count", f"2 to 4 players, got {len(names)}")
        if len({n.casefold() for n in names}) != len(names):
            raise StoreError("duplicate_names", "two players have the same name")
        if not isinstance(pin, str) or not PIN_RE.match(pin):
            raise StoreError("bad_pin", "the PIN must be 4 to 32 characters without spaces")
        if tileset not in TileSet.available():
            known = ", ".join(TileSet.available())
            raise StoreError("unknown_tileset", f"unknown tile set {tileset!r}; known: {known}")
        rules_dict = dict(rules or {})
        try:
            Rules.from_dict(rules_dict)
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreError("bad_rules", f"rules not accepted: {exc}") from None
        if clock_minutes is not None and not 1 <= clock_minutes <= 600:
            raise StoreError("out_of_range", "clock minutes must be between 1 and 600")
        lex = self.lexicon(lexicon, tileset)
        lexicon_name = "ENABLE (bundled)" if lexicon == DEFAULT_LEXICON else lex.report.source
        settings = GameSettings(tuple(names), tileset, rules_dict, clock_minutes, lexicon,
                                lexicon_name, title[:80],
                                None if gcg_header is None else dict(gcg_header))
        salt = secrets.token_bytes(16)
        now = time.time()
        game_id = new_game_id()
        try:
            live = LiveGame(game_id, settings, lex, now)
        except (GameError, ValueError) as exc:
            raise StoreError("bad_settings", str(exc)) from None
        rows = []
        for op in ops:
            try:
                live.execute(op, now)
            except (ValueError, KeyError, NeedsRebuild) as exc:
                raise StoreError(
                    "import_failed", f"action {len(rows) + 1} ({describe_op(op)}): {exc}"
                ) from None
            rows.append((game_id, len(rows) + 1, now, json.dumps(op)))
        live.ops = len(rows)
        live.version = len(rows)
        return NewGame(live, salt, hash_pin(pin, salt), _pin_token(pin, salt), rows)

    def _insert_game(self, new: NewGame) -> None:
        """Inside a transaction: store a game made by :meth:`_new_game`."""
        live = new.live
        self._db.execute(
            "INSERT INTO games (id, created, updated, settings, pin_salt, pin_hash,"
            " summary) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (live.id, live.created, live.created, live.settings.to_json(), new.salt,
             new.digest, summary_json(live)),
        )
        if new.op_rows:
            self._db.executemany(
                "INSERT INTO ops (game_id, seq, at, op) VALUES (?, ?, ?, ?)", new.op_rows
            )

    def _adopt(self, new: NewGame) -> None:
        """Once stored: keep the game in memory, its PIN known to be right."""
        self._live[new.live.id] = new.live
        self._pin_ok[new.live.id] = {new.pin_token}

    def list_games(self) -> list[dict[str, Any]]:
        """Every stored game, newest first, with players and final or current totals."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, created, updated, settings, summary FROM games ORDER BY updated DESC"
            ).fetchall()
            out = []
            for game_id, created, updated, settings_text, summary in rows:
                settings = GameSettings.from_json(settings_text)
                entry: dict[str, Any] = {
                    "id": game_id, "created": created, "updated": updated,
                    "players": list(settings.players), "title": settings.title,
                    "tileset": settings.tileset, "scores": None, "over": None,
                }
                if summary:
                    entry.update(json.loads(summary))
                out.append(entry)
            return out

    def exists(self, game_id: str) -> bool:
        if not isinstance(game_id, str) or not GAME_ID_RE.match(game_id):
            return False
        with self._lock:
            if game_id in self._live:
                return True
            row = self._db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone()
            return row is not None

    def live(self, game_id: str) -> LiveGame:
        """The game in memory, rebuilt from its stored operations on first use, with what
        other processes have stored since (on a shared database)."""
        with self._lock:
            live = self._live.get(game_id)
            if live is None:
                return self._loaded(game_id)
            if self._db.shared:
                try:
                    live = self._catch_up(live)
                except self._db.Error:
                    # The database is away: show the game as this process knows it (every
                    # change is refused meanwhile, so nothing acts on a stale game).
                    pass
            return live

    def _loaded(self, game_id: str) -> LiveGame:
        """The game in memory as this process last saw it (loaded on first use).  Waiting
        streams use this: the listener keeps their games up to date, without a query each."""
        with self._lock:
            live = self._live.get(game_id)
            if live is None:
                live = self._load(game_id)
                self._live[game_id] = live
            return live

    def _load(self, game_id: str) -> LiveGame:
        if not isinstance(game_id, str) or not GAME_ID_RE.match(game_id):
            raise StoreError("no_such_game", f"there is no game {game_id!r}", 404)
        row = self._db.execute(
            "SELECT created, updated, settings FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            raise StoreError("no_such_game", f"there is no game {game_id!r}", 404)
        settings = GameSettings.from_json(row[2])
        live = LiveGame(game_id, settings, self.lexicon(settings.lexicon, settings.tileset),
                        row[0])
        live.updated = row[1]
        self._replay(live, self._db.execute(
            "SELECT seq, at, op FROM ops WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall())
        return live

    def _replay(self, live: LiveGame, rows: Sequence[tuple[int, float, str]]) -> None:
        """Apply stored operations to ``live`` in order; one that no longer replays marks the
        game damaged (see :meth:`_load`)."""
        for seq, at, text in rows:
            op = json.loads(text)
            try:
                live.execute(op, at)
            except (ValueError, KeyError, NeedsRebuild) as exc:
                # Keep what replayed and say where it stopped; the stored log is left alone so
                # nothing is lost if a later version of the rules engine replays it fully.
                live.damaged = f"stored action {seq} ({describe_op(op)}) no longer replays: {exc}"
                break
            live.ops = seq
            live.updated = max(live.updated, at)
        live.version = live.ops

    def _catch_up(self, live: LiveGame) -> LiveGame:
        """``live`` with the operations stored after the last one it holds (by another
        process).  Returns the game now in memory: rebuilt whole if one did not apply on top."""
        if live.damaged:
            return live
        rows = self._db.execute(
            "SELECT seq, at, op FROM ops WHERE game_id = ? AND seq > ? ORDER BY seq",
            (live.id, live.ops),
        ).fetchall()
        if not rows:
            return live
        before = live.ops
        self._replay(live, rows)
        if live.damaged or live.ops != before + len(rows):
            # Replayed on top of this process's game it failed: the whole log decides.
            live = self._load(live.id)
            self._live[live.id] = live
        self._changed.notify_all()
        return live

    def state(self, game_id: str) -> dict[str, Any]:
        with self._lock:
            return self.live(game_id).snapshot()

    def state_json(self, game_id: str, *, fresh: bool = True) -> tuple[int, str]:
        """The current version and its state as JSON text, read together.  ``fresh=False``
        skips asking a shared database for news (a stream just woken by them)."""
        with self._lock:
            live = self.live(game_id) if fresh else self._loaded(game_id)
            return live.version, live.snapshot_json()

    def version(self, game_id: str) -> int:
        with self._lock:
            return self.live(game_id).version

    def wait_for_change(self, game_id: str, seen_version: int, timeout: float) -> int:
        """Block until the game's version differs from ``seen_version`` (or ``timeout``
        seconds pass); returns the current version.  The camera pipeline may use this to
        learn of answered questions.  On a shared database, changes stored by other processes
        count too: their announcements wake the waiters."""
        deadline = time.monotonic() + timeout
        with self._changed:
            if self._db.shared:
                # Announcements keep the game up to date from now on, and whatever was stored
                # before the listener heard is replayed when it starts (_resync).
                self._listen()
            while True:
                current = self._version_if_known(game_id, seen_version)
                remaining = deadline - time.monotonic()
                if current != seen_version or remaining <= 0:
                    return current
                self._changed.wait(remaining)

    def _version_if_known(self, game_id: str, otherwise: int) -> int:
        """The game's version in memory; ``otherwise`` when it is not in memory and the
        database cannot be read just now.  A waiting stream then waits on (sending its
        keep-alives) instead of ending: a browser does not reopen a stream that the server
        answered with an error."""
        try:
            return self._loaded(game_id).version
        except self._db.Error:
            return otherwise

    def _listen(self) -> None:
        """Start hearing other processes' changes, once."""
        if self._listener is None:
            self._listener = self._db.listener(weakref.WeakMethod(self._stored_elsewhere),
                                               weakref.WeakMethod(self._resync))

    def _stored_elsewhere(self, game_id: str, seq: int) -> None:
        """An announcement: operation ``seq`` of ``game_id`` is stored (maybe by this
        process, then there is nothing to do).  A database error goes to the listener, which
        connects again and then calls :meth:`_resync`; the game stays in memory as it was
        (a failed read changes nothing), so the streams watching it stay open."""
        with self._lock:
            live = self._live.get(game_id)
            if live is not None and seq > live.ops:
                self._catch_up(live)

    def _resync(self) -> None:
        """After the listener (re)connected: announcements may have been missed.  A database
        error goes to the listener, which tries again."""
        with self._lock:
            for live in list(self._live.values()):
                self._catch_up(live)
            self._changed.notify_all()

    def apply(self, game_id: str, op: dict[str, Any], *,
              op_id: str | None = None, after_seq: int | None = None) -> dict[str, Any]:
        """Validate ``op``, apply it to the live game and commit it; returns the result with
        the new ``version`` and the operation's number ``seq``.  Nothing changes when any
        check fails.

        ``op_id`` is the sender's name for the operation (a table's client sends each one
        until it hears back): when the game already holds an operation of that id, nothing is
        applied and the result is ``{"already": True, "seq": its number, "version"}``.

        ``after_seq``: apply only if operation ``after_seq`` is the game's last (else a 409
        ``behind``).  A table's copy of the game sends it: an operation made on a copy that
        lacks someone else's later change would land after that change here and before it
        there, and the copies would differ."""
        if op_id is not None and (not isinstance(op_id, str) or not 0 < len(op_id) <= OP_ID_MAX
                                  or not op_id.isprintable()):
            raise StoreError("bad_op_id", f"an operation id is 1 to {OP_ID_MAX} printable "
                                          "characters")
        with self._lock:
            applied = False
            try:
                with self._db.transaction():
                    # No other process stores an operation of this game until the commit, and
                    # every one stored before is replayed first: sequence numbers never clash.
                    self._db.lock_game(game_id)
                    live = self._catch_up(self._loaded(game_id))
                    if op_id is not None:
                        stored = self._db.execute(
                            "SELECT seq FROM ops WHERE game_id = ? AND op_id = ?",
                            (game_id, op_id)).fetchone()
                        if stored is not None:
                            return {"already": True, "seq": int(stored[0]),
                                    "version": live.version}
                    if after_seq is not None and after_seq != live.ops:
                        raise StoreError(
                            "behind", f"the game has changed since operation {after_seq}"
                                      f" (it has {live.ops}): take those changes first", 409)
                    applied = True
                    result = self._apply_to(live, op)
                    seq = live.ops + 1
                    self._db.execute(
                        "INSERT INTO ops (game_id, seq, at, op, op_id) VALUES (?, ?, ?, ?, ?)",
                        (game_id, seq, result["at"], json.dumps(result["op"]), op_id),
                    )
                    self._db.execute("UPDATE games SET updated = ?, summary = ? WHERE id = ?",
                                     (result["at"], summary_json(live), game_id))
                    self._db.announce(game_id, seq)
            except self._db.Error:
                if applied:
                    # The live game may hold an operation that is not stored: forget it.
                    self._live.pop(game_id, None)
                raise
            live.ops = seq
            live.updated = result.pop("at")
            self._bump(live)
            result["version"] = live.version
            result["seq"] = seq
            return result

    def rebase(self, game_id: str, *, keep: int, ops: Sequence[Mapping[str, Any]],
               drop: Sequence[int] = ()) -> list[dict[str, Any]]:
        """Make the game's log its first ``keep`` operations, then ``ops`` (another copy's
        operations as that copy stored them, each with its ``seq`` and ``at``: stored here
        with the operation id ``server-<seq>``), then its own operations after ``keep``
        again, but for those numbered in ``drop``.  One of its own that no longer applies on
        top is dropped too.  One transaction: all of it, or nothing (a :class:`StoreError`
        when one of ``ops`` does not apply).

        A table's copy of a club game takes in this way what others changed on the server
        (the server's order is the game's).  Returns the operations dropped, as stored, with
        ``seq`` (their former number) and ``reason``."""
        drop_set = set(drop)
        with self._lock:
            before = self._loaded(game_id)
            with self._db.transaction():
                self._db.lock_game(game_id)
                rows = self._db.execute(
                    "SELECT seq, at, op, op_id FROM ops WHERE game_id = ? ORDER BY seq",
                    (game_id,)).fetchall()
                kept = [(at, json.loads(text), op_id) for seq, at, text, op_id in rows
                        if seq <= keep]
                if len(kept) != keep:
                    raise StoreError("bad_rebase", f"the game has {len(rows)} operations, not"
                                                   f" {keep} to keep", 409)
                for op in ops:
                    body = {k: v for k, v in op.items() if k not in ("seq", "at", "op_id")}
                    kept.append((float(op["at"]), body, f"server-{int(op['seq'])}"))
                live = self._replayed(game_id, kept)
                if live.damaged:
                    raise StoreError("bad_rebase", live.damaged, 409)
                dropped = []
                for seq, at, text, op_id in rows:
                    if seq <= keep:
                        continue
                    op = json.loads(text)
                    reason = "dropped" if seq in drop_set else None
                    if reason is None:
                        try:
                            live.execute(op, at)
                        except (ValueError, KeyError, NeedsRebuild) as exc:
                            reason = str(getattr(exc, "message", exc))
                            # A refused call may have left the game half changed: replay.
                            live = self._replayed(game_id, kept)
                    if reason is None:
                        kept.append((at, op, op_id))
                        live.ops, live.updated = len(kept), max(live.updated, at)
                    else:
                        dropped.append({**op, "seq": seq, "reason": reason})
                self._db.execute("DELETE FROM ops WHERE game_id = ? AND seq > ?",
                                 (game_id, keep))
                self._db.executemany(
                    "INSERT INTO ops (game_id, seq, at, op, op_id) VALUES (?, ?, ?, ?, ?)",
                    [(game_id, seq, at, json.dumps(op), op_id)
                     for seq, (at, op, op_id) in enumerate(kept, start=1) if seq > keep])
                self._db.execute("UPDATE games SET updated = ?, summary = ? WHERE id = ?",
                                 (live.updated, summary_json(live), game_id))
                self._db.announce(game_id, len(kept))
            # Versions only grow: a page or a pipeline that saw the old log must see a change.
            live.version = max(live.ops, before.version + 1)
            self._live[game_id] = live
            self._changed.notify_all()
            return dropped

    def _replayed(self, game_id: str, log: Sequence[tuple[float, dict[str, Any], Any]]
                  ) -> LiveGame:
        """A fresh game of ``game_id``'s settings with the operations of ``log`` applied."""
        row = self._db.execute("SELECT created, settings FROM games WHERE id = ?",
                               (game_id,)).fetchone()
        settings = GameSettings.from_json(row[1])
        live = LiveGame(game_id, settings, self.lexicon(settings.lexicon, settings.tileset),
                        row[0])
        self._replay(live, [(seq, at, json.dumps(op))
                            for seq, (at, op, _) in enumerate(log, start=1)])
        return live

    def _apply_to(self, live: LiveGame, op: dict[str, Any]) -> dict[str, Any]:
        """Check ``op`` and apply it to the game in memory; returns what :meth:`apply`
        reports, with the stored form of the operation (``op``) and its time (``at``)."""
        from scorer.game import GameError

        if live.damaged:
            raise StoreError("damaged", live.damaged, 409)
        op = normalise_op(op, live)
        if op["op"] == "place" and "?" in op["tiles"].values():
            resolved, question = blank_question_for(live, op["tiles"], op.get("rack"))
            if question is not None:
                op = question
            else:
                op = {**op, "tiles": resolved}
        at = time.time()
        try:
            result = live.execute(op, at)
        except NeedsRebuild as exc:
            del self._live[live.id]
            raise exc.error from None
        except GameError as exc:
            code = getattr(exc, "code", "refused")
            message = getattr(exc, "message", str(exc))
            raise StoreError(code, message, 422) from None
        except StoreError:
            raise
        except (ValueError, KeyError) as exc:
            # Anything else the rules engine refuses: the call may have changed nothing
            # (the contract) but rebuilding is cheap and certain.
            self._live.pop(live.id, None)
            raise StoreError("refused", str(exc), 422) from None
        return {**result, "op": op, "at": at}

    def _bump(self, live: LiveGame) -> None:
        live.version += 1
        self._changed.notify_all()

    def ops(self, game_id: str, after: int = 0) -> list[dict[str, Any]]:
        """The stored operations of a game after number ``after``, in order (with ``seq``,
        ``at`` and, for one a client named, ``op_id``)."""
        with self._lock:
            return [
                {"seq": seq, "at": at, **json.loads(text),
                 **({"op_id": op_id} if op_id is not None else {})}
                for seq, at, text, op_id in self._db.execute(
                    "SELECT seq, at, op, op_id FROM ops WHERE game_id = ? AND seq > ?"
                    " ORDER BY seq", (game_id, after)
                ).fetchall()
            ]

    # -- questions (the tracker's API) --------------------------------------------------------

    def add_question(self, game_id: str, kind: str, *, options: Sequence[str] = (),
                     **data: Any) -> Question:
        """Queue a question for a person (stored like a move).  ``kind`` e.g.
        ``"blank_letter"`` (``squares=[...]``, ``options=[...]``, optional ``placement`` =
        the new tiles with ``"?"`` on the blank squares: answering then plays them) or
        ``"illegal_placement"``; ``data`` must be JSON-serialisable.  ``prompt=`` is shown as
        the question's text; ``options`` are suggested answers, and the only ones accepted
        when ``strict=True``.  The asker learns the answer from :meth:`questions` (use
        :meth:`wait_for_change` to wait for it)."""
        result = self.apply(game_id, {"op": "question", "kind": kind, "options": list(options),
                                      "data": data})
        return self.question(game_id, result["question"]["qid"])

    def answer_question(self, game_id: str, qid: int, answer: str) -> dict[str, Any]:
        return self.apply(game_id, {"op": "answer", "qid": qid, "answer": answer})

    def question(self, game_id: str, qid: int) -> Question:
        with self._lock:
            return self.live(game_id).question(qid)

    def questions(self, game_id: str, open_only: bool = False) -> list[Question]:
        with self._lock:
            qs = list(self.live(game_id).questions)
        return [q for q in qs if q.open] if open_only else qs

    # -- PIN ---------------------------------------------------------------------------------

    def _refuse_if_guessing(self, key: tuple[str, str]) -> None:
        """Raise a :class:`StoreError` (429) once ``key`` (what is guessed at, by whom) has
        had too many wrong PINs lately.  Called with the lock held."""
        failures = [t for t in self._pin_failures.get(key, []) if
                    time.monotonic() - t < PIN_WINDOW]
        self._pin_failures[key] = failures
        if len(failures) >= PIN_FAILURES_ALLOWED:
            raise StoreError("too_many_attempts",
                             "too many wrong PINs: wait a minute and try again", 429)

    def check_pin(self, game_id: str, pin: object, client: str = "") -> bool:
        """Whether ``pin`` is the game's PIN.  Too many wrong PINs from one ``client`` (its
        address) raise a :class:`StoreError` with status 429 for a while; counting per client
        means a guesser locks out only itself, not the scorekeeper.  (The count is kept by each
        server process: with several, a guesser gets as many tries per process.)"""
        if not isinstance(pin, str) or not pin or len(pin) > 64:
            return False
        key = (game_id, client)
        with self._lock:
            self._refuse_if_guessing(key)
            row = self._db.execute(
                "SELECT pin_salt, pin_hash FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise StoreError("no_such_game", f"there is no game {game_id!r}", 404)
            salt, digest = bytes(row[0]), bytes(row[1])
            token = _pin_token(pin, salt)
            if token in self._pin_ok.get(game_id, set()):
                return True
        ok = hmac.compare_digest(hash_pin(pin, salt), digest)
        if not ok:
            # The director of the club event the game is played in may change it too.
            with self._lock:
                row = self._db.execute(
                    "SELECT e.pin_salt, e.pin_hash FROM club_tables t JOIN club_events e"
                    " ON e.id = t.event_id WHERE t.game_id = ?", (game_id,)
                ).fetchone()
            if row is not None:
                ok = hmac.compare_digest(hash_pin(pin, bytes(row[0])), bytes(row[1]))
        with self._lock:
            if ok:
                self._pin_ok.setdefault(game_id, set()).add(token)
            else:
                self._pin_failures.setdefault(key, []).append(time.monotonic())
        return ok

    # -- calibration (stored for the pipeline) -------------------------------------------------

    def save_calibration(self, game_id: str, kind: str, data: Mapping[str, Any],
                         image: bytes | None = None) -> None:
        if kind not in ("corners", "empty", "layout"):
            raise StoreError("bad_calibration", f"unknown calibration kind {kind!r}")
        with self._lock:
            self.live(game_id)
            self._db.execute(
                "INSERT INTO calibration (game_id, kind, at, data, image)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id, kind) DO UPDATE SET"
                " at = excluded.at, data = excluded.data, image = excluded.image",
                (game_id, kind, time.time(), json.dumps(dict(data)), image),
            )

    def calibration(self, game_id: str) -> dict[str, dict[str, Any]]:
        """What was captured for a game: ``{kind: {"at", "data", "image"}}``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT kind, at, data, image FROM calibration WHERE game_id = ?", (game_id,)
            ).fetchall()
        return {k: {"at": at, "data": json.loads(d), "image": img} for k, at, d, img in rows}


    # -- club events: many tables at once, a director over them ------------------------------

    def create_club_event(self, name: str, *, pin: str,
                          tables: Sequence[Mapping[str, Any]]) -> str:
        """Set up a club event and a game per table; returns the event's id.  ``pin`` is the
        director's, which changes any table's game; each table is ``{"players": [...],
        "pin": the table's PIN, "name": optional, else "Table N"}`` and may carry the
        settings of :meth:`create_game` (``tileset``, ``rules``, ``clock_minutes``,
        ``lexicon``).  Everything is stored in one transaction, or nothing."""
        title = " ".join(str(name).split()) if isinstance(name, str) else ""
        if not title or len(title) > 80 or not title.isprintable():
            raise StoreError("bad_name", "an event's name is 1 to 80 printable characters",
                             field="name")
        if not isinstance(pin, str) or not PIN_RE.match(pin):
            raise StoreError("bad_pin", "the director's PIN must be 4 to 32 characters without"
                                        " spaces", field="pin")
        if not isinstance(tables, Sequence) or not 1 <= len(tables) <= MAX_TABLES:
            raise StoreError("table_count", f"1 to {MAX_TABLES} tables", field="tables")
        games: list[tuple[str, NewGame]] = []
        # The director's PIN changes every table's game: a table given it could change them
        # all.  A table is found by its name (tilecam run --table): two of one name, and a
        # table's laptop could report to the other's game.  (Tables may share a PIN: a club
        # that trusts its tables may give them all one; the form gives each its own.)
        names_seen: dict[str, int] = {}
        for number, table in enumerate(tables, start=1):
            where = f"tables.{number}"
            if not isinstance(table, Mapping):
                raise StoreError("wrong_type", f"table {number} must be an object", field=where)
            label = table.get("name") or f"Table {number}"
            if not isinstance(label, str) or len(label) > NAME_MAX or not label.isprintable():
                raise StoreError("bad_name", f"table {number}: a name of at most {NAME_MAX}"
                                             " printable characters", field=f"{where}.name")
            if table.get("pin") == pin:
                raise StoreError("same_pin", f"table {number}: its PIN is the director's; a "
                                 "table needs a PIN of its own", field=f"{where}.pin")
            folded = " ".join(label.split()).casefold()
            if folded in names_seen:
                raise StoreError("same_name", f"table {number}: table {names_seen[folded]} is "
                                 f"named {label!r} too", field=f"{where}.name")
            names_seen[folded] = number
            players = table.get("players")
            if not isinstance(players, list):
                raise StoreError("wrong_type", f"table {number}: players must be a list",
                                 field=f"{where}.players")
            try:
                games.append((" ".join(label.split()), self._new_game(
                    players, pin=table.get("pin"), tileset=table.get("tileset", "en"),
                    rules=table.get("rules"), clock_minutes=table.get("clock_minutes"),
                    lexicon=table.get("lexicon", DEFAULT_LEXICON),
                    title=f"{title}: {label}", ops=(), gcg_header=None)))
            except StoreError as exc:
                raise StoreError(exc.code, f"table {number}: {exc.message}", exc.status,
                                 field=f"{where}.{TABLE_FIELD_OF_ERROR.get(exc.code, 'players')}"
                                 ) from None
        salt = secrets.token_bytes(16)
        digest = hash_pin(pin, salt)
        event_id = new_game_id()
        with self._lock:
            with self._db.transaction():
                self._db.execute(
                    "INSERT INTO club_events (id, created, name, pin_salt, pin_hash)"
                    " VALUES (?, ?, ?, ?, ?)", (event_id, time.time(), title, salt, digest))
                for number, (label, new) in enumerate(games, start=1):
                    self._insert_game(new)
                    self._db.execute(
                        "INSERT INTO club_tables (event_id, number, name, game_id)"
                        " VALUES (?, ?, ?, ?)", (event_id, number, label, new.live.id))
            for _, new in games:
                self._adopt(new)
        return event_id

    def list_club_events(self) -> list[dict[str, Any]]:
        """Every club event, newest first: ``{"id", "name", "created", "tables"}`` (a count)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT e.id, e.name, e.created, COUNT(t.number) FROM club_events e"
                " LEFT JOIN club_tables t ON t.event_id = e.id"
                " GROUP BY e.id, e.name, e.created ORDER BY e.created DESC").fetchall()
        return [{"id": i, "name": n, "created": c, "tables": int(count)}
                for i, n, c, count in rows]

    def club_event(self, event_id: str) -> dict[str, Any]:
        """``{"id", "name", "created", "tables": [{"number", "name", "game_id"}]}``."""
        if not isinstance(event_id, str) or not GAME_ID_RE.match(event_id):
            raise StoreError("no_such_event", f"there is no event {event_id!r}", 404)
        with self._lock:
            if event_id in self._club_events:
                return self._club_events[event_id]
            row = self._db.execute("SELECT name, created FROM club_events WHERE id = ?",
                                   (event_id,)).fetchone()
            if row is None:
                raise StoreError("no_such_event", f"there is no event {event_id!r}", 404)
            tables = self._db.execute(
                "SELECT number, name, game_id FROM club_tables WHERE event_id = ?"
                " ORDER BY number", (event_id,)).fetchall()
            # Kept: an event's tables never change once it is set up, and a waiting director's
            # stream must not need the database to go on waiting.
            self._club_events[event_id] = {
                "id": event_id, "name": row[0], "created": row[1],
                "tables": [{"number": n, "name": name, "game_id": g} for n, name, g in tables]}
            return self._club_events[event_id]

    def check_director_pin(self, event_id: str, pin: object, client: str = "") -> bool:
        """Whether ``pin`` is the event director's (wrong ones count as for a game's PIN)."""
        if not isinstance(pin, str) or not pin or len(pin) > 64:
            return False
        key = (f"event:{event_id}", client)
        with self._lock:
            self._refuse_if_guessing(key)
            row = self._db.execute("SELECT pin_salt, pin_hash FROM club_events WHERE id = ?",
                                   (event_id,)).fetchone()
        if row is None:
            raise StoreError("no_such_event", f"there is no event {event_id!r}", 404)
        ok = hmac.compare_digest(hash_pin(pin, bytes(row[0])), bytes(row[1]))
        if not ok:
            with self._lock:
                self._pin_failures.setdefault(key, []).append(time.monotonic())
        return ok

    def club_overview(self, event_id: str, *, fresh: bool = True) -> dict[str, Any]:
        """What the director's page shows: every table's game in brief (board, scores, whose
        turn, questions waiting, result) and the standings of the games that have ended."""
        event = self.club_event(event_id)
        with self._lock:
            tables = []
            for table in event["tables"]:
                live = (self.live if fresh else self._loaded)(table["game_id"])
                tables.append({**table, **table_brief(live)})
        return {**event, "tables": tables, "standings": standings(tables),
                "versions": {t["game_id"]: t["version"] for t in tables}}

    def wait_for_club_change(self, event_id: str, seen: Mapping[str, int],
                             timeout: float) -> dict[str, int]:
        """Block until a game of the event has another version than in ``seen`` (game id ->
        version), or ``timeout`` seconds pass; returns the current versions."""
        game_ids = [t["game_id"] for t in self.club_event(event_id)["tables"]]
        deadline = time.monotonic() + timeout
        with self._changed:
            if self._db.shared:
                self._listen()
            while True:
                current = {g: self._version_if_known(g, seen.get(g, -1)) for g in game_ids}
                remaining = deadline - time.monotonic()
                if current != dict(seen) or remaining <= 0:
                    return current
                self._changed.wait(remaining)


def table_brief(live: LiveGame) -> dict[str, Any]:
    """One table's game as the director's page shows it."""
    game = live.game
    cells = game.board.cells
    over = bool(game.over)
    last = game.last_play()
    return {
        "version": live.version,
        "players": [{"name": name, "score": score}
                    for name, score in zip(game.players, game.scores, strict=True)],
        "turn": None if over else game.turn,
        "over": over,
        "winners": list(game.winner()) if over else [],
        "board": ["".join(t or "." for t in cells[r * SIZE:(r + 1) * SIZE])
                  for r in range(SIZE)],
        "last_squares": ([sq.name for sq in last.play.placement.squares]
                         if last and last.play else []),
        "questions": [q.kind for q in live.questions if q.open],
        "moves": len(game.events),
        "damaged": live.damaged,
        "clock": live.clocks.to_dict(time.time(), game.turn),
    }


def standings(tables: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Wins (a shared first place counts half) and spread (points over the best opponent)
    per player over the games that have ended, best first.

    >>> ended = {"over": True, "winners": [0], "players": [
    ...     {"name": "Ann", "score": 400}, {"name": "Bob", "score": 350}]}
    >>> [(r["player"], r["played"], r["wins"], r["spread"]) for r in standings([ended])]
    [('Ann', 1, 1.0, 50), ('Bob', 1, 0.0, -50)]
    """
    rows: dict[str, dict[str, Any]] = {}
    for table in tables:
        if not table["over"]:
            continue
        players = table["players"]
        winners = table["winners"]
        for index, player in enumerate(players):
            best_other = max(p["score"] for i, p in enumerate(players) if i != index)
            row = rows.setdefault(player["name"], {"player": player["name"], "played": 0,
                                                   "wins": 0.0, "spread": 0})
            row["played"] += 1
            row["wins"] += 1.0 / len(winners) if index in winners else 0.0
            row["spread"] += player["score"] - best_other
    return sorted(rows.values(), key=lambda r: (-r["wins"], -r["spread"], r["player"]))


def summary_json(live: LiveGame) -> str:
    """What the list of games shows, kept in the games table so listing replays nothing."""
    return json.dumps({"scores": list(live.game.scores), "over": bool(live.game.over)})


def _pin_token(pin: str, salt: bytes) -> bytes:
    return hashlib.sha256(salt + pin.encode("utf-8")).digest()


def validate_name(name: object) -> str:
    """A player's name: 1 to 40 printable characters.

    >>> validate_name("  Ann ")
    'Ann'
    >>> validate_name("")
    Traceback (most recent call last):
    ...
    webui.store.StoreError: bad_name: a player's name must not be empty
    """
    if not isinstance(name, str):
        raise StoreError("bad_name", "a player's name must be a string")
    name = " ".join(name.split())
    if not name:
        raise StoreError("bad_name", "a player's name must not be empty")
    if len(name) > NAME_MAX:
        raise StoreError("bad_name", f"a player's name is at most {NAME_MAX} characters")
    if not name.isprintable():
        raise StoreError("bad_name", "a player's name must be printable characters")
    return name


# -- normalising operations ---------------------------------------------------------------------

def _letters(live: LiveGame, text: str, what: str, *, allow_blank: bool = True,
             allow_dot: bool = False) -> str:
    """Check each tile of ``text`` against the game's tile set."""
    try:
        tiles = live.tileset.split(text)
    except TileError as exc:
        raise StoreError("bad_letters", f"{what}: {exc}") from None
    for tile in tiles:
        if tile == "." and allow_dot:
            continue
        if tile == "?" and allow_blank:
            continue
        try:
            if tile in ".?":
                raise TileError(f"{tile!r} is not allowed here")
            live.tileset.check_letter(tile)
        except TileError as exc:
            raise StoreError("bad_letters", f"{what}: {exc}") from None
    return text


def normalise_op(op: Any, live: LiveGame) -> dict[str, Any]:
    """Check an operation's shape and types and return it in stored form (only known keys).

    Rule checks (whose turn, legal placement, ...) are the game's; this is about input."""
    if not isinstance(op, dict) or not isinstance(op.get("op"), str):
        raise StoreError("bad_request", "an operation is a JSON object with a string 'op'")
    kind = op["op"]
    n_players = len(live.settings.players)
    out: dict[str, Any] = {"op": kind}

    def rack() -> None:
        r = require_str(op, "rack", max_len=20, optional=True)
        if r is not None:
            out["rack"] = _letters(live, r.upper().replace(".", "?"), "rack")

    if kind == "play":
        position = require_str(op, "position", max_len=4)
        if not re.fullmatch(r"(?:[A-Oa-o](?:1[0-5]|[1-9]))|(?:(?:1[0-5]|[1-9])[A-Oa-o])",
                            position or ""):
            raise StoreError("bad_position",
                             f"{position!r} is not a position like 8D (across) or D8 (down)")
        out["position"] = position
        word = require_str(op, "word", max_len=40)
        out["word"] = _letters(live, word, "word", allow_blank=False, allow_dot=True)
        rack()
    elif kind == "place":
        tiles = op.get("tiles")
        if not isinstance(tiles, dict) or not tiles or len(tiles) > 15:
            raise StoreError("bad_tiles",
                             "tiles must be an object of 1 to 15 {square: letter} pairs")
        clean: dict[str, str] = {}
        for name, letter in tiles.items():
            square = parse_square(name, "a tile's square")
            if not isinstance(letter, str) or not letter or len(letter) > 4:
                raise StoreError("bad_tiles", f"{square}: the letter must be a short string")
            tiles_in = live.tileset.split(letter)
            if len(tiles_in) != 1:
                raise StoreError("bad_tiles", f"{square}: {letter!r} is not one tile")
            _letters(live, letter, f"tile on {square}")
            clean[square.name] = letter
        out["tiles"] = clean
        rack()
    elif kind == "pass":
        rack()
    elif kind == "set_up":
        tiles = op.get("tiles")
        if not isinstance(tiles, dict) or len(tiles) > SIZE * SIZE:
            raise StoreError("bad_tiles",
                             "tiles must be an object of {square: letter} pairs, one a square "
                             "(none: the board empty again)")
        clean = {}
        for name, letter in tiles.items():
            square = parse_square(name, "a tile's square")
            if not isinstance(letter, str) or len(live.tileset.split(letter)) != 1:
                raise StoreError("bad_tiles", f"{square}: {letter!r} is not one tile")
            if letter != "?":
                _letters(live, letter.upper(), f"tile on {square}")
            clean[square.name] = letter
        out["tiles"] = clean
    elif kind == "exchange":
        tiles = op.get("tiles")
        if isinstance(tiles, int) and not isinstance(tiles, bool):
            if not 1 <= tiles <= live.game.rules.rack_size:
                raise StoreError("out_of_range", "exchange between 1 and a full rack of tiles")
            out["tiles"] = tiles
        elif isinstance(tiles, str) and tiles.strip().isdigit():
            out["tiles"] = require_int(op, "tiles", low=1, high=live.game.rules.rack_size)
        else:
            text = require_str(op, "tiles", max_len=20)
            out["tiles"] = _letters(live, text.upper(), "exchanged tiles")
        rack()
    elif kind == "challenge":
        challenger = require_int(op, "challenger", low=0, high=n_players - 1, optional=True)
        if challenger is not None:
            out["challenger"] = challenger
    elif kind == "withdraw":
        pass
    elif kind == "undo":
        _who(op, out)
    elif kind == "edit":
        _normalise_edit(op, out, live)
    elif kind == "end_by_agreement":
        racks = op.get("racks")
        if not isinstance(racks, dict):
            raise StoreError("rack_required", "ending by agreement needs every player's unplayed "
                             "tiles: racks = {player index: tiles}")
        clean_racks = {}
        for key, value in racks.items():
            index = require_int({"player": key}, "player", low=0, high=n_players - 1)
            text = require_str({"rack": value}, "rack", max_len=20, optional=True)
            if text is None:
                continue  # the game names every player whose rack is missing
            clean_racks[str(index)] = _letters(live, text.upper().replace(".", "?"),
                                               f"{live.settings.players[index]}'s rack")
        out["racks"] = clean_racks
    elif kind in ("resign", "time_out"):
        out["player"] = require_int(op, "player", low=0, high=n_players - 1)
    elif kind == "challenge_bonus":
        points = require_int(op, "points", low=0, high=1000, optional=True)
        if points is not None:
            out["points"] = points
    elif kind == "lose_turn":
        player = require_int(op, "player", low=0, high=n_players - 1, optional=True)
        if player is not None:
            out["player"] = player
    elif kind == "end_game":
        racks = op.get("racks")
        if racks is not None:
            if not isinstance(racks, dict):
                raise StoreError("wrong_type", "racks must be an object {player index: rack}")
            clean_racks: dict[str, str] = {}
            for key, value in racks.items():
                index = require_int({"player": key}, "player", low=0, high=n_players - 1)
                if value is None or (isinstance(value, str) and not value.strip()):
                    continue
                if not isinstance(value, str) or len(value) > 20:
                    raise StoreError("wrong_type", f"rack of player {index} must be letters")
                clean_racks[str(index)] = _letters(live, value.strip().upper(), "rack")
            out["racks"] = clean_racks or None
        else:
            out["racks"] = None
        # The clocks are read now and the minutes stored: replay must not depend on clocks.
        minutes = live.clocks.overtime_minutes(time.time(), live.game.turn)
        out["time_penalties"] = {str(p): m for p, m in enumerate(minutes) if m > 0}
    elif kind == "time_penalty":
        out["player"] = require_int(op, "player", low=0, high=n_players - 1)
        out["minutes"] = require_int(op, "minutes", low=1, high=600)
    elif kind == "adjust":
        out["player"] = require_int(op, "player", low=0, high=n_players - 1)
        out["points"] = require_int(op, "points", low=-1000, high=1000)
        out["reason"] = require_str(op, "reason", max_len=100)
    elif kind == "correct":
        out["square"] = parse_square(op.get("square")).name
        letter = require_str(op, "letter", max_len=4)
        if len(live.tileset.split(letter)) != 1 or letter in ".?":
            raise StoreError("bad_letters", f"{letter!r} is not one letter")
        out["letter"] = _letters(live, letter, "letter", allow_blank=False)
    elif kind == "clock":
        action = op.get("action")
        if action not in ("start", "pause"):
            raise StoreError("bad_request", "clock action must be 'start' or 'pause'")
        out["action"] = action
    elif kind == "question":
        qkind = require_str(op, "kind", max_len=40)
        if not re.fullmatch(r"[a-z_]+", qkind or ""):
            raise StoreError("bad_request", "a question's kind is lower-case letters and _")
        data = op.get("data", {})
        options = op.get("options", [])
        if not isinstance(data, dict):
            raise StoreError("wrong_type", "a question's data must be an object")
        if not isinstance(options, list) or not all(isinstance(o, str) and len(o) <= 60
                                                    for o in options) or len(options) > 100:
            raise StoreError("wrong_type", "options must be a list of at most 100 short strings")
        text = json.dumps(data)
        if len(text) > 20_000:
            raise StoreError("too_long", "a question's data is limited to 20,000 characters")
        if qkind == "blank_letter":
            squares = data.get("squares")
            if not isinstance(squares, list) or not squares or len(squares) > 2:
                raise StoreError("bad_question", "a blank_letter question names 1 or 2 squares")
            data = dict(data)
            data["squares"] = [parse_square(s).name for s in squares]
            placement = data.get("placement")
            if placement is not None:
                if not isinstance(placement, dict):
                    raise StoreError("bad_question", "placement must be {square: letter}")
                data["placement"] = {parse_square(k).name: v for k, v in placement.items()}
                for s in data["squares"]:
                    if data["placement"].get(s) != "?":
                        raise StoreError("bad_question",
                                         f"the placement must have '?' on blank square {s}")
        out.update(kind=qkind, data=data, options=list(options))
    elif kind == "answer":
        qid = require_int(op, "qid", low=1, high=1_000_000)
        q = live.question(qid)
        answer = require_str(op, "answer", max_len=60)
        if q.kind == "blank_letter":
            letters = live.tileset.split(answer)
            if len(letters) != len(q.data["squares"]) or any(t in ".?" for t in letters):
                raise StoreError(
                    "bad_answer",
                    f"name {len(q.data['squares'])} letter(s), one per blank, got {answer!r}",
                )
            answer = _letters(live, answer.upper(), "answer", allow_blank=False)
        elif q.options and q.data.get("strict") and answer not in q.options:
            # Options are suggestions (the players may know better: "pass", "8D FIRNS"),
            # unless the asker said only they make sense.
            raise StoreError("bad_answer", f"answer one of: {', '.join(q.options)}")
        out.update(qid=qid, answer=answer)
    else:
        raise StoreError("unknown_op", f"unknown operation {kind!r}")
    return out


def _who(op: Mapping[str, Any], out: dict[str, Any]) -> None:
    """Who made a change (a name given with it) and from where (set by the HTTP layer)."""
    for key in ("by", "client"):
        value = require_str(op, key, max_len=60, optional=True)
        if value is not None:
            out[key] = value


def _whole_number(value: Any) -> Any:
    """A form's whole number as an int; anything else as it is (refused later by name).

    >>> _whole_number("-5"), _whole_number(3), _whole_number("x")
    (-5, 3, 'x')
    """
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,6}\s*", value):
        return int(value)
    return value


def _normalise_edit(op: Mapping[str, Any], out: dict[str, Any], live: LiveGame) -> None:
    """``change`` (replace, delete, insert), ``number`` (the event as the page numbers it,
    from 1; for an insert, the event the new one goes before, or one past the last) and,
    but for a delete, ``event``: the new event (see :class:`scorer.edits.Action`)."""
    from scorer.edits import Action, EditKind
    from scorer.game import GameError

    change = op.get("change")
    if change not in [k.value for k in EditKind]:
        raise StoreError("bad_edit", "'change' must be 'replace', 'delete' or 'insert', "
                                     f"not {change!r}")
    count = len(live.game.events)
    last = count + 1 if change == "insert" else count
    if count == 0 and change != "insert":
        raise StoreError("bad_edit", "the game has no event yet to change", 409)
    out["change"] = change
    out["number"] = require_int(op, "number", low=1, high=max(last, 1))
    if change != "delete":
        event = op.get("event")
        if isinstance(event, dict):
            # The page sends every field of its form: empty ones mean "not given".
            event = {k: _whole_number(v) if k in ("player", "count", "score") else v
                     for k, v in event.items() if v is not None and v != ""}
        try:
            action = Action.from_dict(event, len(live.settings.players))  # type: ignore[arg-type]
        except GameError as exc:
            raise StoreError(exc.code, exc.message) from None
        out["event"] = action.to_dict()
    _who(op, out)


def blank_question_for(live: LiveGame, tiles: Mapping[str, str],
                       rack: str | None) -> tuple[dict[str, str] | None, dict[str, Any] | None]:
    """For camera tiles where a blank's letter is unknown (``"?"``), either the tiles with the
    one letter choice the word list allows, or (``None``, a question op) when it allows
    several or none."""
    from scorer.rules import words_with_unknown_blanks

    blanks = sorted(name for name, letter in tiles.items() if letter == "?")
    if not blanks:
        return dict(tiles), None
    squares = {Square.parse(k): v for k, v in tiles.items()}
    words = words_with_unknown_blanks(live.game.board, squares)
    solutions = live.lexicon.blank_solutions(words, live.tileset, limit=40)
    # Ids in words_with_unknown_blanks number the blanks in square order.
    ordered = sorted(Square.parse(b) for b in blanks)
    if len(solutions) == 1:
        resolved = dict(tiles)
        for blank_id, square in enumerate(ordered):
            resolved[square.name] = solutions[0][blank_id].lower()
        return resolved, None
    options = ["".join(sol[i] for i in range(len(ordered))) for sol in solutions]
    data: dict[str, Any] = {"squares": [s.name for s in ordered], "placement": dict(tiles),
                            "words": ["".join(str(x) if isinstance(x, str) else "?" for x in w)
                                      for w in words]}
    if rack:
        data["rack"] = rack
    return None, {"op": "question", "kind": "blank_letter", "options": options, "data": data}


def premium_rows() -> list[list[str]]:
    """The premium code of every square, row by row (what the page colours squares by)."""
    return [list(row) for row in PREMIUM_LAYOUT]

__all__ = [
    "DEFAULT_LEXICON",
    "GameSettings",
    "GameStore",
    "LiveGame",
    "Question",
    "StoreError",
    "blank_question_for",
    "default_database",
    "describe_op",
    "event_dict",
    "normalise_op",
]
