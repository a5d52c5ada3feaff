"""``tilecam analyse``: what each play of a recorded game could have been.

Replays a GCG record (every score by the rules) and, for every play, prints the best play with
the same tiles and, where the record gives the player's whole rack, the best play from the rack,
a bingo the rack held when the play was none, and the points left on the table; then a summary
per player, and for an unfinished game whose ``#rack`` is the player to move's, that rack's best
plays.  The analysis is :func:`scorer.analysis.analyse_game`.

The word list is ``--lexicon FILE`` or the bundled one of the record's tile set (ENABLE for
English).  A record played with another list (``#lexicon CSW21``) may hold words the list
lacks: such plays are marked ``*`` and their alternatives are those the list allows.

Exit status: 0 once analysed, 2 when the record or the word list cannot be read (or no word
list fits the record's tile set).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scorer.analysis import GameAnalysis, PlayAnalysis
    from scorer.rules import ScoredPlay

HELP = (
    "Analyse a GCG record: for every play the best play with the same tiles and, where the "
    "rack is known, the best from the rack, bingos missed and points left."
)

EXIT_OK = 0
EXIT_UNREADABLE = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the analysis as JSON")
    parser.add_argument(
        "--lexicon", metavar="FILE", type=Path,
        help="word list to judge plays by: one word per line, plain or gzipped (default: the "
        "bundled list of the record's tile set, ENABLE for English)",
    )  # fmt: skip
    parser.add_argument(
        "--lettered-rows", action="store_true",
        help="squares are named row letter first (H4 = row H, column 4, across), as scrabscrap "
        "records are",
    )  # fmt: skip
    parser.add_argument("file", metavar="FILE", type=Path, help="a GCG game record")


def run(args: argparse.Namespace) -> int:
    from scorer.analysis import analyse_game
    from scorer.gcg import GCGError, load_gcg, replay
    from scorer.lexicon import LexiconError, default_lexicon
    from tilecam.commands.check import word_list

    try:
        replayed = replay(load_gcg(args.file, lettered_rows=args.lettered_rows))
    except GCGError as exc:
        print(f"tilecam analyse: {args.file}: line {exc.line} [{exc.code}]: {exc.message}",
              file=sys.stderr)  # fmt: skip
        return EXIT_UNREADABLE
    record = replayed.record
    try:
        if args.lexicon is not None:
            lexicon = word_list(args.lexicon, record.tileset)
        else:
            lexicon = default_lexicon(record.tileset)
    except LexiconError as exc:
        print(f"tilecam analyse: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    if lexicon is None:
        print(f"tilecam analyse: no word list is bundled for the {record.tileset.name} tile set;"
              " give one with --lexicon FILE", file=sys.stderr)  # fmt: skip
        return EXIT_UNREADABLE
    if replayed.mismatches:
        count = len(replayed.mismatches)
        print(f"warning: the record disagrees with the rules in {count} place"
              f"{'' if count == 1 else 's'} (tilecam verify says where); the rules' scores are"
              " analysed", file=sys.stderr)  # fmt: skip
    analysis = analyse_game(replayed.game, lexicon)
    about = {
        "file": str(args.file),
        "lexicon": lexicon.report.source,
        "record_lexicon": record.lexicon,
    }
    if args.json:
        json.dump(about | analysis.to_dict(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(format_text(analysis, about))
    return EXIT_OK


# -- the text report -------------------------------------------------------------------------------


def format_text(analysis: GameAnalysis, about: dict[str, Any]) -> str:
    """The plays as a table, the summary per player, and the next turn's options."""
    said = about["record_lexicon"]
    lines = [
        f"{about['file']}: {' v '.join(analysis.players)}, judged by {about['lexicon']}"
        + (f" (the record says {said})" if said else ""),
        "",
    ]
    header = ("turn", "player", "rack", "played", "best with these tiles", "best from the rack",
              "left")  # fmt: skip
    rows = [_play_row(analysis, p) for p in analysis.plays]
    lines += _table(header, rows, right={0, 6})
    if any(p.rack is None for p in analysis.plays):
        lines.append("rack -: not known (the record gives only the tiles played, or nothing)")
    if any(p.unknown_words for p in analysis.plays):
        lines.append(f"* forms a word {about['lexicon']} lacks:"
                     " its alternatives are those the list allows")  # fmt: skip
    lines.append("")
    header = ("player", "plays", "scored", "left", "racks known", "best played", "bingos",
              "bingos missed")  # fmt: skip
    rows = [
        (s.name, str(s.plays), str(s.points_scored), str(s.points_left), str(s.racks_known),
         str(s.best_plays), str(s.bingos), str(s.bingos_missed))
        for s in analysis.summaries
    ]  # fmt: skip
    lines += _table(header, rows, right=set(range(1, 8)))
    if analysis.next_turn is not None:
        turn = analysis.next_turn
        lines += ["", f"to move: {analysis.players[turn.player]} with {turn.rack}: "
                  + (", ".join(_play(p) for p in turn.best) or "no play")]  # fmt: skip
        if turn.bingos and not turn.best[0].bingo:
            lines.append(f"  best bingo: {_play(turn.bingos[0])}")
    return "\n".join(lines)


def _play(play: ScoredPlay) -> str:
    return play.seed_notation + (" bingo" if play.bingo else "")


def _play_row(analysis: GameAnalysis, p: PlayAnalysis) -> tuple[str, ...]:
    played = _play(p.played) + ("*" if p.unknown_words else "")
    if p.withdrawn:
        played += " withdrawn"
    same = "-" if p.best_same_tiles is None else _play(p.best_same_tiles)
    from_rack = "-" if not p.best_from_rack else _play(p.best_from_rack[0])
    if p.bingos_missed and not p.best_from_rack[0].bingo:
        from_rack += f"; bingo {_play(p.bingos_missed[0])}"
    return (str(p.turn), analysis.players[p.player], p.rack or "-", played, same, from_rack,
            str(p.points_left))  # fmt: skip


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]], right: set[int]) -> list[str]:
    """Columns as wide as their widest cell, numbers to the right."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(c.rjust(w) if i in right else c.ljust(w)
                  for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip()
        for row in [header, *rows]
    ]  # fmt: skip
