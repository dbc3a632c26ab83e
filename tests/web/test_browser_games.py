"""Issue 42: every game on the tablet dashboard, entered by taps only and announced in words, in a real
browser (Debian's chromium through Playwright) against the real `warref serve`, on a 1024x768 tablet
and a 390x844 phone.

For each of the five games a short game is tapped in from the entry panel the page draws from the
game's declaration (view.entry, referee/entry.py): after every entry the page must not scroll
sideways, the banner must be in view, and what the referee said must be queued for speech
(window.__spoken). The layout fixes of the issue are checked as assertions: a waiting player keeps
its colour, Tap to start covers no count, a clock never started does not say paused, no camera means
no request for its photo, every tab of the phone's menu is on screen, a battle without a photo has
a placeholder, an impossible entry is greyed with the referee's reason, and the winner of a battle and
the winner of the game look different.

One server for the whole module; screenshots go to reports/screenshots/games-*.png (git-ignored).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from layout import problems
from test_browser import CHROMIUM, SHOTS, api, browser, pair, server, sync_api, wait_js  # noqa: F401 (fixtures)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="the browser tests drive Debian's chromium, and /usr/bin/chromium is missing")
expect = sync_api.expect

SCREENS = {
    "tablet": {"viewport": {"width": 1024, "height": 768}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2},
}
LONG = "MaximilianAlexanderJonas"          # 24 characters, the most a name may have, and nowhere to wrap
assert len(LONG) == 24

CHECK = """n => {
  const b = document.querySelector('#banner').getBoundingClientRect();
  const err = document.querySelector('#entry-error');
  return {over: document.documentElement.scrollWidth - window.innerWidth, top: b.top, bottom: b.bottom,
          height: window.innerHeight, text: document.querySelector('#banner-text').textContent,
          kicker: document.querySelector('#banner-kicker').textContent,
          kind: document.querySelector('#banner').dataset.kind || '', said: window.__spoken.slice(n),
          error: err.hidden ? '' : err.textContent};
}"""


@dataclass
class Screen:
    """One browser page on one screen size, and the few things tapped on it."""
    pg: object
    size: str
    photo_requests: list = field(default_factory=list)   # GET /api/snapshot.jpg: the camera's photo
    entries: int = 0

    def open(self, players) -> None:
        pg = self.pg
        pg.goto("/#live")
        expect(pg.locator("#players .player")).to_have_count(len(players))
        # Tap to start is part of the top bar: it covers no player's count
        # (measured in one step in the page: a push may draw the players again between two calls)
        expect(pg.locator("#start-btn")).to_be_visible()
        bar, boxes = pg.evaluate("""() => {
          const r = e => { const b = e.getBoundingClientRect(); return {x: b.x, y: b.y, width: b.width, height: b.height}; };
          return [r(document.querySelector('#start-btn')), [...document.querySelectorAll('#players .pcount')].map(r)];
        }""")
        assert len(boxes) == len(players) and all(b["width"] > 0 for b in boxes), boxes
        for box in boxes:
            apart = (bar["x"] + bar["width"] <= box["x"] or box["x"] + box["width"] <= bar["x"]
                     or bar["y"] + bar["height"] <= box["y"] or box["y"] + box["height"] <= bar["y"])
            assert apart, (bar, box)
        assert not problems(pg), problems(pg)
        pg.click("#start-btn")
        expect(pg.locator("#start-overlay")).to_be_hidden()
        self.entries = pg.evaluate("window.__spoken.length")

    def key(self, code: str, mark: str | None = None) -> None:
        self.pg.click(f"#card-keys [data-key='{code}'], #special-keys [data-key='{code}']")
        if mark:
            self.pg.click(f"#mark-keys [data-mark='{mark}']")
        assert not problems(self.pg), problems(self.pg)             # the card box shows the whole card

    def act(self, seat: str, action: str, sends: bool = True) -> dict:
        self.pg.click(f"#seat-rows [data-act='{action}'][data-seat='{seat}']")
        return self.entered() if sends else {}

    def pick(self, name: str, value, sends: bool = True) -> dict:
        self.pg.click(f".sheet [data-field='{name}'][data-value='{value}']")
        return self.entered() if sends else {}

    def send(self, action: str) -> dict:
        self.pg.click(f".sheet [data-send='{action}']")
        return self.entered()

    def entered(self) -> dict:
        """After an entry: something new is said, the banner shows it and is in view, no sideways scroll."""
        n = self.entries
        wait_js(self.pg, f"window.__spoken.length > {n}", timeout=10_000)
        got = self.pg.evaluate(CHECK, n)
        self.entries = n + len(got["said"])
        assert not got["error"], got["error"]
        assert got["over"] <= 0, f"the page scrolls sideways by {got['over']} px"
        assert 0 <= got["top"] and got["bottom"] <= got["height"], f"the banner is out of view: {got}"
        assert got["text"] and got["text"] in got["said"], got
        assert not problems(self.pg), problems(self.pg)
        return got

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.pg.screenshot(path=str(SHOTS / f"games-{name}-{self.size}.png"))


def open_screen(browser, server, size: str, **extra):  # noqa: F811 (fixtures)
    """A paired dashboard at ``size`` (``extra``: the browser context's settings, e.g. its locale):
    (context, Screen, the page's JavaScript errors, every console error and what the
    Content-Security-Policy blocked counting: issue 59)."""
    ctx = browser.new_context(base_url=server, **SCREENS[size], **extra)
    pair(ctx, server)
    pg = ctx.new_page()
    pg.set_default_timeout(10_000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" or "Content Security Policy" in m.text else None)
    return ctx, Screen(pg, size), errors


@pytest.fixture(params=list(SCREENS))
def screen(request, browser, server):  # noqa: F811 (fixtures)
    ctx, s, errors = open_screen(browser, server, request.param)
    s.pg.on("request", lambda r: s.photo_requests.append(r.url) if "/api/snapshot.jpg" in r.url else None)
    yield s
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def new_game(server, game: str, players, options=None, clock_minutes=None) -> dict:  # noqa: F811
    body = {"game": game, "players": [{"name": p} for p in players], "options": options or {}}
    if clock_minutes:
        body["clock_minutes"] = clock_minutes
    status, view = api(server, "/api/games", body)
    assert status == 200, view
    return view.get("view", view)


def colour_of(pg, seat: str) -> str:
    return pg.evaluate("s => getComputedStyle(document.querySelector(`#players [data-player='${s}']`)).borderLeftColor", seat)


def rgb(hex_: str) -> str:
    return "rgb({}, {}, {})".format(*(int(hex_[i:i + 2], 16) for i in (1, 3, 5)))


# ----------------------------------------------------------------------------------------- the games
def test_classic_war_by_taps(screen, server):  # noqa: F811
    a, o = LONG, "Olivia"
    view = new_game(server, "classic", [a, o], {"max_battles": 2}, clock_minutes=5)
    pg = screen.pg
    screen.open([a, o])
    # both wait for the first card, and both keep their colour
    expect(pg.locator("#players .player.waiting")).to_have_count(2)
    for p in view["players"]:
        assert colour_of(pg, p["name"]) == rgb(p["colour"])
    # a clock that never ran is not "paused"
    expect(pg.locator("#clock-label")).to_have_text("not started")
    # every tab of the menu is on the screen, none scrolled off the side
    assert pg.evaluate("[...document.querySelectorAll('.tabs a')].every(a => { const r = a.getBoundingClientRect(); "
                       "return r.left >= 0 && r.right <= innerWidth && r.width > 0; })")
    assert pg.evaluate("document.querySelector('.tabs').scrollWidth <= document.querySelector('.tabs').clientWidth")
    # an impossible entry is greyed with the referee's reason, and tapping it only shows the reason
    down = pg.locator(f"#seat-rows [data-act='down'][data-seat='{a}']")
    expect(down).to_have_attribute("aria-disabled", "true")
    expect(down).to_have_attribute("data-why", "No war is waiting for face-down cards right now.")
    down.click(force=True)                        # a finger may tap it: Playwright would not
    expect(pg.locator("#entry-error")).to_have_text("No war is waiting for face-down cards right now.")
    assert api(server, "/api/state")[1]["log_length"] == 0
    # the jokers are out of this game: greyed, with why
    expect(pg.locator("#special-keys [data-key='JOKER']")).to_have_attribute("aria-disabled", "true")

    screen.key("8", "S")
    got = screen.act(a, "flip")
    assert got["text"] == f"{a} turns up an 8; waiting for {o}."
    screen.key("5", "H")
    got = screen.act(o, "flip")
    assert got["kind"] == "battle" and got["kicker"] == f"{a} wins the battle"
    screen.key("7")
    screen.act(a, "flip")
    screen.key("7")
    got = screen.act(o, "flip")
    assert got["text"] == "Two 7s: war!" and got["kicker"] == "WAR!"
    expect(pg.locator("#banner")).to_have_class("banner war")
    screen.shot("classic-war")
    expect(down).to_have_text("Face down ×1")
    screen.act(a, "down")
    screen.act(o, "down")
    screen.key("K")
    screen.act(a, "flip")
    screen.key("2")
    got = screen.act(o, "flip")
    assert got["kind"] == "game_over" and got["kicker"] == f"★ {a} wins the game! ★"
    assert f"{a}'s king beats {o}'s 2: {a} takes 6 cards." in got["said"]
    expect(pg.locator("#banner")).to_have_class("banner over")
    expect(pg.locator(f"#players [data-player='{a}'].champion")).to_have_count(1)
    screen.shot("classic-over")
    # the proof: a placeholder where a battle has no photo (no camera), and never the camera's photo asked for
    pg.goto("/#proof")
    expect(pg.locator("#history .hphoto.none")).to_have_count(2)
    pg.goto("/#setup")
    expect(pg.locator("#zones-camera-note")).to_contain_text("No camera")
    pg.wait_for_timeout(200)
    assert screen.photo_requests == []


def test_woolly_warfare_by_taps(screen, server):  # noqa: F811
    new_game(server, "woolly", ["Alex", "Olivia"], {"max_battles": 1})
    pg = screen.pg
    screen.open(["Alex", "Olivia"])
    # More... shows the rarely needed buttons: a recount starts from the referee's own count
    pg.click("#entry-more")
    screen.act("Olivia", "recount", sends=False)
    expect(pg.locator(".sheet [data-number='count']")).to_have_value("35")
    got = screen.send("recount")
    assert got["text"] == "Recount: Olivia has 35 cards, as the referee had."
    pg.click("#entry-more")
    expect(pg.locator("#seat-rows [data-act='recount']")).to_have_count(0)
    # Steal: the only opponent is chosen already; where from is the one tap left
    screen.act("Alex", "steal", sends=False)
    expect(pg.locator(".sheet [data-field='target'][data-value='Olivia']")).to_have_class("choice-btn sel")
    screen.shot("woolly-steal")
    got = screen.pick("from", "hand")
    assert got["kicker"] == "Steal!" and got["text"].startswith("Alex plays Steal and takes a random card from Olivia's hand.")
    got = screen.act("Olivia", "reveal")
    assert got["kicker"] == "Reveal!"
    screen.key("WAR")
    screen.act("Alex", "flip")
    screen.key("5", "G")                          # a green 5: number, then colour
    got = screen.act("Olivia", "flip")
    assert got["text"] == "Alex played a War card: everyone goes to war!"
    screen.shot("woolly-war")
    expect(pg.locator("#seat-rows [data-act='down'][data-seat='Alex']")).to_have_text("Face down ×2")
    screen.act("Alex", "down")
    screen.act("Olivia", "down")
    screen.key("12", "R")
    screen.act("Alex", "flip")
    screen.key("3")
    got = screen.act("Olivia", "flip")
    assert got["kind"] == "game_over" and "Alex's 12 beats Olivia's 3: Alex takes 8 cards." in got["said"]
    screen.shot("woolly-over")


def test_namikopy_war_by_taps(screen, server):  # noqa: F811
    players = ["Alex", "Olivia", "Sam"]
    new_game(server, "namikopy", players, {"war_cards": "on", "max_battles": 1})
    pg = screen.pg
    screen.open(players)
    screen.key("MALLARD")
    screen.act("Alex", "flip")
    screen.key("5")
    screen.act("Olivia", "flip")
    screen.key("7")
    got = screen.act("Sam", "flip")
    assert got["kicker"] == "WAR!" and "Alex picks who to fight" in got["text"]
    # whose turn it is comes first: Alex chooses
    expect(pg.locator("#seat-rows .seat-row").first).to_have_attribute("data-seat-row", "Alex")
    screen.act("Alex", "choose", sends=False)
    got = screen.pick("opponent", "Sam")
    assert got["text"].startswith("Alex picks Sam: war between Alex and Sam!")
    screen.shot("namikopy-war")
    screen.act("Alex", "down")
    screen.act("Sam", "down")
    screen.key("12")
    screen.act("Alex", "flip")
    screen.key("4")
    got = screen.act("Sam", "flip")
    assert got["kind"] == "game_over" and got["kicker"] == "★ Alex wins the game! ★"
    screen.shot("namikopy-over")


def test_casino_war_by_taps(screen, server):  # noqa: F811
    new_game(server, "casino", ["Alex", "Olivia"], {"max_battles": 1})
    pg = screen.pg
    screen.open(["Alex", "Olivia"])
    screen.act("Alex", "bet", sends=False)
    pg.click(".sheet [data-step='amount+10']")                       # 1 + 10
    got = screen.send("bet")
    assert got["text"] == "Alex bets 11 chips."
    screen.act("Olivia", "bet", sends=False)
    pg.click(".sheet [data-step='amount+5']")
    pg.click(".sheet [data-step='tie+1']")
    got = screen.send("bet")
    assert got["text"] == "Olivia bets 6 chips and 1 on the tie."
    screen.key("7")
    screen.act("Alex", "flip")
    screen.key("9")
    screen.act("Olivia", "flip")
    screen.key("7")
    got = screen.act("Dealer", "flip")
    assert got["kicker"] == "Alex ties the dealer" and "surrender (lose 6) or go to war" in got["text"]
    screen.shot("casino-tie")
    if screen.size == "tablet":
        got = screen.act("Alex", "go_to_war")
        assert got["text"] == "Alex goes to war: 11 more chips on the table."
        expect(pg.locator("#seat-rows [data-act='down'][data-seat='Dealer']")).to_have_text("Burn ×3")
        screen.act("Dealer", "down")
        screen.key("K")
        screen.act("Alex", "flip")
        screen.key("4")
        got = screen.act("Dealer", "flip")
        assert got["kicker"] == "★ Alex wins the game! ★"
    else:
        got = screen.act("Alex", "surrender")
        assert got["kicker"] == "★ Olivia wins the game! ★"
        assert "Alex surrenders and loses 6 chips" in got["said"][0]
    screen.shot("casino-over")


def test_guerra_by_taps(screen, server):  # noqa: F811
    new_game(server, "guerra", ["Alex", "Olivia"])
    pg = screen.pg
    screen.open(["Alex", "Olivia"])
    expect(pg.locator("#seat-rows .seat-row").first).to_have_attribute("data-seat-row", "Olivia")
    expect(pg.locator("#scoreline")).to_contain_text("Alex")
    screen.act("Olivia", "cut", sends=False)
    assert screen.pick("choice", "up")["kicker"] == "The cut"
    screen.act("Olivia", "abstain")
    screen.act("Olivia", "call", sends=False)
    screen.pick("cards", "4 5 6", sends=False)
    got = screen.pick("parity", "odd")
    assert got["text"] == "Olivia shows a run (4, 5, 6) for a troca por sequência and calls odd."
    screen.act("Olivia", "roll", sends=False)
    got = screen.pick("die", 3)
    assert got["kicker"] == "The die shows 3"
    for seat in ("Alex", "Olivia", "Alex", "Olivia", "Alex"):
        got = screen.act(seat, "raise")
        assert got["kicker"] == "Ofensiva!"
    # the sixth point is the most: no more Ofensivas, and the page says why
    expect(pg.locator("#seat-rows [data-act='raise'][data-seat='Olivia']")).to_have_attribute(
        "data-why", "The confronto can't be worth more than 6 points: no more Ofensivas.")
    got = screen.act("Olivia", "accept")
    assert got["text"] == "Olivia accepts: the confronto is now worth 6 points."
    screen.shot("guerra-ofensiva")
    for seat, card in (("Olivia", "3"), ("Alex", "10"), ("Alex", "BACK"), ("Olivia", "2"), ("Olivia", "4")):
        screen.key(card)
        got = screen.act(seat, "flip")
    assert got["text"] == "Olivia plays 4; Alex is next."
    screen.key("9")
    got = screen.act("Alex", "flip")
    assert got["kind"] == "game_over" and got["kicker"] == "★ Alex wins the game! ★"
    assert "Alex wins the confronto: +6 points." in got["said"]
    screen.shot("guerra-over")


GAME_PLAYERS = {"classic": ["Alex", LONG, "Sam", "Mia"], "woolly": ["Alex", LONG, "Sam"], "casino": ["Alex", LONG],
                "namikopy": ["Alex", LONG, "Sam", "Mia", "Leo"], "guerra": ["Alex", LONG, "Sam", "Mia", "Leo", "Ana"]}


@pytest.mark.parametrize("game", list(GAME_PLAYERS))
def test_every_games_live_screen_shows_everything_whole(screen, server, game):  # noqa: F811
    """Issue 59: the live screen of every game, the most players it takes and a 10-minute clock: no word
    breaks across lines ("10:00" wrapped to "10:" / "00" at 1024x768), nothing sticks out of its box or
    the screen, every field shows its value."""
    new_game(server, game, GAME_PLAYERS[game], clock_minutes=10)
    pg = screen.pg
    pg.goto("/#live")
    expect(pg.locator("#players .player")).to_have_count(len(GAME_PLAYERS[game]))
    expect(pg.locator("#clock-digits")).to_have_text("10:00")
    first = {"guerra": "confronto", "casino": "round"}.get(game, "battle")      # each game's own word
    expect(pg.locator("#banner-text")).to_have_text(f"Waiting for the first {first}…")
    assert not problems(pg), problems(pg)
    pg.click("#start-btn")
    pg.click("#clock-start")
    expect(pg.locator("#clock-label")).not_to_have_text("not started", ignore_case=True)
    assert not problems(pg), problems(pg)
    screen.shot(f"{game}-live")
