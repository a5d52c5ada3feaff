"""``tilecam demo``: score a short game from the bundled record and print every move.

The game (``tilecam/data/demo_game.gcg``) opens with the rule sheet's worked example (HORN with
the R on the centre star, FARM, PASTE making FARMS, MOB with NOT and BE, BIT with PI and AT) and
goes on to a phony taken back, a failed challenge, an exchange and the end of the game after six
scoreless turns.  Every score is recomputed from the board, not read from the record.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources

HELP = "Score the bundled demo game move by move (no camera needed)."

DEMO_RECORD = "data/demo_game.gcg"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--headless", action="store_true", help="no window (this demo never opens one)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="N",
        help="random seed (the recorded game is the same for every seed)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the moves as JSON")


def demo_record() -> bytes:
    return resources.files("tilecam").joinpath(DEMO_RECORD).read_bytes()


def _describe(event: object, players: list[str]) -> str:
    from scorer.game import Event, EventKind

    assert isinstance(event, Event)
    kind = event.kind
    if kind is EventKind.PLAY:
        assert event.play is not None
        cross = ", ".join(w.text for w in event.play.cross)
        return (
            event.play.seed_notation
            + (f" with {cross}" if cross else "")
            + (" (bingo)" if event.play.bingo else "")
        )
    if kind is EventKind.WITHDRAWN:
        assert event.play is not None
        return f"{event.play.main.marked} withdrawn after a challenge {event.score:+d}"
    if kind is EventKind.EXCHANGE:
        return f"exchanges {event.tiles or event.count}"
    if kind is EventKind.PASS:
        return "passes"
    if kind is EventKind.LOST_TURN:
        return "loses the turn (challenge failed)"
    if kind is EventKind.CHALLENGE_BONUS:
        return f"challenge bonus {event.score:+d}"
    if kind is EventKind.END_RACK_POINTS:
        return f"gains the tiles left {event.tiles} {event.score:+d}"
    if kind is EventKind.END_RACK_PENALTY:
        return f"loses unplayed {event.tiles} {event.score:+d}"
    if kind is EventKind.TIME_PENALTY:
        return f"overtime {event.score:+d}"
    return f"adjustment {event.score:+d} ({event.note})"


def run(args: argparse.Namespace) -> int:
    from scorer.gcg import GCGError, read_gcg, replay

    try:
        result = replay(read_gcg(demo_record()))
    except (GCGError, OSError) as exc:
        print(f"tilecam demo: the bundled game record cannot be read: {exc}", file=sys.stderr)
        return 2
    game = result.game
    players = game.players
    if args.json:
        moves = []
        totals = [0] * len(players)
        for _, event in result.pairs:
            totals[event.player] = event.total
            item = event.to_dict()
            item["player_name"] = players[event.player]
            item["totals"] = dict(zip(players, totals, strict=True))
            moves.append(item)
        out = {
            "players": players,
            "moves": moves,
            "final_scores": result.final_scores,
            "winner": [players[i] for i in game.winner()],
            "mismatches": [m.to_dict() for m in result.mismatches],
        }
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0 if result.ok else 1
    width = max(len(p) for p in players)
    print(f"Demo game: {' v '.join(players)} (every score recomputed from the board)")
    totals = [0] * len(players)
    turn = 0
    for record_event, event in result.pairs:
        totals[event.player] = event.total
        number = ""
        if record_event.kind in ("play", "pass", "exchange"):
            turn += 1
            number = str(turn)
        standing = "  ".join(f"{p} {t}" for p, t in zip(players, totals, strict=True))
        what = _describe(event, players)
        print(f"{number:>3}  {players[event.player]:<{width}}  {what:<46} {standing}")
    final = ", ".join(f"{p} {s}" for p, s in result.final_scores.items())
    winners = [players[i] for i in game.winner()]
    verdict = f"{winners[0]} wins" if len(winners) == 1 else "a tie: " + " and ".join(winners)
    print(f"Final scores: {final} ({verdict})")
    for m in result.mismatches:  # the bundled record is consistent; say so loudly if not
        print(f"record disagrees with the rules: {m}", file=sys.stderr)
    return 0 if result.ok else 1
