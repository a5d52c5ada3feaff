"""The ``tilecam`` command: one sub-command per module in :mod:`tilecam.commands`.

Each command module defines ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int`` (the exit status).  Modules are imported only when their command runs, so
``tilecam check`` never loads OpenCV.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: command name -> module under tilecam.commands
COMMANDS: dict[str, str] = {
    "demo": "demo",
    "verify": "verify",
    "analyse": "analyse",
    "check": "check",
    "read": "read",
    "calibrate": "calibrate",
    "learn-fonts": "learn_fonts",
    "replay": "replay",
    "serve": "serve",
    "run": "run",
    "bench": "bench",
}


def _available() -> dict[str, object]:
    found = {}
    for name, module in COMMANDS.items():
        try:
            found[name] = importlib.import_module(f"tilecam.commands.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"tilecam.commands.{module}":
                raise
    return found


def build_parser(commands: dict[str, object]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tilecam",
        description="Scores a real crossword tile game from a camera looking down at the board.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in commands.items():
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)  # type: ignore[attr-defined]
        module.add_arguments(p)  # type: ignore[attr-defined]
        p.set_defaults(_run=module.run)  # type: ignore[attr-defined]
    return parser


def main(argv: list[str] | None = None) -> int:
    commands = _available()
    args = build_parser(commands).parse_args(argv)
    try:
        return int(args._run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
