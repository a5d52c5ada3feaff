"""``tilecam replay``: score a recorded game from a video, a stream or photos, move by move.

Runs the whole camera pipeline (:mod:`pipeline`) on SOURCE: a video file, a stream URL,
a camera index, a folder or glob of photos (``--stills``: one photo per turn).  Every turn is
printed as the page shows it (player, position, word in the rule sheet's notation with
played-through letters in parentheses, score, running totals), then the final scores (as the
board gives them: rack points at the end of the game are not seen by a camera).

Questions the pipeline would put to the players (a blank's letter the dictionary cannot
settle, a letter read without confidence, a refused placement, whether a turn without tiles was
a pass or an exchange) are printed with the move; the move then carries the best guess and is
marked ``(unconfirmed)``.  ``--answers FILE`` answers them as the players would on the page,
so that a photographed game with a challenge, a withdrawn phony or a blank's letter replays
unattended: one answer per line (``turn 5 blank D11 e``, ``turn 9 no_placement pass``, ``turn 12
placement 8D FIRNS``, ``turn 14 split 2``, ``question 17 exchange ABC``, and what no photo
shows: ``turn 20 challenged``, a challenge of that play which stood; see
:class:`pipeline.AnswerFile`); lines no question asked for are listed at the end.  A GCG
record of the same game (``--answers REF.gcg``) answers them too, for evaluation; the output
says how many questions the file or record answered.

``--json`` prints ``{"moves": [{"player", "position", "word", "score", "totals"}, ...],
"final_scores": {...}}`` (each move also has ``turn``, ``kind``, ``notes``, ``questions`` and
``unconfirmed``).  Exit status: 0 when replayed, 2 when the source, profile or record cannot be
used.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "Score a game from a video, stream or photo sequence and print every move."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source", metavar="SOURCE",
        help="video file, stream URL (rtsp://, http://), camera index, or folder/glob of photos",
    )
    parser.add_argument(
        "--profile", metavar="DIR", type=Path,
        help="calibration profile folder (from tilecam calibrate); learnt from as moves are "
             "confirmed (in memory: the folder is not changed)",
    )
    parser.add_argument("--tileset", default=None,
                        help="tile set when no profile says it: en, de, ... (default: en)")
    parser.add_argument("--players", default="player1,player2",
                        help="player names in turn order, comma-separated")
    parser.add_argument("--stills", action="store_true",
                        help="SOURCE is one photo per turn (each photo is a settled board)")
    parser.add_argument("--lettered-rows", action="store_true",
                        help="name squares with the row letter first (H4 = row H, column 4, "
                             "across), as scrabscrap records do; also for --answers and --gcg")
    parser.add_argument("--gcg", metavar="OUT", type=Path, help="write the game as GCG to OUT")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument(
        "--answers", metavar="FILE", type=Path,
        help="answer the pipeline's questions from FILE: one answer per line ('turn 5 blank "
             "D11 e', 'turn 9 no_placement pass', 'question 17 exchange ABC', 'turn 20 "
             "challenged'), or a GCG record of the game (evaluation)",
    )
    parser.add_argument(
        "--challenge", default="double", choices=["double", "single", "five", "ten", "void"],
        help="what a challenged play that stands costs (answers' 'turn N challenged'): "
             "double, the challenger's next turn (default); single, nothing; five or ten, "
             "points to the player; void, no challenges",
    )
    parser.add_argument("--quiet-seconds", type=float, default=None,
                        help="live sources: seconds without activity that commit a move")
    parser.add_argument("--no-dictionary", action="store_true",
                        help="do not use the bundled word list to infer blanks")


def run(args: argparse.Namespace) -> int:
    import cv2

    from pipeline import AnswerFile, AnswerFileError, Pipeline, RecordAnswers
    from scorer.game import Rules
    from scorer.gcg import GCGError, Header, write_gcg
    from scorer.lexicon import default_lexicon
    from tilecam.profile_options import OptionError, profile_and_tileset
    from tracker import TrackerConfig
    from vision.sources import SourceError, open_source

    def fail(message: str) -> int:
        print(f"tilecam replay: {message}", file=sys.stderr)
        return 2

    cv2.setNumThreads(max(1, cv2.getNumThreads()))
    try:
        profile, tileset = profile_and_tileset(args.profile, args.tileset)
    except OptionError as exc:
        return fail(str(exc))
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    if not 2 <= len(players) <= 4:
        return fail(f"--players needs 2 to 4 names, got {len(players)}")
    answers: AnswerFile | RecordAnswers | None = None
    if args.answers is not None:
        try:
            if _is_record(args.answers):
                answers = RecordAnswers(args.answers, lettered_rows=args.lettered_rows,
                                        tileset=tileset.code)
            else:
                answers = AnswerFile.load(args.answers, lettered_rows=args.lettered_rows)
        except (GCGError, AnswerFileError, OSError) as exc:
            return fail(f"cannot use {args.answers}: {exc}")
    try:
        source = open_source(args.source)
    except SourceError as exc:
        return fail(str(exc))
    config = TrackerConfig()
    if args.quiet_seconds is not None:
        config = TrackerConfig(quiet_seconds=args.quiet_seconds)
    pipeline = Pipeline(
        players, profile=profile, tileset=tileset, rules=Rules(challenge=args.challenge),
        lexicon=None if args.no_dictionary else default_lexicon(tileset),
        stills=args.stills, answers=answers, tracker_config=config,
        lettered_rows=args.lettered_rows,
    )
    moves = []
    try:
        with source:
            for time, frame in source:
                for report in pipeline.feed(time, frame):
                    moves.append(report)
                    if not args.json:
                        _print_move(pipeline, report, args.lettered_rows)
            for report in pipeline.finish():
                moves.append(report)
                if not args.json:
                    _print_move(pipeline, report, args.lettered_rows)
    except KeyboardInterrupt:
        pass
    final = dict(zip(pipeline.game.players, pipeline.game.scores, strict=True))
    if args.gcg is not None:
        text = write_gcg(pipeline.game, Header(description="scored by tilecam replay"),
                         lettered_rows=args.lettered_rows)
        try:
            args.gcg.write_text(text, encoding="utf-8")
        except OSError as exc:
            return fail(f"cannot write {args.gcg}: {exc.strerror or exc}")
    if args.json:
        out = {
            "moves": [
                {
                    **report.to_dict(pipeline.name),
                    "position": _position(pipeline, report, args.lettered_rows),
                }
                for report in moves
            ],
            "final_scores": final,
            "source": source.counters(),
        }
        if isinstance(answers, RecordAnswers):
            out["answered_from_record"] = answers.consulted
        elif answers is not None:
            out["answered_from_file"] = answers.consulted
            out["answers_unused"] = answers.unused()
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print("final: " + ", ".join(f"{name} {score}" for name, score in final.items()))
    counters = source.counters()
    open_questions = sum(1 for q in pipeline.questions if q.answer is None)
    turns = sum(1 for report in moves if report.kind != "start")
    summary = (f"{turns} turns; {counters['frames_read']} frames read, "
               f"{counters['corrupt_skipped']} unreadable skipped, "
               f"{counters['reconnects']} reconnects; {len(pipeline.questions)} questions, "
               f"{open_questions} unanswered")
    if isinstance(answers, RecordAnswers):
        summary += f", {answers.consulted} answered from {args.answers.name} (evaluation)"
    elif answers is not None:
        summary += f", {answers.consulted} answered from {args.answers.name}"
    print(summary)
    if isinstance(answers, AnswerFile) and answers.unused():
        lines = ", ".join(str(n) for n in answers.unused())
        print(f"answers no question asked for: {args.answers.name} line(s) {lines}",
              file=sys.stderr)
    return 0


def _is_record(path: Path) -> bool:
    """Whether ``path`` holds a GCG record rather than an answers file."""
    if path.suffix.lower() == ".gcg":
        return True
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:200].lstrip()
    except OSError:
        return False
    return head.startswith(("#player", "#character-encoding", ">"))


def _position(pipeline: object, report: object, lettered_rows: bool) -> str:
    event = report.event  # type: ignore[attr-defined]
    if event is None or event.play is None:
        return report.position  # type: ignore[attr-defined]
    return pipeline.position_text(event, lettered_rows)  # type: ignore[attr-defined]


def _print_move(pipeline: object, report: object, lettered_rows: bool) -> None:
    from dataclasses import replace

    shown = replace(report, position=_position(pipeline, report, lettered_rows))  # type: ignore[type-var]
    print(shown.line())
    for note in shown.notes:
        print(f"       note: {note}")
    for question in shown.questions:
        state = (f"answered {question.answer} by {question.answered_by}"
                 if question.answer is not None else
                 f"unanswered, guess {question.guess}" if question.guess else "unanswered")
        print(f"       question: {question.prompt} [{state}]")
