"""Read a GCG game record into the operations a stored game is made of.

An imported game is replayed by the rules engine like any other, so it can be reviewed move by
move or continued where the record stops.  Only what the scoreboard needs is read: players,
title, and the event lines (plays, passes, exchanges, withdrawn phonies, challenge bonuses,
end-of-game racks, time penalties).  Scores written in the record are not trusted; they are
compared with the computed ones afterwards (:meth:`GcgRecord.check_totals`).

>>> record = calls_from_gcg(b'''#player1 ann Ann Smith
... #player2 bob Bob
... >ann: AHNORST 8E HORN +14 14
... >bob: AEFMRTU G6 FA.M +13 13
... >ann: ASTTEIP - +0 14
... ''')
>>> record.players
['Ann Smith', 'Bob']
>>> [op["op"] for op in record.ops], record.ops[1]["word"]
(['play', 'play', 'pass'], 'FA.M')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_SCORE = re.compile(r"^[+-]\d+$")
_TOTAL = re.compile(r"^-?\d+$")
_POSITION = re.compile(r"^(?:[A-Oa-o](?:1[0-5]|[1-9])|(?:1[0-5]|[1-9])[A-Oa-o])$")

MAX_LINES = 2000


class GcgImportError(ValueError):
    """A record that cannot be read; the message names the line."""


@dataclass
class GcgRecord:
    players: list[str]
    title: str = ""
    ops: list[dict[str, Any]] = field(default_factory=list)
    totals: dict[int, int] = field(default_factory=dict)

    def check_totals(self, game: Any) -> list[str]:
        """Where the record's last written totals differ from the replayed game's scores."""
        out = []
        for player, written in sorted(self.totals.items()):
            computed = game.scores[player]
            if computed != written:
                out.append(
                    f"{self.players[player]}: the record's last total is {written},"
                    f" the rules give {computed}"
                )
        return out


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def calls_from_gcg(data: bytes) -> GcgRecord:
    """Parse a GCG record (bytes, UTF-8 or ISO-8859-1) into players and operations."""
    lines = re.split(r"[\r\n]+", _decode(data))
    if len(lines) > MAX_LINES:
        raise GcgImportError(f"the record has {len(lines)} lines; at most {MAX_LINES} are read")
    nicks: dict[str, int] = {}
    names: list[str] = []
    title = ""
    ops: list[dict[str, Any]] = []
    totals: dict[int, int] = {}
    end_racks: dict[str, str] | None = None

    passers: dict[int, int] = {}  # op index of a pass -> the player who passed

    def flush_end() -> None:
        nonlocal end_racks
        if end_racks is None:
            return
        # A "pass" right after the play that went out cannot be a pass (the game was over):
        # it is the turn lost to a failed challenge of that play (double rule), which records
        # write as a pass.
        last = len(ops) - 1
        if last >= 1 and ops[last]["op"] == "pass" and ops[last - 1]["op"] == "play":
            ops[last] = {"op": "lose_turn", "player": passers[last]}
        ops.append({"op": "end_game", "racks": end_racks or None})
        end_racks = None

    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            m = re.match(r"^#player([1-4])\s+(\S+)\s*(.*)$", line)
            if m:
                if ops:
                    raise GcgImportError(f"line {number}: a #player line after the first move")
                nick, full = m.group(2), m.group(3).strip() or m.group(2)
                if nick in nicks:
                    raise GcgImportError(f"line {number}: nickname {nick!r} is used twice")
                nicks[nick] = len(names)
                name = full[:40]
                while name.casefold() in {n.casefold() for n in names}:
                    name = f"{name[:36]} ({len(names) + 1})"
                names.append(name)
            elif line.startswith("#title"):
                title = line[6:].strip()[:80]
            continue
        if not line.startswith(">"):
            continue  # continuation of a multi-line #note
        m = re.match(r"^>\s*([^:]+):\s*(.*)$", line)
        if not m:
            raise GcgImportError(f"line {number}: an event line is '>nick: ...'")
        nick, rest = m.group(1).strip(), m.group(2).split()
        if nick not in nicks:
            raise GcgImportError(f"line {number}: {nick!r} is not a declared player")
        player = nicks[nick]
        s = next(
            (i for i in range(len(rest) - 1)
             if _SCORE.match(rest[i]) and _TOTAL.match(rest[i + 1])),
            None,
        )
        if s is None:
            raise GcgImportError(f"line {number}: no score and running total found")
        head, score, total = rest[:s], int(rest[s]), int(rest[s + 1])
        totals[player] = total
        if not head:
            raise GcgImportError(f"line {number}: the event has no move")
        last = head[-1]
        rack = head[0].replace(".", "?") if len(head) >= 2 and not head[0].startswith("(") \
            else None
        if last == "(time)":
            flush_end()
            points = -score
            if points > 0 and points % 10 == 0:
                ops.append({"op": "time_penalty", "player": player, "minutes": points // 10})
            else:
                ops.append({"op": "adjust", "player": player, "points": score, "reason": "time"})
            continue
        if last.startswith("(") and last.endswith(")") and last != "(challenge)":
            letters = last[1:-1].replace(".", "?")
            if end_racks is None:
                end_racks = {}
            if len(head) == 1:
                # Went out: the letters are the opponents' racks (one opponent in 2-player).
                if len(names) == 2:
                    end_racks[str(1 - player)] = letters
            else:
                end_racks[str(player)] = letters
            continue
        flush_end()
        if last == "(challenge)":
            ops.append({"op": "challenge_bonus", "points": score})
        elif last == "--":
            ops.append({"op": "withdraw"})
        elif last == "-":
            passers[len(ops)] = player
            ops.append({"op": "pass", **({"rack": rack} if rack else {})})
        elif last.startswith("-"):
            tiles: str | int = last[1:]
            if isinstance(tiles, str) and tiles.isdigit():
                tiles = int(tiles)
            ops.append({"op": "exchange", "tiles": tiles, **({"rack": rack} if rack else {})})
        elif len(head) >= 2 and _POSITION.match(head[-2]):
            op: dict[str, Any] = {"op": "play", "position": head[-2], "word": head[-1]}
            if len(head) >= 3:
                op["rack"] = head[-3].replace(".", "?")
            ops.append(op)
        else:
            raise GcgImportError(f"line {number}: cannot read the move {' '.join(head)!r}")
    flush_end()
    if len(names) < 2:
        raise GcgImportError("the record declares fewer than 2 players (#player1, #player2)")
    return GcgRecord(names, title, ops, totals)
