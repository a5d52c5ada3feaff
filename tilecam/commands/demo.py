"""``tilecam demo``: a whole game played, filmed and scored live, with no camera needed.

tilecam plays a game against itself (the move generator with the bundled word list ENABLE,
the same game for the same ``--seed``), renders it as a camera over the table would see it (a
hand laying each tile, the light drifting), and feeds every frame through the real camera
pipeline: tracker, letter readers, dictionary, rules engine.  First the reader is calibrated
from a rendered photo of the alphabet laid out on the board, as a user calibrates with their
own tiles.  Every turn is printed as it is scored, beside what the game really played.

Without ``--headless`` the scoreboard is served (default http://127.0.0.1:5000/, another port
when that one is taken) and every scored move goes to it through the camera's API, so open
screens update as the game goes on; the game plays at a watchable pace (``--speed``).  The
page stays open after the game until Ctrl-C.

``--headless`` runs the same as fast as it can, without the page, and ends with a summary;
``--json`` (which implies ``--headless``) prints it as ``{"moves_played", "moves_detected",
"scores_agree", "seconds", "fps", ...}``.  Exit status 0 only when every move was detected and
scored as the game played it.

``--record`` replays the bundled game record instead (the rule sheet's worked example and
challenges; no camera involved).
"""

from __future__ import annotations

import argparse
import json
import secrets
import signal
import sys
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

# Light: the demo's heavy parts (OpenCV, the renderer, the pipeline) load when it runs.
from sim.game import DemoTurn
from tilecam.demo import DemoError, DemoRun, TurnCheck

if TYPE_CHECKING:
    import numpy as np

    from calibration.profile import ExtendReport
    from pipeline import Question
    from scorer.game import Event
    from tilecam.live import PageLink

HELP = "Watch tilecam score a whole game from a rendered camera, live in the browser."

DEMO_RECORD = "data/demo_game.gcg"
#: Named speeds (multiples of real time); "max" does not wait at all.
SPEEDS = {"slow": 0.5, "normal": 1.0, "fast": 3.0, "max": 0.0}


def speed(text: str) -> float:
    """``--speed``: a multiple of real time (``2``, ``0.5``) or slow, normal, fast, max.

    >>> speed("fast"), speed("2"), speed("max")
    (3.0, 2.0, 0.0)
    """
    if text in SPEEDS:
        return SPEEDS[text]
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a number (2 = twice real time) or one of {', '.join(SPEEDS)}"
        ) from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: the speed must be above 0 (or max)")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sim.game import DEFAULT_SEED

    parser.add_argument("--headless", action="store_true",
                        help="no web page: play as fast as possible and print a summary")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, metavar="N",
                        help=f"which game (and camera, light, table) to play (default "
                             f"{DEFAULT_SEED})")
    parser.add_argument("--moves", type=int, default=None, metavar="N",
                        help="stop after N moves with tiles (default: the whole game)")
    parser.add_argument("--speed", type=speed, default=1.0, metavar="X",
                        help="pace of the live demo: a multiple of real time, or slow, normal, "
                             "fast (3x), max (default: normal)")
    parser.add_argument("--json", action="store_true",
                        help="print the summary (or, with --record, the moves) as JSON; "
                             "implies --headless")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address the page listens on (default 127.0.0.1: this computer; "
                             "0.0.0.0 lets phones on the network watch)")
    parser.add_argument("--port", type=int, default=5000,
                        help="port of the page (default 5000; a free one when it is taken)")
    parser.add_argument("--db", type=Path, default=None, metavar="FILE",
                        help="keep the demo game in this SQLite file (default: in memory)")
    parser.add_argument("--exit", action="store_true",
                        help="stop serving the page when the game is over")
    parser.add_argument("--record", action="store_true",
                        help="replay the bundled game record instead (no camera involved)")


def run(args: argparse.Namespace) -> int:
    if args.record:
        return run_record(args)
    if args.moves is not None and args.moves < 1:
        print("tilecam demo: --moves must be at least 1", file=sys.stderr)
        return 2
    if args.headless or args.json:  # JSON is for scripts, which watch no page
        return run_headless(args)
    return run_live(args)


# ---------------------------------------------------------------------------- printing


def _turn_line(check: TurnCheck) -> str:
    report = check.report
    line = report.line()
    if check.expected is None:
        return f"{line}   [not a move of the game]"
    if check.as_played:
        return f"{line}   [as played]"
    return f"{line}   [the game played {check.expected.notation}]"


class PrintingRun(DemoRun):
    """The demo run printing every turn as it is scored (nothing when ``quiet``)."""

    def __init__(self, seed: int, moves: int | None, *, quiet: bool = False) -> None:
        super().__init__(seed, moves)
        self.quiet = quiet

    def say(self, line: str) -> None:
        if not self.quiet:
            print(line, flush=True)

    def on_calibrated(self, report: ExtendReport) -> None:
        assert self.profile is not None
        self.say(f"Calibration: a photo of the alphabet laid out on the board taught the reader "
                 f"{report.letters} tiles of {len(set(self.profile.labels))} letters "
                 "(as `tilecam calibrate` does with your own tiles).")

    def on_report(self, check: TurnCheck) -> None:
        self.say(_turn_line(check))
        for note in check.report.notes:
            self.say(f"       note: {note}")

    def on_entered(self, turn: DemoTurn, event: Event) -> None:
        assert self.pipeline is not None
        game = self.pipeline.game
        totals = " : ".join(f"{n} {s}" for n, s in zip(game.players, game.scores, strict=True))
        what = f"{turn.kind} (entered on the page)"
        name = self.game.players[turn.player]
        self.say(f"{'-':>3}. {name:<10} {what:<28} {0:+4d}   {totals}")

    def ask_players(self, question: Question, turn: DemoTurn | None) -> str:
        answer = super().ask_players(question, turn)
        self.say(f"       question: {question.prompt}  The players answer: {answer}")
        return answer

    def on_end(self, events: Sequence[Event]) -> None:
        for event in events:
            what = str(event.kind.value).replace("_", " ")
            self.say(f"       end of game: {self.game.players[event.player]} {event.score:+d} "
                     f"({what} {event.tiles or ''})".rstrip())


class LiveRun(PrintingRun):
    """The printing run joined to the page: moves, passes, questions and the end go to the
    game through :class:`tilecam.live.PageLink`, frames to the preview, at the pace of
    ``pacer``."""

    def __init__(self, seed: int, moves: int | None, pacer: Pacer) -> None:
        super().__init__(seed, moves)
        self.pacer = pacer
        self.link: PageLink | None = None

    def on_frame(self, stamp: float, frame: np.ndarray) -> None:
        assert self.link is not None
        self.link.preview(frame)
        self.pacer.wait(stamp)

    def on_report(self, check: TurnCheck) -> None:
        super().on_report(check)
        assert self.link is not None
        self.link.send([check.report])

    def on_entered(self, turn: DemoTurn, event: Event) -> None:
        assert self.link is not None
        if turn.kind == "exchange":
            self.link.enter("exchange", {"tiles": turn.exchanged})
        else:
            self.link.enter("pass")
        super().on_entered(turn, event)

    def ask_players(self, question: Question, turn: DemoTurn | None) -> str:
        assert self.link is not None
        qid = self.link.ask(question).store_id
        self.say(f"       question on the page: {question.prompt}")
        self.pacer.pause(2.0)  # the players read it and answer on the controls page
        answer = super().ask_players(question, turn)
        self.link.enter(f"questions/{qid}/answer", {"answer": answer})
        return answer

    def on_end(self, events: Sequence[Event]) -> None:
        super().on_end(events)
        assert self.link is not None
        racks = {str(i): r for i, r in enumerate(self.game.final_racks) if r}
        self.link.enter("end", {} if self.game.ended_by == "out" else {"racks": racks})


def _header(run: DemoRun) -> str:
    game = run.game
    c = run.camera.config
    length = (f"the first {len(game.plays)} moves of a game" if not game.complete
              else f"a whole game ({len(game.turns)} turns)")
    camera = (f"tilted {c.tilt:.0f} degrees, turned {c.rotation:.0f}, a {c.table} table, "
              f"{c.font} letters, {'glare, ' if c.glare > 0 else ''}sensor noise {c.noise:.1f}, "
              f"JPEG quality {c.jpeg_quality}")
    return (f"tilecam demo, seed {game.seed}: {' v '.join(game.players)}, {length} played by "
            "tilecam's move generator with the bundled word list (ENABLE).\n"
            f"Camera: a rendered {c.size[0]}x{c.size[1]} video of a hand laying each tile while "
            f"the light drifts ({camera}).")


def _summary_lines(run: DemoRun) -> list[str]:
    result = run.result
    lines = [
        f"{result.moves_played} moves played, {result.moves_detected} detected, "
        f"{result.scores_agree} scored as played ({result.letters_agree} with the same "
        f"letters); {result.invented} not in the game; {result.entered} passes or exchanges "
        f"entered; {result.questions} questions answered by the players.",
        f"{result.frames} frames in {result.seconds:.1f} s: {result.fps:.1f} frames a second "
        f"(rendering included); the pipeline took {result.ms_per_frame:.1f} ms a frame.",
    ]
    final = ", ".join(f"{name} {score}" for name, score in result.final_scores.items())
    if result.expected_final is not None:
        agree = ("as the game ended" if result.expected_final == result.final_scores else
                 "the game ended " + ", ".join(f"{n} {s}" for n, s in
                                              result.expected_final.items()))
        lines.append(f"Final scores: {final} ({agree}).")
    else:
        lines.append(f"Scores: {final}.")
    for problem in result.problems:
        lines.append(f"problem: {problem}")
    return lines


# ---------------------------------------------------------------------------- headless


def run_headless(args: argparse.Namespace) -> int:
    demo = PrintingRun(args.seed, args.moves, quiet=args.json)
    if not args.json:
        print(_header(demo), flush=True)
    try:
        result = demo.run()
    except DemoError as exc:
        print(f"tilecam demo: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        for line in _summary_lines(demo):
            print(line)
    return 0 if result.ok else 1


# ---------------------------------------------------------------------------- live


class Pacer:
    """Waits so that timestamps pass at ``speed`` times real time (0: no waiting).  When the
    machine falls behind it carries on from where it is rather than rushing to catch up."""

    def __init__(self, speed: float) -> None:
        self.speed = speed
        self._anchor: tuple[float, float] | None = None  # (wall clock, timestamp)

    def wait(self, stamp: float) -> None:
        if self.speed <= 0:
            return
        now = time.monotonic()
        if self._anchor is None:
            self._anchor = (now, stamp)
            return
        due = self._anchor[0] + (stamp - self._anchor[1]) / self.speed
        if due < now - 0.5:
            self._anchor = (now, stamp)
        elif due > now:
            time.sleep(due - now)

    def pause(self, seconds: float) -> None:
        """A pause in the game (the players answering): real seconds at this speed."""
        if self.speed > 0:
            time.sleep(seconds / self.speed)
        self._anchor = None


def run_live(args: argparse.Namespace) -> int:
    from tilecam.live import PageLink, start_server
    from webui import STORE_KEY, create_app
    from webui.store import StoreError

    if not 0 <= args.port < 65536:
        print(f"tilecam demo: port {args.port} is not a port number", file=sys.stderr)
        return 2
    demo = LiveRun(args.seed, args.moves, Pacer(args.speed))
    database = str(args.db) if args.db is not None else ":memory:"
    app = create_app({"DATABASE": database, "SSE_HEARTBEAT": 5.0})
    store = app.extensions[STORE_KEY]
    pin = f"{secrets.randbelow(10000):04d}"
    try:
        game_id = store.create_game(list(demo.game.players), pin=pin,
                                    title=f"tilecam demo, seed {demo.game.seed}")
    except StoreError as exc:
        print(f"tilecam demo: cannot set up the game: {exc.message}", file=sys.stderr)
        return 2
    try:
        server = start_server(app, args.host, args.port)
    except OSError as exc:
        print(f"tilecam demo: cannot listen on {args.host}:{args.port}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return 1

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous_handler = signal.signal(signal.SIGTERM, stop)
    status = 1
    try:
        print(_header(demo), flush=True)
        if server.wanted_port is not None:
            print(f"(port {server.wanted_port} is taken: using {server.port})")
        print(f"Scoreboard (live):  {server.url(f'/games/{game_id}')}")
        print(f"Camera preview:     {server.url(f'/games/{game_id}/camera')}")
        print(f"Controls:           {server.url(f'/games/{game_id}/control')}  (PIN {pin})",
              flush=True)
        try:
            pipeline = demo.make_pipeline()
        except DemoError as exc:
            print(f"tilecam demo: {exc}", file=sys.stderr)
            return 1
        demo.link = PageLink(app, game_id, pin, pipeline, say=demo.say)
        result = demo.run()
        for line in _summary_lines(demo):
            print(line)
        status = 0 if result.ok else 1
        if not args.exit:
            print(f"The game is over; the scoreboard stays open at "
                  f"{server.url(f'/games/{game_id}')} (Ctrl-C to stop).", flush=True)
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
        server.stop()
        store.close()
    return status


# ---------------------------------------------------------------------------- the record


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


def run_record(args: argparse.Namespace) -> int:
    """The bundled game record (``tilecam/data/demo_game.gcg``): the rule sheet's worked
    example (HORN, FARM, PASTE making FARMS, MOB with NOT and BE, BIT with PI and AT), a phony
    taken back, a failed challenge, an exchange and the end after six scoreless turns; every
    score recomputed from the board."""
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
