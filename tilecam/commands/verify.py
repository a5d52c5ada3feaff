"""``tilecam verify``: replay GCG game records and check every score against the rules.

For each file prints ``OK`` with the final scores, or each discrepancy (line, what the record
says, what the rules give, the play), or the error that stops the file being read (line and a
code naming the fault).  Harmless faults in how a record is written (spaces at the end of a
line, an empty line, a pragma repeated with the same value...) are read as meant and printed as
warnings with their line; they leave the exit status as it is.  Exit status: 0 when every record
is consistent, 1 when any disagrees with the rules, 2 when any file cannot be read.  ``--json``
prints a list with one object per file instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HELP = "Replay GCG game records, recompute every score and report where a record disagrees."

EXIT_OK = 0
EXIT_MISMATCH = 1
EXIT_UNREADABLE = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON list, one item per file")
    parser.add_argument(
        "--lettered-rows",
        action="store_true",
        help="squares are named row letter first (H4 = row H, column 4, across), as scrabscrap "
        "records are; '#orientation lettered-rows' in a file does the same",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", type=Path, help="GCG files")


def check_file(path: Path, lettered_rows: bool = False) -> dict[str, Any]:
    """Verify one file; the result is what ``--json`` prints for it."""
    from scorer.gcg import GCGError, load_gcg, replay

    result: dict[str, Any] = {
        "file": str(path), "ok": False, "errors": [], "mismatches": [], "final_scores": {},
        "warnings": [],
    }  # fmt: skip
    try:
        replayed = replay(load_gcg(path, lettered_rows=lettered_rows))
    except GCGError as exc:
        result["errors"].append({"line": exc.line, "code": exc.code, "message": exc.message})
        result["mismatches"] = [m.to_dict() for m in exc.mismatches]
        result["warnings"] = [w.to_dict() for w in exc.warnings]
        return result
    except Exception as exc:  # a reader fault must still not end in a traceback
        result["errors"].append(
            {"line": 0, "code": "internal_error", "message": f"{type(exc).__name__}: {exc}"}
        )
        return result
    result["mismatches"] = [m.to_dict() for m in replayed.mismatches]
    result["warnings"] = [w.to_dict() for w in replayed.warnings]
    result["final_scores"] = replayed.final_scores
    result["recorded_scores"] = replayed.recorded_scores
    result["ok"] = replayed.ok
    return result


def exit_status(results: list[dict[str, Any]]) -> int:
    if any(r["errors"] for r in results):
        return EXIT_UNREADABLE
    if any(r["mismatches"] for r in results):
        return EXIT_MISMATCH
    return EXIT_OK


def _scores(scores: dict[str, int]) -> str:
    return ", ".join(f"{nick} {total}" for nick, total in scores.items())


def format_text(result: dict[str, Any]) -> str:
    lines: list[str] = []
    name = result["file"]
    if result["errors"]:
        for err in result["errors"]:
            lines.append(f"{name}: ERROR line {err['line']} [{err['code']}]: {err['message']}")
    elif result["ok"]:
        lines.append(f"{name}: OK ({_scores(result['final_scores'])})")
    else:
        count = len(result["mismatches"])
        lines.append(f"{name}: {count} discrepanc{'y' if count == 1 else 'ies'}")
    for m in result["mismatches"]:
        if isinstance(m["recorded"], int):  # a score or a running total
            lines.append(
                f"  line {m['line']}: {m['player']} {m['text']}: recorded {m['recorded']}, "
                f"computed {m['computed']} [{m['code']}]"
            )
        else:  # a rack the record states that contradicts its moves
            lines.append(f"  line {m['line']}: {m['message']} [{m['code']}]")
    if result["mismatches"] and not result["errors"]:
        lines.append(
            f"  final by the rules: {_scores(result['final_scores'])}"
            f" (recorded: {_scores(result['recorded_scores'])})"
        )
    for w in result["warnings"]:  # last: they change nothing in the game
        lines.append(f"  warning: line {w['line']}: {w['code']}: {w['message']}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    results = [check_file(path, args.lettered_rows) for path in args.files]
    if args.json:
        json.dump(results, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        for result in results:
            print(format_text(result))
    return exit_status(results)
