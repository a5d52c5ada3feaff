"""The main-job command alone shows a game being scored live in a browser.

``tilecam demo --moves 3 --speed fast`` runs as a user starts it; headless Chromium (Debian's,
through Playwright: never a downloaded browser) opens the address it prints and sees the
totals and the board change, move by move, without a reload, until they are the game's.  A
screenshot of the scoreboard mid-game is written to the system's temporary folder for a person
to look at.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")

from sim.game import demo_game  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
REPO = Path(__file__).resolve().parents[1]
MOVES = 3

if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
    pytest.skip(f"chromium is not installed at {CHROMIUM} (the setup script installs it)",
                allow_module_level=True)


def totals(page) -> list[int]:
    return [int(t) for t in page.locator("#players .total").all_inner_texts()]


def test_demo_scores_a_game_live_in_the_browser():
    game = demo_game(1, moves=MOVES)
    expected = [0, 0]
    for turn in game.turns:
        expected[turn.player] += turn.score
    placed = sum(len(t.tiles) for t in game.plays)
    demo = subprocess.Popen(
        [sys.executable, "-m", "tilecam", "demo", "--seed", "1", "--moves", str(MOVES),
         "--speed", "fast", "--port", "0"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        printed = ""
        deadline = time.monotonic() + 60
        while "Scoreboard (live):" not in printed:
            line = demo.stdout.readline()
            assert line and time.monotonic() < deadline, f"no address printed:\n{printed}"
            printed += line
        url = re.search(r"Scoreboard \(live\):\s+(\S+)", printed).group(1)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            page.evaluate("window.__notReloaded = true")
            first = totals(page)
            seen = [first]
            shot = Path(tempfile.gettempdir()) / "tilecam-demo-scoreboard.png"
            while totals(page) != expected:
                page.wait_for_function(
                    "seen => Array.from(document.querySelectorAll('#players .total'))"
                    ".map(e => e.textContent.trim()).join(',') !== seen",
                    arg=",".join(str(t) for t in seen[-1]), timeout=90_000,
                )
                seen.append(totals(page))
                if len(seen) == 2:
                    page.screenshot(path=str(shot), full_page=True)
            assert page.evaluate("window.__notReloaded") is True  # live, not reloaded
            # Totals only grow, one move at a time, to the game's; every tile is on the board.
            assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in pairwise(seen))
            assert len(seen) >= 2 and seen[-1] == expected
            page.wait_for_function(f"document.querySelectorAll('#board .tile').length === "
                                   f"{placed}", timeout=10_000)
            log = page.locator("#log").inner_text()
            assert all(turn.notation in log for turn in game.plays), log
            assert errors == []
            assert shot.stat().st_size > 10_000
            browser.close()
    finally:
        demo.terminate()
        try:
            demo.wait(timeout=20)
        finally:
            if demo.poll() is None:
                demo.kill()
