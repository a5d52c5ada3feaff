"""Setting up a club night from a browser, and the list of club events.

``GET  /events``        every event, newest first, each linking to its director's page
``GET  /events/new``    the setup form: the event's name, the director's PIN, one row per table
                        (its name, 2 to 4 players, its PIN); ``?tables=N`` rows to start with
``POST /events/new``    set it up and go to its director's page (303), or the form again with
                        what was refused said next to the field at fault

The form posts the same event as ``POST /api/events`` (:func:`webui.club.create_event_from`),
so both are checked by the same rules in the store.  It works without JavaScript: adding and
removing rows are then buttons that post the form back with one row more or less, every value
kept; ``static/event_setup.js`` does the same in the page.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field

from flask import Blueprint, redirect, render_template, request, url_for
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers import Response

from webui.api import get_store
from webui.club import create_event_from
from webui.store import MAX_TABLES, NAME_MAX, StoreError

bp = Blueprint("club_setup", __name__)

#: Rows the form starts with (a small club; more are a button away).
DEFAULT_TABLES = 4
#: Player fields per table: a game has 2 to 4 players.
PLAYERS_PER_TABLE = 4
#: ``table-3-pin``: the form's fields of one table row (numbered from 1 in page order).
ROW_FIELD_RE = re.compile(r"table-(\d{1,3})-(name|player|pin)")
#: The store names the table in its messages; beside the table's own field that is said twice.
TABLE_PREFIX_RE = re.compile(r"^table \d+: ")


@dataclass
class TableRow:
    """One table as the form shows it: what was typed, blanks included."""

    name: str
    players: list[str]
    pin: str

    def to_request(self) -> dict[str, object]:
        """The table as ``POST /api/events`` takes it (blank player fields left out)."""
        return {"name": self.name.strip(), "players": [p for p in self.players if p.strip()],
                "pin": self.pin.strip()}


@dataclass
class SetupForm:
    """The whole form, and the refusal to show next to its field."""

    name: str = ""
    pin: str = ""
    tables: list[TableRow] = field(default_factory=list)
    error: StoreError | None = None

    def error_at(self, where: str) -> str | None:
        """The message for field ``where`` (``name``, ``tables.3.players``...), or None."""
        if self.error is None or self.error.field != where:
            return None
        return TABLE_PREFIX_RE.sub("", self.error.message)

    def to_request(self) -> dict[str, object]:
        return {"name": self.name, "pin": self.pin,
                "tables": [t.to_request() for t in self.tables]}


def default_table_name(number: int) -> str:
    return f"Table {number}"


def fresh_pins(count: int, taken: Iterable[str] = ()) -> list[str]:
    """``count`` four-digit PINs unlike each other and ``taken``: one table's PIN must not
    open another table's game."""
    used = set(taken)
    pins: list[str] = []
    while len(pins) < count:
        pin = f"{secrets.randbelow(10_000):04d}"
        if pin not in used:
            used.add(pin)
            pins.append(pin)
    return pins


def blank_rows(count: int, first_number: int = 1, taken_pins: Iterable[str] = ()
               ) -> list[TableRow]:
    pins = fresh_pins(count, taken_pins)
    return [TableRow(default_table_name(first_number + i), [""] * PLAYERS_PER_TABLE, pins[i])
            for i in range(count)]


def form_from(fields: MultiDict[str, str]) -> SetupForm:
    """The form as posted: rows in their numbered order, each with its player fields."""
    numbers = sorted({int(match.group(1)) for key in fields
                      if (match := ROW_FIELD_RE.fullmatch(key))})
    rows = []
    for number in numbers[:MAX_TABLES + 1]:  # one more than allowed, for the store to refuse
        players = [p[:NAME_MAX + 1] for p in fields.getlist(f"table-{number}-player")]
        players = (players + [""] * PLAYERS_PER_TABLE)[:PLAYERS_PER_TABLE]
        rows.append(TableRow(fields.get(f"table-{number}-name", ""), players,
                             fields.get(f"table-{number}-pin", "")))
    return SetupForm(fields.get("name", ""), fields.get("pin", ""), rows)


def renumbered(rows: list[TableRow]) -> list[TableRow]:
    """Rows after one was added or removed: default names follow the rows' new places."""
    for number, row in enumerate(rows, start=1):
        if re.fullmatch(r"Table \d+", row.name.strip()):
            row.name = default_table_name(number)
    return rows


def change_rows(form: SetupForm, change: str) -> SetupForm:
    """The no-script path of the add and remove buttons: ``add`` or ``remove-N``."""
    if change == "add" and len(form.tables) < MAX_TABLES:
        form.tables += blank_rows(1, len(form.tables) + 1, (t.pin for t in form.tables))
    elif (match := re.fullmatch(r"remove-(\d{1,3})", change)) and len(form.tables) > 1:
        index = int(match.group(1)) - 1
        if 0 <= index < len(form.tables):
            del form.tables[index]
    form.tables = renumbered(form.tables)
    return form


def render_form(form: SetupForm, status: int = 200) -> tuple[str, int]:
    return render_template("event_setup.html", form=form, max_tables=MAX_TABLES,
                           players_per_table=PLAYERS_PER_TABLE, name_max=NAME_MAX), status


@bp.get("/events")
def events() -> str:
    return render_template("events.html", events=get_store().list_club_events())


@bp.get("/events/new")
def new_event_form() -> tuple[str, int]:
    count = request.args.get("tables", DEFAULT_TABLES, type=int)
    return render_form(SetupForm(tables=blank_rows(max(1, min(count, MAX_TABLES)))))


@bp.post("/events/new")
def new_event() -> Response | tuple[str, int]:
    form = form_from(request.form)
    change = request.form.get("rows")
    if change:
        return render_form(change_rows(form, change))
    try:
        event_id = create_event_from(form.to_request())
    except StoreError as exc:
        form.error = exc
        return render_form(form, exc.status)
    return redirect(url_for("club.director", event_id=event_id), code=303)
