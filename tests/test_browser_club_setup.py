"""A director sets up a club night in a real browser: tables added and removed in the page, a
refusal said next to its field, then the event's director's page with every table.

Runs Debian's chromium headless through Playwright, as ``test_browser.py`` does, and is skipped
when either is missing.
"""

from __future__ import annotations

import re
import shutil
import threading
from pathlib import Path

import pytest

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
TIMEOUT = 5000  # ms

if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
    pytest.skip(f"chromium is not installed at {CHROMIUM} (the setup script installs it)",
                allow_module_level=True)


@pytest.fixture
def server(tmp_path):
    from werkzeug.serving import make_server

    from webui import create_app

    app = create_app({"DATABASE": str(tmp_path / "games.sqlite3"), "SSE_HEARTBEAT": 2.0})
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()
    app.extensions["tilecam_store"].close()


def test_a_director_sets_up_four_tables_and_lands_on_their_page(server):
    players = [["Ann", "Bob"], ["Cat", "Dan"], ["Eve", "Fay", "Gus"], ["Hal", "Ida"]]
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{server}/events")
            page.click("#new-event")
            page.wait_for_url(re.compile(r"/events/new$"))
            rows = page.locator(".table-row")
            sync_api.expect(rows).to_have_count(4)

            # Two more, then the second removed: the rows and their default names follow.
            page.evaluate("window.__notReloaded = true")
            page.click("#add-table")
            page.click("#add-table")
            sync_api.expect(rows).to_have_count(6)
            rows.nth(1).locator(".remove-row").click()
            page.locator("button[value='remove-5']").click()
            sync_api.expect(rows).to_have_count(4)
            assert page.evaluate("window.__notReloaded") is True  # no round trip for rows
            names = [rows.nth(i).locator("input[name$='-name']").input_value() for i in range(4)]
            assert names == ["Table 1", "Table 2", "Table 3", "Table 4"]
            field_names = rows.nth(3).locator("input").evaluate_all("fs => fs.map(f => f.name)")
            assert set(field_names) == {"table-4-name", "table-4-player", "table-4-pin"}
            pins = [rows.nth(i).locator("input[name$='-pin']").input_value() for i in range(4)]
            assert len(set(pins)) == 4

            page.fill("#event-name", "Club night")
            page.fill("#director-pin", "9999")
            rows.nth(2).locator("input[name$='-name']").fill("Top board")
            for row, names_at_table in enumerate(players):
                fields = rows.nth(row).locator("input[name$='-player']")
                for index, name in enumerate(names_at_table):
                    fields.nth(index).fill(name)
            # Table 4 with one player only: said next to its players, everything else kept.
            rows.nth(3).locator("input[name$='-player']").nth(1).fill("")
            page.click("#create-event")
            message = page.locator("#error-tables-4-players")
            sync_api.expect(message).to_have_text("2 to 4 players, got 1", timeout=TIMEOUT)
            sync_api.expect(page.locator("#form-error")).to_contain_text("table 4")
            sync_api.expect(rows.nth(2).locator("input[name$='-name']")).to_have_value(
                "Top board")
            sync_api.expect(page.locator("#director-pin")).to_have_value("9999")
            assert rows.nth(3).locator("input[name$='-player']").nth(0).get_attribute(
                "aria-invalid") == "true"

            # Set right and sent by Enter in a field: the director's page of the new event.
            last = rows.nth(3).locator("input[name$='-player']").nth(1)
            last.fill("Ida")
            last.press("Enter")
            page.wait_for_url(re.compile(r"/events/[a-z0-9]{6,16}$"), timeout=TIMEOUT)
            page.locator("#director[data-versions]").wait_for(state="attached",
                                                              timeout=TIMEOUT)
            cards = page.locator(".table-card")
            sync_api.expect(cards).to_have_count(4)
            sync_api.expect(page.locator("#event-name")).to_have_text("Club night")
            sync_api.expect(cards.locator("header a")).to_have_text(
                ["Table 1", "Table 2", "Top board", "Table 4"])
            for index, names_at_table in enumerate(players):
                sync_api.expect(cards.nth(index).locator(".mini-players .name")).to_have_text(
                    names_at_table)
            # The refused form came back as 400, which the browser notes; nothing else.
            assert [e for e in errors if "status of 400" not in e] == []
            page.close()
        finally:
            browser.close()
