"""The scoreboard in a real browser: moves made on the control page and by the camera path
reach every open scoreboard live, without a reload.

Runs Debian's chromium headless through Playwright (never a downloaded browser); skipped when
either is missing.  Screenshots of the scoreboard at phone and tablet sizes are written to the
system's temporary folder for a person to look at.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
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
PIN = "2468"
#: How long a live update may take to show before the test fails (ms); loopback takes ~10.
LIVE_TIMEOUT = 5000

if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
    pytest.skip(f"chromium is not installed at {CHROMIUM} (the setup script installs it)",
                allow_module_level=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from werkzeug.serving import make_server

    from webui import create_app

    app = create_app({"DATABASE": str(tmp_path_factory.mktemp("db") / "games.sqlite3"),
                      "SSE_HEARTBEAT": 2.0})
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()
    app.extensions["tilecam_store"].close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def call(base, path, body, pin=PIN):
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json", "X-Game-Pin": pin},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.load(response)


def open_page(browser, url, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.evaluate("window.__notReloaded = true")
    return page, errors


def totals(page):
    return page.locator("#players .total").all_inner_texts()


def wait_totals(page, expected):
    page.wait_for_function(
        "exp => Array.from(document.querySelectorAll('#players .total'))"
        ".map(n => n.textContent).join(',') === exp",
        arg=",".join(str(t) for t in expected), timeout=LIVE_TIMEOUT,
    )


def square(page, name):
    return page.locator(f'#board .sq[data-sq="{name}"]')


def test_scoreboards_follow_controls_and_camera_live(server, browser):
    _, created = call(server, "/api/games", {"players": ["Ann", "Bob"], "pin": PIN})
    game_id = created["id"]
    phone, phone_errors = open_page(browser, f"{server}/games/{game_id}", 390, 844)
    tablet, tablet_errors = open_page(browser, f"{server}/games/{game_id}", 1024, 768)
    control, control_errors = open_page(browser, f"{server}/games/{game_id}/control", 1024, 900)
    for page in (phone, tablet, control):
        page.wait_for_selector("#conn.live", timeout=LIVE_TIMEOUT)
    assert totals(phone) == ["0", "0"]

    # 1. A move through the controls: unlock with the PIN, tap the start square, type, Play.
    control.fill("#pin-input", PIN)
    control.click("#pin-form button[type=submit]")
    control.wait_for_selector("#pin-forget:not([hidden])")
    square(control, "E8").click()
    assert control.input_value("#play-position") == "8E"
    control.fill("#play-word", "HORN")
    control.click("#play-form button[type=submit]")
    for page in (phone, tablet):
        wait_totals(page, [14, 0])
        assert square(page, "E8").inner_text().startswith("H")
        assert "last" in square(page, "H8").locator(".tile").get_attribute("class")
        assert "HORN" in page.inner_text("#last-move")
        assert page.locator("#players .player").nth(1).get_attribute("class").count("on-turn")

    # 2. The camera pipeline's path: new tiles posted as squares; the play is inferred.
    status, _ = call(server, f"/api/games/{game_id}/placements",
                     {"tiles": {"G6": "F", "G7": "A", "G9": "M"}})
    assert status == 200
    for page in (phone, tablet, control):
        wait_totals(page, [14, 13])
    assert "FARM" in phone.inner_text("#last-move")
    assert square(phone, "G9").inner_text().startswith("M")

    # 3. A blank the word list cannot decide (HORN? is HORNS or HORNY): the question shows
    #    on the control page and answering it plays the tile.
    status, reply = call(server, f"/api/games/{game_id}/placements", {"tiles": {"I8": "?"}})
    assert status == 202 and reply["question"]["options"] == ["S", "Y"]
    control.wait_for_selector(".question button:has-text('S')", timeout=LIVE_TIMEOUT)
    phone.wait_for_selector("#questions:not([hidden])", timeout=LIVE_TIMEOUT)
    control.click(".question button:has-text('S')")
    for page in (phone, tablet):
        wait_totals(page, [14 + 7, 13])  # HORNs: 4 + 1 + 1 + 1 + 0
    assert "blank" in square(phone, "I8").locator(".tile").get_attribute("class")
    phone.wait_for_selector("#questions[hidden]", state="attached", timeout=LIVE_TIMEOUT)
    # Tapping the blank on the control page offers it for naming (correct as a blank).
    square(control, "I8").click()
    assert control.input_value("#correct-square") == "I8"
    assert control.input_value("#correct-letter") == "S"
    assert control.is_checked("#correct-blank")
    control.fill("#correct-letter", "y")
    control.click("#correct-form button[type=submit]")
    phone.wait_for_function(
        "() => document.querySelector('#board .sq[data-sq=\"I8\"]').textContent.startsWith('Y')",
        timeout=LIVE_TIMEOUT)
    wait_totals(phone, [21, 13])  # HORNy scores as HORNs did

    # 4. A phony played and challenged off from the control page; then undo of the withdrawal.
    control.fill("#play-position", "10G")
    control.fill("#play-word", "QXZ")
    control.click("#play-form button[type=submit]")
    wait_totals(phone, [21, 13 + 47])  # QXZ 28 + FARMQ 19
    # Before anyone challenges, the scoreboards show the dictionary's verdict beside the play.
    for page in (phone, tablet):
        verdict = page.locator("#last-move .unlisted").inner_text()
        assert verdict == "not in the word list: QXZ, FARMQ", verdict
    assert "HORN" in phone.locator("#log li").nth(3).inner_text()
    assert phone.locator("#log li").nth(3).locator(".unlisted").count() == 0
    control.click("#challenge-button")
    control.wait_for_selector("#challenge-result .bad", timeout=LIVE_TIMEOUT)
    assert "QXZ" in control.inner_text("#challenge-result")
    wait_totals(phone, [21, 13])
    assert "QXZ, FARMQ withdrawn" in phone.inner_text("#last-move")
    assert "withdrawn" in phone.locator("#log li").first.inner_text()
    control.click("#undo-button")
    wait_totals(tablet, [21, 60])

    for page, errors in ((phone, phone_errors), (tablet, tablet_errors),
                         (control, control_errors)):
        assert page.evaluate("window.__notReloaded") is True
        assert errors == []

    shots = Path(tempfile.gettempdir()) / "tilecam-screens"
    shots.mkdir(exist_ok=True)
    phone.screenshot(path=str(shots / "scoreboard-phone-390x844.png"))
    tablet.screenshot(path=str(shots / "scoreboard-tablet-1024x768.png"))
    landscape, _ = open_page(browser, f"{server}/games/{game_id}", 844, 390)
    landscape.wait_for_selector("#conn.live", timeout=LIVE_TIMEOUT)
    landscape.screenshot(path=str(shots / "scoreboard-phone-landscape-844x390.png"))
    for page in (phone, tablet, control, landscape):
        page.context.close()


def test_camera_preview_and_calibration_pages(server, browser, tmp_path):
    cv2 = pytest.importorskip("cv2", reason="OpenCV makes the test frame")
    import numpy as np

    _, created = call(server, "/api/games", {"players": ["Ann", "Bob"], "pin": PIN})
    game_id = created["id"]
    frame = np.full((300, 400, 3), 200, np.uint8)
    cv2.rectangle(frame, (50, 30), (350, 270), (40, 90, 160), -1)
    ok, jpeg = cv2.imencode(".jpg", frame)
    assert ok
    request = urllib.request.Request(
        f"{server}/api/games/{game_id}/frames", data=jpeg.tobytes(), method="POST",
        headers={"Content-Type": "image/jpeg", "X-Game-Pin": PIN})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 202
    call(server, f"/api/games/{game_id}/grid",
         {"corners": [[50, 30], [350, 30], [350, 270], [50, 270]], "width": 400, "height": 300})

    page, errors = open_page(browser, f"{server}/games/{game_id}/camera", 800, 700)
    page.wait_for_function("() => document.getElementById('frame').naturalWidth === 400",
                           timeout=LIVE_TIMEOUT)
    # The grid is drawn: a pixel on a grid line inside the board is the line colour.
    page.wait_for_function("""() => {
        const c = document.getElementById('overlay');
        const img = document.getElementById('frame');
        if (!c.width) return false;
        const x = Math.round(200 * img.clientWidth / 400);
        const y = Math.round(30 * img.clientHeight / 300);
        const d = c.getContext('2d').getImageData(x, y, 1, 1).data;
        return d[3] > 0;
    }""", timeout=LIVE_TIMEOUT)
    shots = Path(tempfile.gettempdir()) / "tilecam-screens"
    shots.mkdir(exist_ok=True)
    page.screenshot(path=str(shots / "camera-preview.png"))
    assert errors == []

    calibrate, errors = open_page(browser, f"{server}/games/{game_id}/calibrate", 800, 900)
    calibrate.evaluate(f"localStorage.setItem('tilecam-pin-{game_id}', '{PIN}')")
    calibrate.wait_for_function("() => document.getElementById('frame').naturalWidth === 400",
                                timeout=LIVE_TIMEOUT)
    box = calibrate.locator("#overlay").bounding_box()
    for fx, fy in ((0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9)):
        calibrate.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    calibrate.click("#corners-save")
    calibrate.wait_for_selector("#message.ok", timeout=LIVE_TIMEOUT)
    calibrate.evaluate("document.getElementById('message').textContent = ''")
    calibrate.click("#capture-empty")
    calibrate.wait_for_function(
        "() => document.getElementById('message').textContent === 'Saved.'")
    saved = json.load(urllib.request.urlopen(f"{server}/api/games/{game_id}/calibration"))
    corners = saved["calibration"]["corners"]["data"]["corners"]
    assert [round(x / 40) for x, _ in corners] == [1, 9, 9, 1]  # 10% and 90% of 400 px
    assert "empty" in saved["calibration"]
    assert errors == []
    page.context.close()
    calibrate.context.close()


def test_editing_a_past_move_updates_an_open_scoreboard_live(server, browser):
    _, created = call(server, "/api/games", {"players": ["Ann", "Bob"], "pin": PIN})
    game_id = created["id"]
    for position, word in (("8F", "HORN"), ("H6", "FA.M"), ("10F", "PASTE")):
        call(server, f"/api/games/{game_id}/play", {"position": position, "word": word})
    board, board_errors = open_page(browser, f"{server}/games/{game_id}", 1024, 768)
    control, control_errors = open_page(browser, f"{server}/games/{game_id}/control", 1024, 1400)
    board.wait_for_selector("#conn.live", timeout=LIVE_TIMEOUT)
    wait_totals(board, [39, 9])
    control.evaluate(f"localStorage.setItem('tilecam-pin-{game_id}', '{PIN}')")
    control.reload()
    control.wait_for_selector("#conn.live", timeout=LIVE_TIMEOUT)
    # Tap Bob's FA.M (event 2) in the list: the form is filled; its M was a blank.
    control.click("#log li[value='2']")
    assert control.input_value("#edit-word") == "FA.M"
    control.fill("#edit-word", "FA.m")
    control.fill("#edit-by", "Cy")
    control.click("#edit-form button[type=submit]")
    wait_totals(board, [36, 6])
    assert board.evaluate("window.__notReloaded") is True
    control.wait_for_selector("#history li:has-text('FA.m')", timeout=LIVE_TIMEOUT)
    assert "Cy" in control.inner_text("#history")
    # A change that breaks a later play is refused with the reason, and nothing changes.
    control.click("#log li[value='2']")
    control.fill("#edit-position", "7I")
    control.fill("#edit-word", "AN")
    control.click("#edit-form button[type=submit]")
    control.wait_for_selector("#message.error-message", timeout=LIVE_TIMEOUT)
    assert "event 3 (Ann's play 10F PASTE): not_connected" in control.inner_text("#message")
    assert totals(board) == ["36", "6"]
    control.click("#undo-button")
    wait_totals(board, [39, 9])
    # The refused change's 409 is the browser's own log line, not a script error.
    assert board_errors == [] and [e for e in control_errors if "409" not in e] == []
    board.context.close()
    control.context.close()
