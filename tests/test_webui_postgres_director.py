"""The director's page in a real browser, served as at a club: ``tilecam serve --workers 2`` on
PostgreSQL, four tables playing at once.  Every table's moves, questions and result show on the
open page without a reload, whichever worker stored them.

Runs Debian's chromium headless through Playwright, as ``test_browser.py`` does, and is skipped
when either is missing.  A screenshot of the page is written to the system's temporary folder
for a person to look at.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("scorer.game", reason="scorer.game (the rules engine's Game) is not there yet")
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
#: How long a live update may take to show before the test fails (ms).
LIVE_TIMEOUT = 5000
DIRECTOR = "9999"

if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
    pytest.skip(f"chromium is not installed at {CHROMIUM} (the setup script installs it)",
                allow_module_level=True)


def call(base: str, path: str, body: dict, pin: str | None = None) -> dict:
    headers = {"Content-Type": "application/json"}
    if pin:
        headers["X-Game-Pin"] = pin
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                     method="POST", headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def test_the_director_page_follows_four_live_tables(club_server):
    base = club_server.base
    tables = [{"name": f"Table {n}", "players": [f"P{n}a", f"P{n}b"], "pin": f"{n}{n}{n}{n}"}
              for n in range(1, 5)]
    tables[3]["clock_minutes"] = 25  # the top board plays on the clock
    created = call(base, "/api/events", {"name": "Club night", "pin": DIRECTOR,
                                         "tables": tables})
    games = [t["game_id"] for t in created["overview"]["tables"]]
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{base}/events/{created['id']}")
            # The first overview from the stream marks the page with the versions it shows.
            page.locator("#director[data-versions]").wait_for(state="attached",
                                                              timeout=LIVE_TIMEOUT)
            page.evaluate("window.__notReloaded = true")
            cards = page.locator(".table-card")
            assert cards.count() == 4

            # A move at every table, each through whichever worker the request meets.
            for n, (game_id, word) in enumerate(zip(games, ["HORN", "FARM", "QUIZ", "JOKE"],
                                                    strict=True)):
                call(base, f"/api/games/{game_id}/play", {"position": "8E", "word": word},
                     pin=tables[n]["pin"])
            for n, word in enumerate(["HORN", "FARM", "QUIZ", "JOKE"]):
                card = cards.nth(n)
                sync_api.expect(card.locator(".mini-board .mt")).to_have_count(
                    4, timeout=LIVE_TIMEOUT)
                sync_api.expect(card.locator(".mini-board .mt").first).to_have_text(word[0])
                sync_api.expect(card.locator("li.on-turn .name")).to_have_text(f"P{n + 1}b")

            # A question waiting at table 2; table 3 ends, and the standings appear.
            call(base, f"/api/games/{games[1]}/questions",
                 {"kind": "illegal_placement", "squares": ["A1"]}, pin=DIRECTOR)
            sync_api.expect(cards.nth(1)).to_have_class("table-card asking",
                                                        timeout=LIVE_TIMEOUT)
            sync_api.expect(cards.nth(1).locator(".questions")).to_have_text(
                "1 question waiting")
            call(base, f"/api/games/{games[2]}/resign", {"player": 1}, pin=DIRECTOR)
            rows = page.locator("#standings tbody tr")
            sync_api.expect(rows).to_have_count(2, timeout=LIVE_TIMEOUT)
            sync_api.expect(rows.nth(0).locator("td").nth(1)).to_have_text("P3a")
            sync_api.expect(cards.nth(2).locator("li.winner .name")).to_have_text("P3a")
            sync_api.expect(cards.nth(2).locator(".table-status")).to_have_text("ended")

            # Table 4's clock: started, it runs down on the page between overviews.
            call(base, f"/api/games/{games[3]}/clock", {"action": "start"}, pin=DIRECTOR)
            clock = cards.nth(3).locator("li.on-turn .clock")
            # Started at 25:00 and running down; a busy machine may show the first second
            # gone before the page is looked at.
            sync_api.expect(clock).to_have_text(re.compile(r"^(25:00|24:[0-5]\d)$"),
                                                timeout=LIVE_TIMEOUT)
            first = clock.inner_text()
            page.wait_for_function(
                "([card, first]) => { const c = document.querySelectorAll('.table-card')[card]"
                ".querySelector('li.on-turn .clock'); return c && /^2[45]:[0-5][0-9]$/.test("
                "c.textContent) && c.textContent < first; }", arg=[3, first],
                timeout=LIVE_TIMEOUT)
            assert cards.nth(0).locator(".clock").count() == 0

            assert page.evaluate("window.__notReloaded") is True
            shot = Path(tempfile.gettempdir()) / "tilecam-director.png"
            page.screenshot(path=str(shot), full_page=True)
            assert errors == []
            page.close()  # ends its stream, so the server stops at once
        finally:
            browser.close()
