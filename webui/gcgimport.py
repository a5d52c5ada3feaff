"""A GCG game record turned into the operations a stored game is made of.

The record is read and replayed by :mod:`scorer.gcg` (which recomputes every score and reports
where the record disagrees with the rules); each event of the replayed game then becomes one
stored operation, so the imported game lives in the store like any other: it replays after a
restart, it can be reviewed, continued, corrected and undone move by move.

>>> imported = import_gcg(b'''#player1 ann Ann Smith
... #player2 bob Bob
... >ann: AHNORST 8E HORN +14 14
... >bob: AEFMRTU G6 FA.M +13 13
... >ann: AEIOPST - +0 14
... ''')
>>> imported.players, [op["op"] for op in imported.ops], imported.ops[1]["word"]
(['Ann Smith', 'Bob'], ['play', 'play', 'pass'], 'FA.M')
>>> imported.warnings, imported.format_warnings
([], [])

Harmless faults in how the record is written are read as meant and named (the game is the same):

>>> sloppy = import_gcg(b'#player1 ann Ann\\n#player2 bob Bob\\n\\n>ann: AHNORST 8E HORN +14 14 ')
>>> sloppy.format_warnings  # doctest: +NORMALIZE_WHITESPACE
['line 3: blank_line: an empty line',
 'line 4: missing_final_newline: the last line has no line break',
 'line 4: trailing_whitespace: spaces or tabs after the end of the line']
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scorer.game import Game
    from scorer.gcg import GCGRecord, Header

#: Largest record read (the upload limit is larger; a real game is a few kilobytes).
MAX_RECORD_BYTES = 512 * 1024


class GcgImportError(ValueError):
    """A record that cannot be read or replayed; the message names the line."""


@dataclass
class ImportedGame:
    players: list[str]
    tileset: str
    rules: dict[str, Any]
    title: str = ""
    ops: list[dict[str, Any]] = field(default_factory=list)
    #: Where the record disagrees with the rules (the game keeps the rules' values).
    warnings: list[str] = field(default_factory=list)
    #: Harmless faults in how the record is written, read as meant (``scorer.gcg.GCGWarning``).
    format_warnings: list[str] = field(default_factory=list)
    #: What the record says besides its events, for the export (:func:`header_dict`).
    header: dict[str, Any] = field(default_factory=dict)


def header_dict(record: GCGRecord, events: int) -> dict[str, Any]:
    """The record's header as JSON-able data: the pragmas the game does not use (in order,
    each with its place), the description, ``#id``, ``#lexicon``, the closing ``#rackN``
    lines, and ``events``, the number of events imported (the racks hold only while the game
    has those events: after a move more they are no longer the last racks)."""
    header = record.header
    return {
        "description": header.description, "game_id": header.game_id, "lexicon": header.lexicon,
        "last_racks": {str(i): rack for i, rack in header.last_racks.items()},
        "kept_pragmas": [asdict(p) for p in header.kept_pragmas],
        "events": events,
    }


def header_from_dict(data: dict[str, Any], game: Game, base: Header) -> Header:
    """``base`` (title, lexicon of the stored game) with an imported record's header added
    back, as :func:`header_dict` kept it.

    >>> from scorer.game import Game
    >>> from scorer.gcg import Header, read_gcg, write_gcg
    >>> record = read_gcg("#player1 a A\\n#player2 b B\\n#id x.y 7\\n#zz kept\\n>a: 8G HI +10 10\\n"
    ...                   "#rack2 QAT\\n")
    >>> kept = header_dict(record, 1)
    >>> game = Game(["A", "B"]); _ = game.play("8G", "HI")
    >>> print(write_gcg(game, header_from_dict(kept, game, Header())), end="")
    #character-encoding UTF-8
    #player1 A A
    #player2 B B
    #id x.y 7
    #zz kept
    >A: 8G HI +10 10
    #rack2 QAT
    """
    from dataclasses import replace

    from scorer.gcg import Pragma

    same_events = data.get("events") == len(game.events)
    return replace(
        base,
        description=data.get("description") or base.description,
        game_id=data.get("game_id") or base.game_id,
        lexicon=data.get("lexicon") or base.lexicon,
        last_racks={int(i): r for i, r in data.get("last_racks", {}).items()} if same_events
        else {},
        kept_pragmas=tuple(Pragma(**p) for p in data.get("kept_pragmas", [])),
    )


def op_for_event(event: Any) -> dict[str, Any]:
    """The stored operation that makes ``event`` again on a game in the same state."""
    from scorer.game import EventKind

    kind = event.kind
    p = event.player
    op: dict[str, Any]
    if kind is EventKind.PLAY:
        op = {"op": "play", "position": event.play.position, "word": event.play.gcg_word,
              "player": p, "check_rack": False}
        if event.rack:
            op["rack"] = event.rack
    elif kind is EventKind.EXCHANGE:
        op = {"op": "exchange", "tiles": event.tiles if event.tiles else event.count,
              "player": p, "check_rack": False}
        if event.rack:
            op["rack"] = event.rack
    elif kind is EventKind.PASS:
        op = {"op": "pass", "player": p}
        if event.rack:
            op["rack"] = event.rack
    elif kind is EventKind.WITHDRAWN:
        op = {"op": "withdraw"}
    elif kind is EventKind.CHALLENGE_BONUS:
        op = {"op": "challenge_bonus", "points": event.score}
    elif kind is EventKind.LOST_TURN:
        op = {"op": "lose_turn", "player": p}
    elif kind is EventKind.END_RACK_POINTS:
        op = {"op": "end_rack_points", "player": p, "score": event.score}
    elif kind is EventKind.END_RACK_PENALTY:
        op = {"op": "end_rack_penalty", "player": p, "tiles": event.tiles, "score": event.score}
    elif kind is EventKind.TIME_PENALTY:
        op = {"op": "time_penalty", "player": p, "score": event.score}
    elif kind is EventKind.ADJUSTMENT:
        return {"op": "adjust", "player": p, "points": event.score, "reason": event.note or ""}
    elif kind is EventKind.AGREED_END:
        op = {"op": "end_by_agreement", "player": p}  # the rack lines follow as their own ops
    elif kind is EventKind.RESIGNED:
        op = {"op": "resign", "player": p}
    elif kind is EventKind.TIMED_OUT:
        op = {"op": "time_out", "player": p}
    else:
        raise GcgImportError(f"an event of kind {kind} cannot be stored")
    if event.note:
        op["note"] = event.note
    return op


def import_gcg(data: bytes, tileset: str | None = None) -> ImportedGame:
    """Read and replay a record (bytes, any of the encodings GCG files use)."""
    from scorer.gcg import GCGError, read_gcg, replay

    if len(data) > MAX_RECORD_BYTES:
        raise GcgImportError(f"the record is larger than {MAX_RECORD_BYTES // 1024} KB")
    try:
        record = read_gcg(data, tileset=tileset)
        result = replay(record)
    except GCGError as exc:
        raise GcgImportError(str(exc)) from None
    except (ValueError, KeyError) as exc:
        raise GcgImportError(f"the record cannot be read: {exc}") from None
    if len(record.players) < 2:
        raise GcgImportError("the record declares fewer than 2 players")
    names = [" ".join((p.name or p.nickname).split())[:40] for p in record.players]
    if len({n.casefold() for n in names}) != len(names):
        names = [p.nickname[:40] for p in record.players]
    return ImportedGame(
        players=names,
        tileset=record.tileset.code,
        rules=result.game.rules.to_dict(),
        title=(record.title or "")[:80],
        ops=([{"op": "set_up", "tiles": {sq.name: t for sq, t in result.game.start_position}}]
             if result.game.start_position else []) + [
            op_for_event(e) for e in result.game.events],
        warnings=[str(m) for m in result.mismatches],
        format_warnings=[str(w) for w in result.warnings],
        header=header_dict(record, len(result.game.events)),
    )
