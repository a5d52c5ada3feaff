"""GCG game records: read, replay with every score recomputed, and write.

One file, about 1,000 lines, on purpose: the format's reader and writer side by side keep each
construct's parse beside its written form, on which the round trip relies.

:func:`read_gcg` turns the bytes (or text) of a record into a :class:`GCGRecord`, checking the
format: pragmas and their order, players, event lines, racks.  :func:`replay` plays the record
through a :class:`scorer.game.Game`, recomputing every score from the board, and reports each
place where the record disagrees with the rules as a :class:`Mismatch`.  A record that cannot be
read or replayed (a malformed line, an illegal placement, an event out of turn, tiles that do not
exist) raises :class:`GCGError` naming the fault, the line and what is wrong.  :func:`write_gcg`
writes a game in canonical GCG that reads back to the same game.

The reader is forgiving about how a record is written and strict about the game.  Harmless
faults (spaces at the end of a line, an empty line, no line break after the last line, a pragma
repeated with the same value, an indented line) are read as meant and listed, each with its
line, as a :class:`GCGWarning` in ``record.warnings``; anything that could change who played
what, or a score, stays a :class:`GCGError`.  Pragmas the reader does not use (``#game-type``,
``#incomplete``, ``#time``, unknown ones...) are kept as :class:`Pragma` with their place, and
:func:`write_gcg` writes them back there: in the header, or after the event they followed.

>>> text = '''#player1 ada Ada
... #player2 ben Ben
... >ada: EHNORSU 8F HORN +14 14
... >ben: AFGILMT H6 FA.M +9 9
... >ada: AEEPSTU 10F PASTE +20 34
... '''
>>> result = replay(read_gcg(text))
>>> [(m.line, m.code, m.recorded, m.computed) for m in result.mismatches]
[(5, 'score_mismatch', 20, 25)]
>>> result.final_scores
{'ada': 39, 'ben': 9}
>>> print(write_gcg(result.game, result.record.header), end="")
#character-encoding UTF-8
#player1 ada Ada
#player2 ben Ben
>ada: EHNORSU 8F HORN +14 14
>ben: AFGILMT H6 FA.M +9 9
>ada: AEEPSTU 10F PASTE +25 39
>>> read_gcg("#player1 a A\\n#player2 a B\\n")
Traceback (most recent call last):
...
scorer.gcg.GCGError: line 2: duplicate_nicknames: nickname 'a' is already player 1's

>>> sloppy = read_gcg('''#player1 ada Ada
... #player2 ben Ben
... #title Club night
... #title Club night
... #game-type classic
... >ada: EHNORSU 8F HORN +14 14
...
... #time 0:42
... >ben: AFGILMT H6 FA.M +9 9''')
>>> for warning in sloppy.warnings:
...     print(warning)
line 4: repeated_pragma: #title repeats line 3
line 7: blank_line: an empty line
line 9: missing_final_newline: the last line has no line break
>>> print(write_gcg(replay(sloppy).game, sloppy.header), end="")
#character-encoding UTF-8
#player1 ada Ada
#player2 ben Ben
#title Club night
#game-type classic
>ada: EHNORSU 8F HORN +14 14
#time 0:42
>ben: AFGILMT H6 FA.M +9 9
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorer.game import (
    EndReason,
    Event,
    EventKind,
    Game,
    GameError,
    OutBonus,
    Rules,
    join_tiles,
    missing_tiles,
    rack_form,
)
from scorer.rules import IllegalPlay, parse_position, position_name, split_tiles
from scorer.squares import SIZE, Square
from scorer.tiles import ALIASES, BLANK, TileError, TileSet

#: The note line that marks a pass as a turn lost to a failed challenge.
LOST_TURN_MARK = "#unsuccessful-challenge"

#: Endings GCG has no line for, written as tilecam's own event tokens (like ``(adjustment)``):
#: ``>ann: (agreed) +0 312`` (the players agreed nobody can go; each rack then follows as a
#: last-rack penalty line, ``>ann: EIR (EIR) -3 309``), ``>bob: (resigned) +0 250`` and
#: ``>bob: (timeout) +0 250`` (the player lost on time; an overtime penalty is a ``(time)``
#: line as usual).  Token -> event kind of the record.
_ENDING_TOKENS = {"(agreed)": "agreed", "(resigned)": "resigned", "(timeout)": "timeout"}
#: The token each ending event is written with.
_ENDING_WRITTEN = {EventKind.AGREED_END: "(agreed)", EventKind.RESIGNED: "(resigned)",
                   EventKind.TIMED_OUT: "(timeout)"}  # fmt: skip

#: Declared encodings we read (upper case, without spaces), and the codec for each.
_ENCODINGS = {
    "UTF-8": "utf-8", "UTF8": "utf-8",
    "ISO-8859-1": "latin-1", "ISO8859-1": "latin-1", "LATIN-1": "latin-1", "LATIN1": "latin-1",
}  # fmt: skip

#: Pragmas that describe the whole game: once each, and before the first event.
_HEADER_PRAGMAS = frozenset({
    "title", "description", "id", "lexicon", "game-type", "board-layout", "tile-set",
    "tile-distribution", "orientation", "incomplete", "style", "start-position",
})  # fmt: skip

#: Header pragmas the reader takes in and :func:`write_gcg` writes from the game and the
#: :class:`Header`; the other header pragmas are kept as written (:class:`Pragma`).
_USED_HEADER_PRAGMAS = frozenset({"title", "description", "id", "lexicon", "tile-distribution",
                                  "orientation", "start-position"})  # fmt: skip

#: Free text that may differ when repeated: the first is used, the others are kept as written.
#: Any other pragma repeated with another value leaves the game in doubt (which lexicon, which
#: title, whose rack), so it stays a ``redundant_pragma`` error.
_FREE_TEXT_PRAGMAS = frozenset({"description"})

#: Harmless faults that may stand on many lines: each is one warning, at its first line, whose
#: message names up to _LINES_NAMED of the others (a padded file is not a page of warnings).
_RECURRING_FAULTS = {
    "trailing_whitespace": "spaces or tabs after the end of the line",
    "blank_line": "an empty line",
    "indented_line": "spaces or tabs before a pragma or an event",
}
_LINES_NAMED = 10

_GAME_VARIANTS = frozenset({"classic"})
_BOARD_LAYOUTS = frozenset({"standard15", "crosswordgame", "standard"})

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_PRAGMA = re.compile(r"#(\S*)\s*(.*)$")
_EVENT = re.compile(r">([^:]*):(.*)$")
_POSITION_LIKE = re.compile(r"^(?:\d+[A-Za-z]|[A-Za-z]\d+)$")
_NUMBER = re.compile(r"^[+-]?\d+$")
_PLAYER_PRAGMA = re.compile(r"player(\d+)$")
_RACK_PRAGMA = re.compile(r"rack(\d+)$")

#: Game refusals that GCG readers know under another name (MAGPIE's, lower case).
_GCG_CODES = {
    "not_your_turn": "game_event_off_turn",
    "game_over": "move_event_after_game_end",
    "game_not_over": "end_game_event_before_game_end",
    "no_play_to_withdraw": "phony_tiles_returned_without_play",
    "no_play_to_challenge": "challenge_bonus_without_play",
    "off_board": "play_out_of_bounds",
    "bad_position": "invalid_tile_placement",
    "unknown_letter": "malformed_play",
}


class GCGError(ValueError):
    """A record that cannot be read or replayed: ``code`` names the fault, ``line`` is 1-based
    (0 when it concerns the whole file).  When replay stops, ``mismatches`` holds what it had
    found on the lines before."""

    def __init__(self, code: str, line: int, message: str) -> None:
        super().__init__(f"line {line}: {code}: {message}")
        self.code = code
        self.line = line
        self.message = message
        self.mismatches: list[Mismatch] = []
        #: Harmless faults the reader had met before this one.
        self.warnings: list[GCGWarning] = []


@dataclass(frozen=True, slots=True)
class GCGWarning:
    """A harmless fault in how a record is written: read as meant, and named with its line.

    >>> warning = GCGWarning(4, "repeated_pragma", "#title repeats line 3")
    >>> str(warning)
    'line 4: repeated_pragma: #title repeats line 3'
    >>> warning.to_dict()
    {'line': 4, 'code': 'repeated_pragma', 'message': '#title repeats line 3'}
    """

    line: int
    code: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "code": self.code, "message": self.message}

    def __str__(self) -> str:
        return f"line {self.line}: {self.code}: {self.message}"


@dataclass(frozen=True, slots=True)
class Pragma:
    """A pragma line the game does not use, kept to be written back where it was.

    ``after`` is the number of events before it (0: in the header) and ``notes_before`` the
    number of that event's note lines before it; ``after_racks`` is True for one that followed
    the closing ``#rackN`` lines.  ``line`` is where the record had it.

    >>> kept = Pragma("time", "0:42", after=1)
    >>> str(kept), str(Pragma("incomplete", ""))
    ('#time 0:42', '#incomplete')
    """

    keyword: str
    value: str
    after: int = 0
    notes_before: int = 0
    after_racks: bool = False
    line: int = 0

    def __str__(self) -> str:
        # One line whatever the value holds: a line break would make a line of its own.
        value = " ".join(_LINE_BREAK.split(self.value))
        return f"#{self.keyword} {value}".rstrip()


@dataclass(frozen=True)
class GCGPlayer:
    nickname: str
    name: str


@dataclass(frozen=True, slots=True)
class GCGEvent:
    """One event line as written (scores as recorded), with its notes."""

    line: int
    player: int
    #: play, withdrawn, pass, exchange, challenge, end_points, end_penalty, time, adjustment,
    #: agreed, resigned, timeout
    kind: str
    score: int
    cumulative: int
    text: str  # what follows the nickname, without the scores: "13A .ÄLE", "-AGÜ", "(ERYH)"
    rack: tuple[str, ...] | None = None
    position: str | None = None
    word: str | None = None
    tiles: tuple[str, ...] | None = None  # exchanged tiles, or the rack in parentheses
    count: int | None = None  # tiles exchanged when only their number is written
    note: str | None = None


@dataclass
class Header:
    """What a record says about the game besides its events."""

    names: list[str] | None = None  # full names, in player order (default: the nicknames)
    title: str | None = None
    description: str | None = None
    game_id: str | None = None  # "io.woogles p6QRjJHG"
    lexicon: str | None = None
    last_racks: dict[int, str] = field(default_factory=dict)  # #rack1.. (player index -> rack)
    #: Pragmas written back as they are, each in its place (see :class:`Pragma`).
    kept_pragmas: tuple[Pragma, ...] = ()


@dataclass
class GCGRecord:
    players: list[GCGPlayer]
    events: list[GCGEvent]
    tileset: TileSet
    lettered_rows: bool = False
    encoding: str = "utf-8"
    title: str | None = None
    description: str | None = None
    game_id: str | None = None
    lexicon: str | None = None
    tile_distribution: str | None = None
    game_type: str | None = None
    incomplete: bool = False
    last_racks: dict[int, tuple[tuple[str, ...], int]] = field(default_factory=dict)
    #: Every pragma the game does not use, as written and in order (see :class:`Pragma`).
    kept_pragmas: tuple[Pragma, ...] = ()
    #: Harmless faults in how the record is written, by line.
    warnings: list[GCGWarning] = field(default_factory=list)
    #: The tiles the game started from (``#start-position``: a game joined in progress), and
    #: the line that gave them.
    start_position: dict[Square, str] = field(default_factory=dict)
    start_position_line: int = 0

    @property
    def nicknames(self) -> list[str]:
        return [p.nickname for p in self.players]

    @property
    def other_pragmas(self) -> list[tuple[int, str, str]]:
        """(line, keyword, value) of each pragma the format does not define."""
        return [(p.line, p.keyword, p.value) for p in self.kept_pragmas
                if p.keyword not in _HEADER_PRAGMAS]  # fmt: skip

    @property
    def header(self) -> Header:
        return Header(
            names=[p.name for p in self.players],
            title=self.title,
            description=self.description,
            game_id=self.game_id,
            lexicon=self.lexicon,
            last_racks={
                i: join_tiles(r, self.tileset) for i, (r, _) in sorted(self.last_racks.items())
            },
            kept_pragmas=self.kept_pragmas,
        )


@dataclass(frozen=True)
class Mismatch:
    """A place where the record says something other than the rules give."""

    line: int
    code: str
    recorded: int | str
    computed: int | str
    text: str
    player: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line, "code": self.code, "recorded": self.recorded,
            "computed": self.computed, "text": self.text, "player": self.player,
            "message": self.message,
        }  # fmt: skip

    def __str__(self) -> str:
        return f"line {self.line}: {self.message} [{self.code}]"


@dataclass
class ReplayResult:
    record: GCGRecord
    game: Game
    mismatches: list[Mismatch]
    #: (record event, game event) for each line, in order.
    pairs: list[tuple[GCGEvent, Event]]

    @property
    def ok(self) -> bool:
        return not self.mismatches

    @property
    def warnings(self) -> list[GCGWarning]:
        """Harmless faults in how the record is written (they leave ``ok`` as it is)."""
        return self.record.warnings

    @property
    def final_scores(self) -> dict[str, int]:
        """Each player's total as the rules give it."""
        return dict(zip(self.record.nicknames, self.game.scores, strict=True))

    @property
    def recorded_scores(self) -> dict[str, int]:
        """Each player's last running total as recorded (0 with no event)."""
        out = dict.fromkeys(self.record.nicknames, 0)
        for e in self.record.events:
            out[self.record.players[e.player].nickname] = e.cumulative
        return out

    def to_gcg(self) -> str:
        return write_gcg(self.game, self.record.header, lettered_rows=self.record.lettered_rows)


# ---------------------------------------------------------------------------------- reading


def tileset_for(name: str | None) -> str | None:
    """The tile set a ``#lexicon`` or ``#tile-distribution`` value implies, if any.

    >>> tileset_for("OSPS49"), tileset_for("D25WL04"), tileset_for("german"), tileset_for("CSW21")
    ('pl', 'de', 'de', None)
    """
    if not name:
        return None
    word = name.strip().split()[0].lower() if name.strip() else ""
    if word in ALIASES or word in TileSet.available():
        return ALIASES.get(word, word)
    up = name.upper()
    rules = (
        (("OSPS", "OSW", "POLISH"), "pl"),
        (("GERMAN", "DEUTSCH", "DE-"), "de"),
        (("FRENCH", "ODS", "FRA"), "fr"),
        (("SPANISH", "FILE", "FISE"), "es"),
        (("NORWEGIAN", "NSF"), "no"),
        (("CATALAN", "DISC"), "ca"),
        (("DUTCH",), "nl"),
        (("SLOVENE", "SLOVENIAN"), "sl"),
    )
    for prefixes, code in rules:
        if up.startswith(prefixes):
            return code
    if re.match(r"D\d+WL", up):  # German tournament lists: D25WL04
        return "de"
    return None


def _decode(data: bytes, encoding: str | None) -> tuple[str, str]:
    """Text and codec: a declared encoding (first line) wins, else UTF-8 if it decodes, else
    ISO-8859-1 (the format's default)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if encoding is not None:
        try:
            return data.decode(encoding), encoding
        except (UnicodeDecodeError, LookupError) as exc:
            raise GCGError("undecodable", 0, f"cannot decode as {encoding}: {exc}") from None
    first = _LINE_BREAK.split(data.decode("latin-1"), maxsplit=1)[0]
    m = _PRAGMA.match(first)
    if m and m.group(1).lower() == "character-encoding":
        declared = m.group(2).strip()
        codec = _ENCODINGS.get(declared.upper().replace(" ", ""))
        if codec is None:
            raise GCGError(
                "unsupported_character_encoding",
                1,
                f"encoding {declared!r} is not supported (UTF-8 or ISO-8859-1)",
            )
        try:
            return data.decode(codec), codec
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise GCGError("undecodable", line, f"not valid {declared}: {exc.reason}") from None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def _infer_tileset(lines: Sequence[str]) -> TileSet:
    """The tile set whose letters cover every letter the event lines use (English first)."""
    letters: set[str] = set()
    for line in lines:
        if line.startswith(">") and ":" in line:
            letters.update(ch.upper() for ch in line.split(":", 1)[1] if ch.isalpha())
    order = ["en"] + [c for c in TileSet.available() if c != "en"]
    for code in order:
        ts = TileSet.named(code)
        if letters <= set(ts.counts):
            return ts
    return TileSet.named("en")


def load_gcg(path: str | Path, **options: Any) -> GCGRecord:
    """Read a record from a file; see :func:`read_gcg` for the options."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise GCGError("unreadable", 0, f"{path}: {exc.strerror or exc}") from None
    return read_gcg(data, **options)


def read_gcg(
    source: bytes | str,
    *,
    lettered_rows: bool = False,
    tileset: TileSet | str | None = None,
    encoding: str | None = None,
) -> GCGRecord:
    """Parse a GCG record.

    ``source`` is the file's bytes (the encoding is worked out) or already-decoded text.
    ``lettered_rows``: squares are named with the row letter first (``H4`` = row H, column 4,
    across), as the scrabscrap project writes them; ``#orientation lettered-rows`` in the file
    does the same.  ``tileset`` overrides the one implied by ``#tile-distribution``,
    ``#lexicon`` or, failing those, by the letters used.  ``encoding`` overrides the declared or
    detected one.  Harmless faults in how the record is written are in its ``warnings``; a
    :class:`GCGError` carries those met before it.
    """
    if isinstance(source, bytes):
        text, codec = _decode(source, encoding)
    else:
        text, codec = source, "text"
        if text.startswith("\ufeff"):
            text = text[1:]
    return _Parser(text, codec, lettered_rows, tileset).parse()


class _Parser:
    def __init__(
        self, text: str, codec: str, lettered_rows: bool, tileset: TileSet | str | None
    ) -> None:
        self.lines = _LINE_BREAK.split(text)
        self.codec = codec
        self.lettered = lettered_rows
        self.explicit_tileset = (
            tileset if isinstance(tileset, TileSet) or tileset is None else TileSet.named(tileset)
        )
        self.players: dict[int, GCGPlayer] = {}
        self.player_lines: dict[int, int] = {}
        self.pragmas: dict[str, str] = {}
        self.pragma_lines: dict[str, int] = {}
        self.events: list[dict[str, Any]] = []
        self.last_racks: dict[int, tuple[tuple[str, ...], int]] = {}
        self.kept: list[Pragma] = []
        self.tileset: TileSet | None = None
        self.note_open = False
        self.nick_index: dict[str, int] = {}
        self.faulty_lines: dict[str, list[int]] = {code: [] for code in _RECURRING_FAULTS}
        self.warnings: list[GCGWarning] = []

    # -------------------------------------------------------------- driver

    def parse(self) -> GCGRecord:
        if not any(line.strip() for line in self.lines):
            raise GCGError("gcg_empty", 1, "the file is empty")
        try:
            self._lines()
            return self._record()
        except GCGError as exc:
            exc.warnings = self._warnings()
            raise

    def _lines(self) -> None:
        # A text that ends with a line break splits into a last empty string: no line at all.
        last = len(self.lines) - 1 if self.lines[-1] == "" else len(self.lines)
        for number, raw in enumerate(self.lines[:last], start=1):
            line = raw.rstrip()
            if not line:
                self.faulty_lines["blank_line"].append(number)
                continue
            if line != raw:
                self.faulty_lines["trailing_whitespace"].append(number)
            if line[0].isspace() and not self.note_open and line.lstrip()[0] in "#>":
                # Outside a note an indented pragma or event can be nothing else; inside one,
                # it is the note's text (as MAGPIE and macondo read it).
                self.faulty_lines["indented_line"].append(number)
                line = line.lstrip()
            if line.startswith("#"):
                self._pragma(number, line)
            elif line.startswith(">"):
                self.note_open = False
                self._event(number, line)
            elif self.note_open:
                ev = self.events[-1]
                ev["note"] = f"{ev['note']}\n{line.strip()}" if ev["note"] else line.strip()
            else:
                raise GCGError(
                    "no_matching_token", number, f"neither a pragma nor an event: {line!r}"
                )
        if last == len(self.lines):
            self._warn(last, "missing_final_newline", "the last line has no line break")

    def _warn(self, number: int, code: str, message: str) -> None:
        self.warnings.append(GCGWarning(number, code, message))

    def _warnings(self) -> list[GCGWarning]:
        """Every warning by line; a fault met on several lines is one warning, at the first."""
        out = list(self.warnings)
        for code, numbers in self.faulty_lines.items():
            if numbers:
                message = _RECURRING_FAULTS[code] + _also_on(numbers[1:])
                out.append(GCGWarning(numbers[0], code, message))
        return sorted(out, key=lambda w: w.line)

    def _record(self) -> GCGRecord:
        self._check_players(len(self.lines) + 1, events_follow=False)
        tileset = self._tileset()
        ordered = [self.players[i] for i in sorted(self.players)]
        return GCGRecord(
            players=ordered,
            events=[GCGEvent(**e) for e in self.events],
            tileset=tileset,
            lettered_rows=self.lettered,
            encoding=self.codec,
            title=self.pragmas.get("title"),
            description=self.pragmas.get("description"),
            game_id=self.pragmas.get("id"),
            lexicon=self.pragmas.get("lexicon"),
            tile_distribution=self.pragmas.get("tile-distribution"),
            game_type=self.pragmas.get("game-type"),
            incomplete="incomplete" in self.pragmas,
            last_racks=self.last_racks,
            kept_pragmas=tuple(self.kept),
            warnings=self._warnings(),
            start_position=(
                position_tiles(self.pragmas["start-position"], tileset,
                               self.pragma_lines["start-position"])
                if "start-position" in self.pragmas else {}),
            start_position_line=self.pragma_lines.get("start-position", 0),
        )

    def _tileset(self) -> TileSet:
        if self.tileset is None:
            if self.explicit_tileset is not None:
                self.tileset = self.explicit_tileset
            else:
                code = tileset_for(self.pragmas.get("tile-distribution")) or tileset_for(
                    self.pragmas.get("lexicon")
                )
                self.tileset = TileSet.named(code) if code else _infer_tileset(self.lines)
        return self.tileset

    # -------------------------------------------------------------- pragmas

    def _pragma(self, number: int, line: str) -> None:
        m = _PRAGMA.match(line)
        assert m is not None
        keyword, value = m.group(1).lower(), m.group(2).strip()
        if keyword == "note":
            if not self.events:
                raise GCGError("note_precedent_event", number, "a #note must follow an event")
            ev = self.events[-1]
            ev["note"] = f"{ev['note']}\n{value}" if ev["note"] else value
            self.note_open = True
            return
        if keyword == "-" and self.note_open:  # macondo's continuation line
            ev = self.events[-1]
            ev["note"] = f"{ev['note']}\n{value}" if ev["note"] else value
            return
        self.note_open = False
        if keyword == "character-encoding":
            if number != 1:
                raise GCGError(
                    "misplaced_encoding", number, "#character-encoding must be the first line"
                )
            return
        if (pm := _PLAYER_PRAGMA.match(keyword)) is not None:
            self._player(number, int(pm.group(1)), value)
            return
        if (rm := _RACK_PRAGMA.match(keyword)) is not None:
            self._last_rack(number, int(rm.group(1)), value)
            return
        if keyword in _HEADER_PRAGMAS:
            if self.events:
                raise GCGError(
                    "pragma_succeeded_event", number, f"#{keyword} must come before the events"
                )
            if keyword in self.pragmas:
                first_line = self.pragma_lines[keyword]
                same = value.split() == self.pragmas[keyword].split()
                if not self._repeated(number, keyword, value, same, first_line):
                    raise GCGError(
                        "redundant_pragma",
                        number,
                        f"#{keyword} {value!r} contradicts line {first_line} "
                        f"({self.pragmas[keyword]!r})",
                    )
                return
            self.pragmas[keyword] = value
            self.pragma_lines[keyword] = number
            if keyword not in _USED_HEADER_PRAGMAS:
                self._keep(number, keyword, value)
            if keyword == "game-type" and value.lower() not in _GAME_VARIANTS:
                raise GCGError(
                    "unrecognized_game_variant", number, f"game type {value!r} is not supported"
                )
            if keyword == "board-layout" and value.lower() not in _BOARD_LAYOUTS:
                raise GCGError(
                    "unsupported_board_layout", number, f"board layout {value!r} is not supported"
                )
            if keyword == "orientation" and value.lower() == "lettered-rows":
                self.lettered = True
            return
        self._keep(number, keyword, value)  # unknown pragmas are kept, not fatal

    def _keep(self, number: int, keyword: str, value: str) -> None:
        note = self.events[-1]["note"] if self.events else None
        notes = note.count("\n") + 1 if note else 0
        self.kept.append(
            Pragma(keyword, value, len(self.events), notes, bool(self.last_racks), number)
        )

    def _repeated(self, number: int, keyword: str, value: str, same: bool, first_line: int) -> bool:
        """A pragma met again (``same``: saying what it said on ``first_line``): True when that
        is harmless (warned; a repeat with other free text is kept), False when the two
        contradict each other."""
        if same:
            self._warn(number, "repeated_pragma", f"#{keyword} repeats line {first_line}")
            return True
        if keyword in _FREE_TEXT_PRAGMAS:
            self._warn(
                number, "repeated_pragma",
                f"#{keyword} again (first on line {first_line}): the first is used, this one "
                "is kept as written",
            )  # fmt: skip
            self._keep(number, keyword, value)
            return True
        return False

    def _player(self, number: int, index: int, value: str) -> None:
        if self.events:
            raise GCGError(
                "pragma_succeeded_event", number, f"#player{index} must come before the events"
            )
        if not 1 <= index <= 4:
            raise GCGError("player_number_invalid", number, f"#player{index}: players are 1 to 4")
        parts = value.split(None, 1)
        if not parts:
            raise GCGError("player_malformed", number, f"#player{index} has no nickname")
        nick = parts[0]
        name = parts[1].strip() if len(parts) > 1 else nick
        if index - 1 in self.players:
            first = self.players[index - 1]
            same = (nick, name.split()) == (first.nickname, first.name.split())
            first_line = self.player_lines[index - 1]
            if not self._repeated(number, f"player{index}", value, same, first_line):
                raise GCGError(
                    "player_number_redundant",
                    number,
                    f"#player{index} is declared again, otherwise than on line {first_line}",
                )
            return
        for other_index, other in self.players.items():
            if other.nickname == nick:
                raise GCGError(
                    "duplicate_nicknames",
                    number,
                    f"nickname {nick!r} is already player {other_index + 1}'s",
                )
            if other.name == name:
                raise GCGError(
                    "duplicate_names",
                    number,
                    f"name {name!r} is already player {other_index + 1}'s",
                )
        self.players[index - 1] = GCGPlayer(nick, name)
        self.player_lines[index - 1] = number
        self.nick_index[nick] = index - 1

    def _check_players(self, number: int, events_follow: bool) -> None:
        count = len(self.players)
        if count < 2 or sorted(self.players) != list(range(count)):
            declared = ", ".join(f"#player{i + 1}" for i in sorted(self.players)) or "none"
            code = "game_event_before_player" if events_follow else "players_missing"
            raise GCGError(
                code, number, f"a game needs #player1 and #player2 (declared: {declared})"
            )

    def _last_rack(self, number: int, index: int, value: str) -> None:
        if index - 1 not in self.players:
            raise GCGError("player_does_not_exist", number, f"#rack{index}: no player {index}")
        tokens = value.split()
        rack = self._rack(number, tokens[0] if tokens else "", f"#rack{index}")
        if index - 1 in self.last_racks:
            first, first_line = self.last_racks[index - 1]
            same = sorted(rack) == sorted(first)
            if not self._repeated(number, f"rack{index}", value, same, first_line):
                raise GCGError(
                    "redundant_pragma", number, f"#rack{index} contradicts line {first_line}"
                )
            return
        self.last_racks[index - 1] = (rack, number)

    # -------------------------------------------------------------- events

    def _rack(self, number: int, text: str, what: str) -> tuple[str, ...]:
        ts = self._tileset()
        tiles = split_tiles(ts, text) if text else ()
        for t in tiles:
            if t != BLANK and (t not in ts.counts or t != t.upper()):
                raise GCGError(
                    "rack_malformed", number, f"{what} {text!r}: {t!r} is not a {ts.name} tile"
                )
        return tiles

    def _number(self, number: int, token: str | None, what: str) -> int:
        if token is None or not _NUMBER.match(token):
            raise GCGError("no_matching_token", number, f"expected {what}, found {token!r}")
        return int(token)

    def _event(self, number: int, line: str) -> None:
        self._check_players(number, events_follow=True)
        if self.last_racks:
            first = min(n for _, n in self.last_racks.values())
            raise GCGError(
                "event_after_last_rack", number, f"an event follows the #rack line {first}"
            )
        m = _EVENT.match(line)
        if m is None:
            raise GCGError("no_matching_token", number, f"an event line needs 'NICK:': {line!r}")
        nick = m.group(1).strip()
        if nick not in self.nick_index:
            raise GCGError(
                "player_does_not_exist", number, f"{nick!r} is not a declared nickname"
            )
        player = self.nick_index[nick]
        tokens = m.group(2).split()
        if not tokens:
            raise GCGError("no_matching_token", number, f"an empty event: {line!r}")
        i = 0 if _action_like(tokens[0]) else 1
        rack_text = tokens[0] if i == 1 else None
        action = tokens[i] if i < len(tokens) else None
        if action is None or not _action_like(action):
            raise GCGError("no_matching_token", number, f"no move in {line.strip()!r}")
        rack = None if rack_text is None else self._rack(number, rack_text, "rack")
        ev: dict[str, Any] = {"line": number, "player": player, "rack": rack, "note": None}
        ts = self._tileset()
        if _POSITION_LIKE.match(action):
            word = tokens[i + 1] if i + 1 < len(tokens) else None
            if word is None:
                raise GCGError("no_matching_token", number, f"{action}: no word")
            for t in split_tiles(ts, word.replace("(", "").replace(")", "")):
                if t != "." and t.upper() not in ts.counts or t == BLANK:
                    raise GCGError(
                        "malformed_play", number, f"{action} {word}: {t!r} is not a {ts.name} tile"
                    )
            ev.update(kind="play", position=action, word=word, text=f"{action} {word}")
            scores = tokens[i + 2 : i + 4]
        elif action == "--":
            ev.update(kind="withdrawn", text="--")
            scores = tokens[i + 1 : i + 3]
        elif action == "-":
            ev.update(kind="pass", text="-")
            scores = tokens[i + 1 : i + 3]
        elif action.startswith("-"):
            body = action[1:]
            if body.isdigit():
                ev.update(kind="exchange", count=int(body), text=action)
            else:
                tiles = self._rack(number, body, "exchange")
                ev.update(kind="exchange", tiles=tiles, count=len(tiles), text=action)
            scores = tokens[i + 1 : i + 3]
        elif action.lower() == "(challenge)":
            ev.update(kind="challenge", text=action)
            scores = tokens[i + 1 : i + 3]
        elif action.lower() == "(time)":
            ev.update(kind="time", text=action)
            scores = tokens[i + 1 : i + 3]
        elif action.lower() == "(adjustment)":
            ev.update(kind="adjustment", text=action)
            scores = tokens[i + 1 : i + 3]
        elif action.lower() in _ENDING_TOKENS:
            ev.update(kind=_ENDING_TOKENS[action.lower()], text=action)
            scores = tokens[i + 1 : i + 3]
        else:  # (RACK): points for going out, or a player's own rack lost
            tiles = self._rack(number, action[1:-1], "end rack")
            scores = tokens[i + 1 : i + 3]
            score = self._number(number, scores[0] if scores else None, "a score")
            kind = "end_penalty" if rack is not None or score < 0 else "end_points"
            ev.update(kind=kind, tiles=tiles, text=action)
        ev["score"] = self._number(number, scores[0] if scores else None, "a score")
        ev["cumulative"] = self._number(
            number, scores[1] if len(scores) > 1 else None, "a running total"
        )
        self.events.append(ev)


def _also_on(numbers: Sequence[int]) -> str:
    """The other lines a fault is on, for its one warning.

    >>> _also_on([]), _also_on([7]), _also_on([7, 9])
    ('', ' (also on line 7)', ' (also on lines 7, 9)')
    >>> _also_on(list(range(2, 14)))
    ' (also on lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 2 more)'
    """
    if not numbers:
        return ""
    named = ", ".join(str(n) for n in numbers[:_LINES_NAMED])
    more = len(numbers) - _LINES_NAMED
    lines = "line" if len(numbers) == 1 else "lines"
    return f" (also on {lines} {named}{f' and {more} more' if more > 0 else ''})"


def _action_like(token: str) -> bool:
    """True for the token that says what an event is (not a rack)."""
    return (
        token.startswith("-")
        or (token.startswith("(") and token.endswith(")"))
        or _POSITION_LIKE.match(token) is not None
    )


# ---------------------------------------------------------------------------------- replay


def _standard_position(record: GCGRecord, position: str, line: int) -> str:
    """The position in standard naming (row number for across), from how the record names it."""
    try:
        square, direction = parse_position(position)
    except IllegalPlay as exc:
        raise GCGError("invalid_tile_placement", line, exc.message) from None
    if record.lettered_rows:
        square, direction = square.transposed(), direction.other
    return position_name(square, direction)


def replay(record: GCGRecord, rules: Rules | None = None) -> ReplayResult:
    """Play the record through a :class:`Game`, every score recomputed.

    Disagreements are collected as :class:`Mismatch` (the game keeps the rules' value); faults
    that stop the replay raise :class:`GCGError`.  A running total is checked against the
    previous recorded total plus the computed score; a record that carries a wrong score into
    its totals, or whose totals follow the rules despite a wrong score token, is reported once,
    at the line of the wrong score.
    """
    n = len(record.players)
    if rules is None:
        rules = Rules(out_bonus=OutBonus.DOUBLE if n == 2 else OutBonus.TRANSFER)
    game = Game(record.nicknames, record.tileset, rules)
    if record.start_position:
        try:
            game.set_up(record.start_position)
        except GameError as exc:
            raise GCGError("bad_start_position", record.start_position_line,
                           exc.message) from None
    return _Replayer(record, game).run()


class _Replayer:
    def __init__(self, record: GCGRecord, game: Game) -> None:
        self.record = record
        self.game = game
        self.ts = record.tileset
        self.nicks = record.nicknames
        self.mismatches: list[Mismatch] = []
        self.pairs: list[tuple[GCGEvent, Event]] = []
        # Candidate offsets (recorded total - computed total) per player; see _check_total.
        self.drift: list[list[int]] = [[0] for _ in record.players]
        self.recorded_play_score: int | None = None

    def join(self, tiles: Sequence[str]) -> str:
        return join_tiles(tiles, self.ts)

    def report(
        self, ev: GCGEvent, code: str, recorded: int | str, computed: int | str, message: str
    ) -> None:
        nick = self.nicks[ev.player]
        self.mismatches.append(
            Mismatch(ev.line, code, recorded, computed, ev.text, nick, f"{nick}: {message}")
        )

    def run(self) -> ReplayResult:
        try:
            for ev in self.record.events:
                try:
                    event = self.apply(ev)
                except GameError as exc:
                    code = _GCG_CODES.get(exc.code, exc.code)
                    raise GCGError(code, ev.line, exc.message) from None
                self.pairs.append((ev, event))
                self.check_total(ev, event)
            self.last_racks()
        except GCGError as exc:
            exc.mismatches = list(self.mismatches)
            exc.warnings = list(self.record.warnings)
            raise
        return ReplayResult(self.record, self.game, self.mismatches, self.pairs)

    # -------------------------------------------------------------- events

    def apply(self, ev: GCGEvent) -> Event:
        """Apply one line to the game (which keeps the rules' scores); report what disagrees."""
        g = self.game
        rack = None if ev.rack is None else self.join(ev.rack)
        kind = ev.kind
        if kind == "play":
            assert ev.position is not None and ev.word is not None
            position = _standard_position(self.record, ev.position, ev.line)
            event = g.play(
                position, ev.word, rack, player=ev.player, note=ev.note, check_rack=False
            )
            assert event.play is not None
            if ev.rack is not None:
                placed = [rack_form(t) for _, t in event.play.placement.tiles]
                missing = missing_tiles(placed, ev.rack)
                if missing:
                    self.report(
                        ev, "played_tile_not_in_rack", rack or "", self.join(placed),
                        f"{ev.text} places {self.join(missing)}, not on the rack {rack}",
                    )  # fmt: skip
            if ev.score != event.score:
                self.report(
                    ev, "score_mismatch", ev.score, event.score,
                    f"{ev.text} recorded {ev.score:+d}, the rules give {event.score:+d}",
                )  # fmt: skip
            self.recorded_play_score = ev.score
            return event
        if kind == "withdrawn":
            pending = g.pending_challenge()
            if pending is None or pending.kind is not EventKind.PLAY:
                raise GCGError(
                    "phony_tiles_returned_without_play", ev.line, "no play to take back"
                )
            if pending.player != ev.player:
                raise GCGError(
                    "invalid_phony_tiles_player_index",
                    ev.line,
                    f"the play being taken back is {self.nicks[pending.player]}'s",
                )
            if ev.rack is not None and pending.rack is not None:
                if sorted(ev.rack) != sorted(split_tiles(self.ts, pending.rack)):
                    self.report(
                        ev, "phony_tiles_returned_mismatch", rack or "", pending.rack,
                        f"tiles taken back from rack {rack} but the play was made from "
                        f"{pending.rack}",
                    )  # fmt: skip
            event = g.withdraw(note=ev.note)
            recorded_play = self.recorded_play_score
            # Taking back exactly what the record credited for the play is consistent, even
            # when that credit was itself wrong (reported on the play's line).
            if ev.score != event.score and (recorded_play is None or ev.score != -recorded_play):
                self.report(
                    ev, "withdrawal_mismatch", ev.score, event.score,
                    f"withdrawal recorded {ev.score:+d}, the play scored {-event.score:+d}",
                )  # fmt: skip
            return event
        if kind == "pass":
            note = ev.note
            marked = note is not None and note.split("\n", 1)[0].strip() == LOST_TURN_MARK
            if marked:
                assert note is not None
                note = note.split("\n", 1)[1] if "\n" in note else None
            if marked or (g.over and g.pending_challenge() is not None):
                # Marked, or right after the play that ended the game: a turn lost to a
                # failed challenge.
                event = g.lose_turn(ev.player, note=note)
            else:
                event = g.pass_turn(rack, player=ev.player, note=ev.note)
            self.zero_score(ev)
            return event
        if kind == "exchange":
            what: str | int = self.join(ev.tiles) if ev.tiles is not None else (ev.count or 0)
            event = g.exchange(what, rack, player=ev.player, note=ev.note, check_rack=False)
            if ev.tiles is not None and ev.rack is not None:
                missing = missing_tiles(ev.tiles, ev.rack)
                if missing:
                    self.report(
                        ev, "exchange_not_in_rack", rack or "", self.join(ev.tiles),
                        f"exchange {ev.text} but the rack {rack} does not hold "
                        f"{self.join(missing)}",
                    )  # fmt: skip
            self.zero_score(ev)
            return event
        if kind == "challenge":
            pending = g.pending_challenge()
            if pending is None or pending.kind is not EventKind.PLAY:
                raise GCGError(
                    "challenge_bonus_without_play", ev.line, "no play for a challenge bonus"
                )
            if pending.player != ev.player:
                raise GCGError(
                    "invalid_challenge_bonus_player_index",
                    ev.line,
                    f"the challenged play is {self.nicks[pending.player]}'s",
                )
            return g.challenge_bonus(ev.score, note=ev.note)
        if kind == "end_points":
            return self.end_points(ev)
        if kind == "end_penalty":
            return self.end_penalty(ev)
        if kind == "time":
            # GCG writes points, not minutes: a whole number of minutes at the rules' rate.
            rate = g.rules.overtime_points_per_minute
            minutes = -ev.score // rate if rate and ev.score < 0 and ev.score % rate == 0 else 0
            return g.time_penalty(ev.player, minutes, score=ev.score, note=ev.note)
        if kind == "adjustment":
            return g.adjust(ev.player, ev.score, ev.note or "")
        if kind in ("agreed", "resigned", "timeout"):
            if kind == "agreed":
                event = g.end_by_agreement(ev.player, note=ev.note)
            elif kind == "resigned":
                event = g.resign(ev.player, note=ev.note)
            else:
                event = g.lose_on_time(ev.player, note=ev.note)
            self.zero_score(ev)
            return event
        raise AssertionError(f"unknown event kind {kind}")

    def zero_score(self, ev: GCGEvent) -> None:
        if ev.score != 0:
            self.report(ev, "score_mismatch", ev.score, 0, f"{ev.text} scores 0, not {ev.score:+d}")

    def end_points(self, ev: GCGEvent) -> Event:
        g = self.game
        if not g.over:
            raise GameError("game_not_over", "points for the last rack before the game ended")
        left = g.unseen()
        value = self.ts.rack_value(list(left.elements()))
        if g.end_reason is EndReason.OUT and ev.tiles is not None and Counter(ev.tiles) != left:
            self.report(
                ev, "end_rack_tiles_mismatch", self.join(ev.tiles),
                self.join(sorted(left.elements())),
                f"{ev.text}: the tiles left are {self.join(sorted(left.elements()))}",
            )  # fmt: skip
        # Modern records write 2x the opponent's rack; older ones +1x here and -1x for the
        # opponent on the next line.  Either is consistent.
        usual = 2 * value if len(self.nicks) == 2 else value
        computed = ev.score if ev.score in (value, 2 * value) else usual
        event = g.end_rack_points(ev.player, score=computed, note=ev.note)
        if ev.score != computed:
            self.report(
                ev, "rack_end_points_incorrect", ev.score, computed,
                f"{ev.text} recorded {ev.score:+d}; the tiles left are worth {value} "
                f"({computed:+d})",
            )  # fmt: skip
        return event

    def end_penalty(self, ev: GCGEvent) -> Event:
        g = self.game
        if not g.over:
            raise GameError("game_not_over", "a last-rack penalty before the game ended")
        stated = ev.tiles if ev.tiles is not None else ev.rack or ()
        if ev.rack is not None and ev.tiles is not None and Counter(ev.rack) != Counter(ev.tiles):
            self.report(
                ev, "played_letters_not_in_rack", self.join(ev.rack), self.join(ev.tiles),
                f"rack {self.join(ev.rack)} but {ev.text} in parentheses",
            )  # fmt: skip
        derived = g.derived_rack(ev.player)
        tiles = stated
        if derived is not None:
            truth = split_tiles(self.ts, derived)
            if Counter(truth) != Counter(stated):
                self.report(
                    ev, "end_rack_tiles_mismatch", self.join(stated), derived,
                    f"{ev.text}: the tiles left are {derived}",
                )  # fmt: skip
            tiles = truth
        computed = -self.ts.rack_value(list(tiles))
        event = g.end_rack_penalty(ev.player, self.join(tiles), computed, note=ev.note)
        if ev.score != computed:
            self.report(
                ev, "end_rack_penalty_incorrect", ev.score, computed,
                f"{ev.text} recorded {ev.score:+d}; the rack is worth {-computed}",
            )  # fmt: skip
        return event

    def last_racks(self) -> None:
        """``#rackN``: each rack must exist among the tiles off the board (else the record
        cannot be right); racks that only together need more tiles than are left are reported
        as a mismatch (one of them is wrong, the record does not say which)."""
        taken: list[str] = []
        for index, (rack, line) in sorted(self.record.last_racks.items()):
            text = f"#rack{index + 1} {self.join(rack)}"
            try:
                self.game.set_rack(index, self.join(rack))
            except GameError as exc:
                raise GCGError(_GCG_CODES.get(exc.code, exc.code), line, exc.message) from None
            try:
                self.game.check_tiles_left(rack, also_taken=taken, what=text)
            except GameError as exc:
                nick = self.nicks[index]
                self.mismatches.append(Mismatch(
                    line, "last_racks_not_in_bag", self.join(rack),
                    self.join(sorted(self.game.unseen() - Counter(taken))),
                    text, nick, f"{nick}: {exc.message} (with the racks before it)",
                ))  # fmt: skip
            taken.extend(rack)

    # -------------------------------------------------------------- running totals

    def check_total(self, ev: GCGEvent, event: Event) -> None:
        """Compare the recorded running total with the computed one.

        The record may differ from the game by an offset (``drift``) that an earlier reported
        line explains: a wrong score carried into the totals.  At a line whose score differs
        from the rules, the total may follow either the record's score or the rules'.  A total
        that fits no candidate is reported, and the record's value becomes the first candidate
        (a record may carry its own arithmetic error forward or return to the right total).
        """
        p = event.player
        delta = ev.score - event.score
        options: list[int] = []
        for d in self.drift[p]:
            for option in (d + delta, d) if delta else (d,):
                if option not in options:
                    options.append(option)
        for option in options:
            if event.total + option == ev.cumulative:
                self.drift[p] = [option]
                return
        expected = event.total + options[0]
        self.report(
            ev, "cumulative_scoring_error", ev.cumulative, expected,
            f"running total {ev.cumulative} after {ev.text} {ev.score:+d}; expected {expected}",
        )  # fmt: skip
        self.drift[p] = [ev.cumulative - event.total, *options[:3]]


# ---------------------------------------------------------------------------------- writing


def _nicknames(players: Sequence[str]) -> list[str]:
    """Single-token, distinct nicknames for the event lines."""
    out: list[str] = []
    for i, name in enumerate(players):
        nick = re.sub(r"[\s:]+", "_", name.strip()) or f"player{i + 1}"
        while nick in out:
            nick = f"{nick}_{i + 1}"
        out.append(nick)
    return out


def _note_lines(note: str) -> list[str]:
    lines = [line.strip() for line in note.split("\n")]
    out = [f"#note {lines[0]}".rstrip()]
    for line in lines[1:]:
        # A continuation line must not look like a pragma or an event.
        out.append(f" {line}" if line.startswith(("#", ">")) else line)
    return out


def write_gcg(game: Game, header: Header | None = None, *, lettered_rows: bool = False) -> str:
    """The game as canonical GCG (UTF-8 text, LF line ends).

    The header's kept pragmas are written where the record had them: those of the header after
    the pragmas written here, the others after the event they followed (after the game's last
    event when it has fewer), after the ``#rackN`` lines those that followed them.
    """
    header = header or Header()
    # Kept pragmas by the number of events before them; a game shorter than the record (moves
    # undone) still writes every one, after its last event.
    kept: dict[int, list[Pragma]] = {}
    end = len(game.events)
    for pragma in header.kept_pragmas:
        place = end + 1 if pragma.after_racks else min(pragma.after, end)
        kept.setdefault(place, []).append(pragma)
    nicks = _nicknames(game.players)
    names = header.names or list(game.players)
    out = ["#character-encoding UTF-8"]
    for i, nick in enumerate(nicks):
        name = names[i] if i < len(names) and names[i] else nick
        out.append(f"#player{i + 1} {nick} {' '.join(name.split())}")
    for keyword, value in (
        ("title", header.title), ("description", header.description),
        ("id", header.game_id), ("lexicon", header.lexicon),
    ):  # fmt: skip
        if value:
            out.append(f"#{keyword} {' '.join(value.split())}")
    if game.tileset.code != "en":
        out.append(f"#tile-distribution {game.tileset.name}")
    if lettered_rows:
        out.append("#orientation lettered-rows")
    if game.start_position:
        out.append(f"#start-position {position_text(game.start_position, game.tileset)}")
    out.extend(str(pragma) for pragma in kept.get(0, []))
    for count, event in enumerate(game.events, start=1):
        line, note = _event_line(event, nicks[event.player], lettered_rows, game.tileset)
        out.append(line)
        out.extend(_notes_and_kept(note, kept.get(count, [])))
    for index, rack in sorted(header.last_racks.items()):
        out.append(f"#rack{index + 1} {rack}")
    out.extend(str(pragma) for pragma in kept.get(end + 1, []))
    return "\n".join(out) + "\n"


def position_text(tiles: Iterable[tuple[Square, str]], tileset: TileSet) -> str:
    """Tiles on the board as the board part of a CGP position: rows from the top, ``/``
    between them, a number for each run of empty squares, a blank's letter in lower case, a
    tile of several letters in brackets.

    >>> en = TileSet.named("en")
    >>> position_text([(Square(7, 7), "H"), (Square(7, 8), "i"), (Square(14, 0), "A")], en)
    '15/15/15/15/15/15/15/7Hi6/15/15/15/15/15/15/A14'
    """
    rows = [[""] * SIZE for _ in range(SIZE)]
    for square, tile in tiles:
        rows[square.row][square.col] = tile if len(tile) == 1 else f"[{tile}]"
    out = []
    for row in rows:
        text, empty = "", 0
        for tile in row:
            if not tile:
                empty += 1
                continue
            text += (str(empty) if empty else "") + tile
            empty = 0
        out.append(text + (str(empty) if empty else ""))
    return "/".join(out)


_POSITION_TOKEN = re.compile(r"(\d+)|\[([^\]]+)\]|(.)")


def position_tiles(text: str, tileset: TileSet, line: int = 0) -> dict[Square, str]:
    """The tiles of :func:`position_text`'s form; :class:`GCGError` (``bad_start_position``,
    at ``line``) where it is not 15 rows of 15 squares of the set's letters.

    >>> sorted((str(sq), t) for sq, t in position_tiles("15/" * 7 + "7Hi6" + "/15" * 7,
    ...                                                  TileSet.named("en")).items())
    [('H8', 'H'), ('I8', 'i')]
    """
    rows = text.strip().split("/")
    if len(rows) != SIZE:
        raise GCGError("bad_start_position", line,
                       f"a start position has {SIZE} rows, this one {len(rows)}")
    tiles: dict[Square, str] = {}
    for r, row in enumerate(rows):
        col = 0
        for run, bracketed, single in _POSITION_TOKEN.findall(row):
            if run:
                col += int(run)
                continue
            tile = bracketed or single
            letter = tile.upper()
            if letter not in tileset.counts or letter == BLANK or col >= SIZE:
                raise GCGError("bad_start_position", line,
                               f"row {r + 1} of the start position: {tile!r} is not a tile of "
                               f"the {tileset.name} set, or lies beyond the board")
            tiles[Square(r, col)] = tile
            col += 1
        if col != SIZE:
            raise GCGError("bad_start_position", line,
                           f"row {r + 1} of the start position covers {col} squares, not {SIZE}")
    return tiles


def _notes_and_kept(note: str | None, kept: Sequence[Pragma]) -> list[str]:
    """An event's note lines with the kept pragmas that stood among them put back in place.

    >>> _notes_and_kept("one\\ntwo", [Pragma("time", "0:42", 1, notes_before=1)])
    ['#note one', '#time 0:42', '#note two']
    """
    parts = note.split("\n") if note else []
    out: list[str] = []
    done = 0
    for pragma in kept:
        # Note lines after a pragma start again with '#note': a bare continuation line would
        # no longer belong to the note.
        cut = min(pragma.notes_before, len(parts))
        if cut > done:
            out.extend(_note_lines("\n".join(parts[done:cut])))
            done = cut
        out.append(str(pragma))
    if done < len(parts):
        out.extend(_note_lines("\n".join(parts[done:])))
    return out


def _event_line(e: Event, nick: str, lettered_rows: bool, tileset: TileSet) -> tuple[str, str]:
    """The event's line, and its note as written (with the lost-turn mark; may be empty)."""
    rack = f"{e.rack} " if e.rack else ""
    note = e.note
    kind = e.kind
    if kind is EventKind.PLAY:
        assert e.play is not None
        main = e.play.main
        start, direction = main.start, main.direction
        if lettered_rows:
            start, direction = start.transposed(), direction.other
        # Runs of new tiles joined so that they split back the same way (multi-letter tiles).
        word = ""
        run: list[str] = []
        for t, new in zip(main.tiles, main.new, strict=True):
            if new:
                run.append(t)
                continue
            word += join_tiles(run, tileset) + "."
            run = []
        word += join_tiles(run, tileset)
        body = f"{rack}{position_name(start, direction)} {word}"
    elif kind is EventKind.WITHDRAWN:
        body = f"{rack}--"
    elif kind is EventKind.PASS:
        body = f"{rack}-"
    elif kind is EventKind.LOST_TURN:
        body = f"{rack}-"
        note = LOST_TURN_MARK if note is None else f"{LOST_TURN_MARK}\n{note}"
    elif kind is EventKind.EXCHANGE:
        body = f"{rack}-{e.tiles if e.tiles else e.count}"
    elif kind is EventKind.CHALLENGE_BONUS:
        body = f"{rack}(challenge)"
    elif kind is EventKind.END_RACK_POINTS:
        body = f"({e.tiles})"
    elif kind is EventKind.END_RACK_PENALTY:
        body = f"{e.tiles} ({e.tiles})"
    elif kind is EventKind.TIME_PENALTY:
        body = f"{rack}(time)"
    elif kind in _ENDING_WRITTEN:
        body = f"{rack}{_ENDING_WRITTEN[kind]}"
    else:  # ADJUSTMENT: an extension; the reason goes in the note
        body = "(adjustment)"
    return f">{nick}: {body} {e.score:+d} {e.total}", note or ""


# ---------------------------------------------------------------------------------- checks


def verify(source: bytes | str, **options: Any) -> ReplayResult:
    """Read and replay in one step (``options`` as for :func:`read_gcg`)."""
    return replay(read_gcg(source, **options))


__all__ = [
    "GCGError", "GCGEvent", "GCGPlayer", "GCGRecord", "GCGWarning", "Header", "Mismatch",
    "Pragma", "ReplayResult",
    "load_gcg", "read_gcg", "replay", "tileset_for", "verify", "write_gcg", "LOST_TURN_MARK",
    "TileError",
]  # fmt: skip
