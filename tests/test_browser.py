"""The tablet dashboard (web/static/) in a real browser: Debian's chromium driven by Playwright
against the real `warref serve`. Speech cannot be heard here, so the page keeps what it said in
window.__spoken and the tests read that.

Screenshots go to reports/screenshots/ (git-ignored). WARREF_BROWSER_URL=http://host:port runs the
tests against a server that is already running (PIN 1234) instead of starting one.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "reports" / "screenshots"
PIN = "1234"

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="the browser tests drive Debian's chromium, and /usr/bin/chromium is missing")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(base: str, path: str, body=None, pin: str | None = PIN):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method="GET" if body is None and path != "/api/undo" else "POST")
    req.add_header("Content-Type", "application/json")
    if pin:
        req.add_header("X-Warref-Pin", pin)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = os.environ.get("WARREF_BROWSER_URL")
    if url:
        yield url.rstrip("/")
        return
    tmp = tmp_path_factory.mktemp("serve")
    port = _free_port()
    log = open(tmp / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--db", str(tmp / "warref.db"), "--pin", PIN],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while True:
        try:
            urllib.request.urlopen(base + "/api/state", timeout=1).read()
            break
        except Exception:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                log.close()
                pytest.fail("warref serve did not start:\n" + (tmp / "server.log").read_text())
            time.sleep(0.2)
    yield base
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    ctx = browser.new_context(viewport={"width": 1180, "height": 820}, base_url=server)
    pg = ctx.new_page()
    pg.set_default_timeout(10_000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def shot(pg, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.evaluate("window.scrollTo(0, 0)")
    pg.screenshot(path=str(SHOTS / f"{name}.png"))


def open_dashboard(pg, hash_: str = "#live") -> None:
    pg.goto("/" + hash_)
    pg.click("#start-btn")                       # the tap that lets the page speak
    sync_api.expect(pg.locator("#start-overlay")).to_be_hidden()


def spoken(pg) -> list[str]:
    return pg.evaluate("window.__spoken.slice()")


def setup_classic(pg, names=("Alex", "Olivia"), clock_minutes: int | None = 10) -> None:
    """Set up Classic War in the UI, giving the PIN when asked."""
    pg.goto("/#setup")
    if pg.locator("#start-overlay").is_visible():
        pg.click("#start-btn")
    pg.click("#game-choices button[data-game=classic]")
    sync_api.expect(pg.locator("[data-option=war_down]")).to_be_visible()
    for i, name in enumerate(names):
        pg.fill(f"[data-player-name='{i}']", name)
    if clock_minutes is None:
        pg.uncheck("#setup-clock-on")
    else:
        pg.check("#setup-clock-on")
        pg.fill("#setup-clock-min", str(clock_minutes))
    pg.click("#start-game")
    if pg.locator("#pin-dialog").is_visible():
        pg.fill("#pin-input", PIN)
        pg.click("#pin-ok")
    sync_api.expect(pg.locator("#tab-live")).to_be_visible()
    sync_api.expect(pg.locator("#players .player")).to_have_count(len(names))


def flip(pg, seat: str, card: str) -> None:
    pg.fill("#card-input", card)
    pg.click(f"[data-flip='{seat}']")


def count_of(pg, name: str) -> str:
    return pg.locator(f"#players [data-player='{name}'] .pcount").inner_text()


# --------------------------------------------------------------------------------------------- tests
def test_setup_screen_shows_options_with_help(page):
    open_dashboard(page, "#setup")
    page.click("#game-choices button[data-game=classic]")
    war_down = page.locator("[data-option=war_down]")
    sync_api.expect(war_down.locator("input[type=radio]")).to_have_count(3)
    sync_api.expect(war_down.locator(".ohelp")).not_to_be_empty()
    sync_api.expect(war_down.locator(".chelp").first).not_to_be_empty()
    # seat order: move the second player up
    page.fill("[data-player-name='0']", "Alex")
    page.fill("[data-player-name='1']", "Olivia")
    page.locator("#setup-players li").nth(1).get_by_role("button", name="Move up").click()
    assert page.input_value("[data-player-name='0']") == "Olivia"
    # Classic War takes up to 4 players
    page.click("#add-player")
    page.click("#add-player")
    assert page.locator("#add-player").is_disabled()
    shot(page, "setup")


def test_battle_then_war_on_the_banner_and_aloud(page):
    open_dashboard(page)
    setup_classic(page)
    banner = page.locator("#banner-text")
    flip(page, "Alex", "8S")
    flip(page, "Olivia", "5H")
    sync_api.expect(banner).to_have_text("Alex's 8 beats Olivia's 5: Alex takes 2 cards.")
    sync_api.expect(page.locator("#players [data-player='Alex'] .pcount")).to_have_text("27")
    assert count_of(page, "Olivia") == "25"
    assert "Alex's 8 beats Olivia's 5: Alex takes 2 cards." in spoken(page)
    shot(page, "live-battle")

    flip(page, "Alex", "7S")
    flip(page, "Olivia", "7H")
    sync_api.expect(banner).to_have_text("Two 7s: war!")
    sync_api.expect(page.locator("#banner")).to_have_class("banner war")
    sync_api.expect(page.locator("#banner-kicker")).to_have_text("WAR!")
    sync_api.expect(page.locator("#prompt")).to_contain_text("lay 1 card face down")
    assert "Two 7s: war!" in spoken(page)
    assert page.locator("#pile").inner_text() == "2"
    shot(page, "live-war")

    page.click("[data-down='Alex']")
    page.click("[data-down='Olivia']")
    sync_api.expect(page.locator("#pile")).to_have_text("4")
    flip(page, "Alex", "KS")
    flip(page, "Olivia", "2H")
    sync_api.expect(banner).to_have_text("Alex's king beats Olivia's 2: Alex takes 6 cards.")
    sync_api.expect(page.locator("#players [data-player='Alex'] .pcount")).to_have_text("30")

    # a refused event shows (and says) the server's sentence and changes nothing
    flip(page, "Alex", "3C")
    sync_api.expect(page.locator("#prompt")).to_contain_text("Olivia")
    flip(page, "Olivia", "3C")
    err = page.locator("#entry-error")
    sync_api.expect(err).to_contain_text("only one 3 of clubs")
    assert any("only one 3 of clubs" in t for t in spoken(page))
    assert count_of(page, "Olivia") == "22"

    # undo takes back the last event (Alex's 3)
    page.click("#undo")
    sync_api.expect(page.locator("#banner-kicker")).to_have_text("Undone")
    sync_api.expect(page.locator("#players [data-player='Alex'] .pcount")).to_have_text("30")


def test_history_enlarges_a_battle_and_corrects_a_card(page, server):
    open_dashboard(page)
    setup_classic(page, clock_minutes=None)
    flip(page, "Alex", "8S")
    flip(page, "Olivia", "5H")
    sync_api.expect(page.locator("#banner-text")).to_have_text("Alex's 8 beats Olivia's 5: Alex takes 2 cards.")
    flip(page, "Alex", "4D")
    flip(page, "Olivia", "JC")
    sync_api.expect(page.locator("#banner-text")).to_have_text("Olivia's jack beats Alex's 4: Olivia takes 2 cards.")

    page.goto("/#proof")
    items = page.locator("#history li button")
    sync_api.expect(items).to_have_count(2)
    page.locator("#history [data-battle='1']").click()
    dialog = page.locator("#battle-dialog")
    sync_api.expect(dialog).to_be_visible()
    sync_api.expect(page.locator("#battle-title")).to_have_text("Battle 1")
    sync_api.expect(page.locator("#battle-cards .pcard")).to_have_count(2)
    sync_api.expect(page.locator("#battle-cards")).to_contain_text("8♠")
    sync_api.expect(page.locator("#battle-cards")).to_contain_text("5♥")
    sync_api.expect(page.locator("#battle-rulings")).to_contain_text("Alex's 8 beats Olivia's 5")
    shot(page, "proof-battle")

    # Olivia's card was really the 9 of hearts: she won battle 1
    page.fill("[data-fix-card='Olivia']", "9H")
    page.click("[data-fix-btn='Olivia']")
    sync_api.expect(dialog).to_be_hidden()
    sync_api.expect(page.locator("#banner-kicker")).to_have_text("Corrected")
    page.wait_for_function("window.__spoken.some(t => t.startsWith('Correction.'))")
    said = [t for t in spoken(page) if t.startswith("Correction.")][-1]
    assert "Olivia" in said
    state = api(server, "/api/state")[1]
    assert {p["name"]: p["count"] for p in state["players"]} == {"Alex": 24, "Olivia": 28}


def test_correcting_a_card_sent_in_a_flips_event_keeps_the_other_card(page, server):
    """The camera sends both cards of a frame as one flips event: fixing one card must send that
    whole event again with only that card changed (the server's card_seq says which event)."""
    open_dashboard(page)
    setup_classic(page, clock_minutes=None)
    status, _ = api(server, "/api/events", {"type": "flips", "cards": {"Alex": "8S", "Olivia": "5H"}})
    assert status == 200
    sync_api.expect(page.locator("#banner-text")).to_have_text("Alex's 8 beats Olivia's 5: Alex takes 2 cards.")
    page.goto("/#proof")
    page.locator("#history [data-battle='1']").click()
    page.fill("[data-fix-card='Alex']", "2S")
    page.click("[data-fix-btn='Alex']")
    sync_api.expect(page.locator("#battle-dialog")).to_be_hidden()
    state = api(server, "/api/state")[1]
    assert state["history"][0]["cards"] == {"Alex": "2S", "Olivia": "5H"}
    assert {p["name"]: p["count"] for p in state["players"]} == {"Alex": 25, "Olivia": 27}


def test_a_long_game_keeps_every_battle_in_the_proof_list(page, server):
    """Pushes carry only the newest battles; the page keeps the older ones it already has."""
    open_dashboard(page)
    setup_classic(page, clock_minutes=None)
    cards = [("AS", "2S"), ("AH", "3S"), ("AD", "4S"), ("AC", "5S"), ("KS", "6S"), ("KH", "7S"), ("KD", "8S")]
    for alex, olivia in cards:
        assert api(server, "/api/events", {"type": "flips", "cards": {"Alex": alex, "Olivia": olivia}})[0] == 200
    sync_api.expect(page.locator("#banner-text")).to_have_text("Alex's king beats Olivia's 8: Alex takes 2 cards.")
    page.goto("/#proof")
    sync_api.expect(page.locator("#history li button")).to_have_count(7)


def test_clock_runs_out_and_names_the_winner(page, server):
    open_dashboard(page)
    setup_classic(page, clock_minutes=1)
    sync_api.expect(page.locator("#clock-digits")).to_have_text("1:00")
    flip(page, "Alex", "8S")
    flip(page, "Olivia", "5H")
    sync_api.expect(page.locator("#banner-text")).to_have_text("Alex's 8 beats Olivia's 5: Alex takes 2 cards.")
    # a short clock so the test does not wait a minute: fractional minutes, 0.05 = 3 s
    status, clock = api(server, "/api/clock", {"action": "set", "minutes": 0.05})
    assert status == 200, clock
    page.wait_for_function("document.querySelector('#clock-digits').textContent !== '1:00'")
    page.click("#clock-start")
    sync_api.expect(page.locator("#clock-pause")).to_be_visible()
    page.wait_for_timeout(900)
    shot(page, "clock-running")
    sync_api.expect(page.locator("#clock-label")).to_have_text("Time is up!", timeout=70_000)
    sync_api.expect(page.locator("#banner-text")).to_contain_text("Alex wins", timeout=15_000)
    sync_api.expect(page.locator("#banner")).to_have_class("banner over")
    page.wait_for_function("window.__spoken.some(t => t.includes('Alex wins'))")
    assert any("Time is up" in t for t in spoken(page))
    shot(page, "time-up")


def test_clock_buttons_pause_resume_add(page):
    open_dashboard(page)
    setup_classic(page, clock_minutes=5)
    page.click("#clock-start")
    sync_api.expect(page.locator("#clock-label")).to_have_text("left")
    page.click("#clock-pause")
    sync_api.expect(page.locator("#clock-label")).to_have_text("paused")
    page.click("#clock-add")
    page.wait_for_function("document.querySelector('#clock-digits').textContent.startsWith('5:') || "
                           "document.querySelector('#clock-digits').textContent.startsWith('6:')")
    page.click("#clock-resume")
    sync_api.expect(page.locator("#clock-label")).to_have_text("left")


def test_past_games_open_read_only(page):
    open_dashboard(page)
    setup_classic(page, names=("Sam", "Mia"), clock_minutes=None)
    flip(page, "Sam", "QS")
    flip(page, "Mia", "3D")
    sync_api.expect(page.locator("#banner-text")).to_contain_text("Sam's queen beats Mia's 3")
    page.goto("/#games")
    first = page.locator("#games-list button").first
    sync_api.expect(first).to_contain_text("Sam")
    first.click()
    past = page.locator("#past-game")
    sync_api.expect(past).to_contain_text("read-only")
    past.locator("[data-battle='1']").click()
    sync_api.expect(page.locator("#battle-dialog")).to_be_visible()
    sync_api.expect(page.locator("#battle-rulings")).to_contain_text("Sam's queen beats Mia's 3")
    assert page.locator("#battle-fix button").count() == 0


def test_wrong_pin_asks_again_and_viewers_only_watch(page, server):
    page.goto("/#live")
    page.click("#start-btn")
    api(server, "/api/games", {"game": "classic", "players": [{"name": "Alex"}, {"name": "Olivia"}]})
    sync_api.expect(page.locator("#players .player")).to_have_count(2)
    sync_api.expect(page.locator("#badge-pin")).to_contain_text("Watching")
    flip(page, "Alex", "8S")
    sync_api.expect(page.locator("#pin-dialog")).to_be_visible()
    page.fill("#pin-input", "9999")
    page.click("#pin-ok")
    sync_api.expect(page.locator("#pin-msg")).to_contain_text("did not work")
    page.click("#pin-cancel")          # "Just watch": nothing changes
    assert api(server, "/api/state")[1]["log_length"] == 0
    flip(page, "Alex", "8S")
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    sync_api.expect(page.locator("#prompt")).to_contain_text("Olivia")
    assert page.evaluate("localStorage.getItem('warref-pin')") == PIN
    sync_api.expect(page.locator("#badge-pin")).to_contain_text("Referee")


def test_second_screen_follows_live_and_reconnects(browser, server, page):
    open_dashboard(page)
    setup_classic(page, clock_minutes=None)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, base_url=server,
                                is_mobile=True, has_touch=True, device_scale_factor=2)
    ph = phone.new_page()
    try:
        ph.goto("/#live")
        ph.click("#start-btn")
        sync_api.expect(ph.locator("#players .player")).to_have_count(2)
        flip(page, "Alex", "AS")
        flip(page, "Olivia", "AH")
        sync_api.expect(ph.locator("#banner-text")).to_have_text("Two aces: war!")
        ph.wait_for_function("window.__spoken.includes('Two aces: war!')")
        # the connection drops: the badge shows, and after reconnecting the state is fetched again
        ph.evaluate("window.__warref.dropSocket()")
        sync_api.expect(ph.locator("#badge-reconnect")).to_be_visible()
        sync_api.expect(ph.locator("#badge-reconnect")).to_be_hidden(timeout=10_000)
        page.click("[data-down='Alex']")
        sync_api.expect(ph.locator("#pile")).to_have_text("3")
        shot(ph, "phone-war")
        ph.goto("/#share")
        sync_api.expect(ph.locator("#address")).to_contain_text("http")
        assert ph.evaluate("document.querySelector('#qr').naturalWidth") > 0
    finally:
        phone.close()


def test_static_shell_is_installable_and_offline_free(page, server):
    page.goto("/")
    manifest = page.evaluate("fetch('/manifest.webmanifest').then(r => r.json())")
    assert manifest["display"] == "standalone" and manifest["icons"] and manifest["theme_color"]
    for path in ("/sw.js", "/icon.svg", "/app.js", "/app.css"):
        with urllib.request.urlopen(server + path) as r:
            assert r.status == 200
    # nothing from the internet: every src/href is relative or same-origin
    static = ROOT / "web" / "static"
    for f in static.iterdir():
        if f.suffix in (".html", ".css", ".js"):
            text = f.read_text()
            assert "https://" not in text and "http://" not in text.replace("http://www.w3.org", ""), f
