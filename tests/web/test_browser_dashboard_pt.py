"""Issue 64: the tablet dashboard (web/static/index.html, app.js) in Portuguese, in a real browser (Debian's
chromium through Playwright) against the real `warref serve`, on a 1024x768 tablet and a 390x844 phone.

A browser whose language is pt-PT plays Classic War and Guerra by taps on the entry panel: after every
entry no English word is on the screen or queued for speech (the rooms tests' word list), nothing
overflows with the longer Portuguese words, and the banner shows the ruling as web/i18n.py renders its
message in Portuguese, never its English text. Every game's live screen is checked the same way, and an
English tablet is switched to Portuguese and back on the page.
"""
from __future__ import annotations

import os
from pathlib import Path

import re

import pytest

from layout import problems
from test_browser import CHROMIUM, api, browser, pair, running, server, sync_api, wait_js  # noqa: F401 (fixtures)
from test_browser_games import GAME_PLAYERS, LONG, SCREENS, Screen, new_game, open_screen
from test_browser_rooms import ENGLISH
from web.i18n import message_in

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="the browser tests drive Debian's chromium, and /usr/bin/chromium is missing")
expect = sync_api.expect

# the rooms tests' English words ("face" is Portuguese too: "com a face para baixo") and the dashboard's own
DASHBOARD_ENGLISH = (ENGLISH - {"face"}) | {
    "battle", "battles", "turns", "takes", "beats", "undo", "clock", "left", "paused", "proof", "share", "live", "new",
    "past", "tap", "fix", "camera", "rules", "send", "more", "last", "enter", "what", "happened", "middle", "chips",
    "bet", "bets", "dealer", "started", "nobody", "scores", "watching", "referee", "first"}
# and teaching a deck's, and the camera's status
TEACH_ENGLISH = DASHBOARD_ENGLISH | {
    "show", "photo", "photos", "upload", "taken", "train", "training", "deck", "hearts", "spades", "clubs", "diamonds",
    "queen", "king", "jack", "ace", "joker", "reading", "ready", "hold", "still", "readable", "image", "practice",
    "pictures", "picture", "making", "lost", "frozen", "reconnecting", "unplugged", "stopped", "sending", "table"}


def english_in(text: str, english: frozenset[str] = DASHBOARD_ENGLISH) -> list[str]:
    text = re.sub(r"https?://\S+", " ", text)                    # the dashboard's address (Share)
    return sorted({w for w in re.findall(r"[A-Za-zÀ-ÿ]+", text.lower()) if w in english})


# the page's text without the players' names (a name is not an English word the page says)
VISIBLE = """(names) => {
  let text = document.body.innerText;
  for (const n of names.slice().sort((a, b) => b.length - a.length)) text = text.split(n).join(" ");
  return text;
}"""


@pytest.fixture(params=list(SCREENS))
def pt_screen(request, browser, server):  # noqa: F811 (fixtures)
    ctx, screen, errors = open_screen(browser, server, request.param, locale="pt-PT")
    yield screen
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


# The games played by taps in Portuguese check the rulings' language, which no screen size changes:
# each runs on one form factor (the phone, the narrower, for two of them; the tablet for Guerra), and
# test_browser_games.py plays every game by taps on both in English. Every game's live screen, the
# set-up and the other screens stay checked whole in Portuguese on both sizes below.
ON_PHONE = pytest.mark.parametrize("pt_screen", ["phone"], indirect=True)
ON_TABLET = pytest.mark.parametrize("pt_screen", ["tablet"], indirect=True)


def no_english(screen: Screen, names, said_from: int = 0, english: frozenset[str] = DASHBOARD_ENGLISH) -> None:
    """Nothing English on the screen or said (since ``said_from``), and nothing overflowing."""
    pg = screen.pg
    words = pg.evaluate(VISIBLE, list(names))
    assert english_in(words, english) == [], (english_in(words, english), words)
    spoken = " ".join(pg.evaluate("n => window.__spoken.slice(n)", said_from))
    assert english_in(spoken, english) == [], (english_in(spoken, english), spoken)
    assert problems(pg) == [], problems(pg)


def portuguese_rulings(server) -> tuple[set[str], set[str]]:  # noqa: F811
    """The last entry's rulings (and the prompt, which a war's face-down phase says) as the page should show
    them (each message in Portuguese), and as English."""
    state = api(server, "/api/state")[1]
    last = [r for r in state["last"] if r["type"] != "prompt"] + [state["prompt"]]
    assert all("msg" in r for r in last), last
    return {message_in(r["msg"], "pt") for r in last}, {r["text"] for r in last}


def one_of(texts) -> re.Pattern:
    return re.compile("^(" + "|".join(re.escape(x) for x in texts) + ")$")


def last_rulings(server) -> tuple[set[str], set[str]]:  # noqa: F811
    """The last entry's rulings (not the prompt): in Portuguese, and in English."""
    last = [r for r in api(server, "/api/state")[1]["last"] if r["type"] != "prompt"]
    return {message_in(r["msg"], "pt") for r in last}, {r["text"] for r in last}


def entered_in_portuguese(screen: Screen, server, names, got: dict, said_from: int = 0) -> dict:  # noqa: F811
    """After an entry: the banner and what was said are the rulings in Portuguese, not their English."""
    pt, en = portuguese_rulings(server)
    assert got["text"] in pt and got["text"] not in en, (got, pt)
    assert set(got["said"]) <= pt and not set(got["said"]) & (en - pt), (got["said"], pt)
    no_english(screen, names, said_from)
    return got


@ON_PHONE
def test_classic_war_in_portuguese_by_taps(pt_screen, server):  # noqa: F811
    screen, pg, a, o = pt_screen, pt_screen.pg, LONG, "Olivia"
    new_game(server, "classic", [a, o], {"max_battles": 2}, clock_minutes=5)
    screen.open([a, o])
    assert pg.evaluate("document.documentElement.lang") == "pt-PT"
    expect(pg.locator("#lang")).to_have_value("pt")
    expect(pg.locator("#clock-label")).to_have_text("por começar")
    expect(pg.locator(".tabs a[data-tab='live']")).to_have_text("Ao vivo")
    no_english(screen, [a, o])
    # the game's "How to play" sheet (web/static/dom.js), in Portuguese too
    pg.click("#howto-live")
    expect(pg.locator("#howto-title")).to_have_text("Como jogar Guerra clássica")
    no_english(screen, [a, o])
    pg.click("#howto-close")
    # an entry the referee would refuse: greyed, and its reason in Portuguese
    down = pg.locator(f"#seat-rows [data-act='down'][data-seat='{a}']")
    expect(down).to_have_attribute("aria-disabled", "true")
    why = down.get_attribute("data-why")
    assert why and english_in(why) == [], why
    down.click(force=True)
    expect(pg.locator("#entry-error")).to_have_text(why)

    screen.key("8", "S")
    got = entered_in_portuguese(screen, server, [a, o], screen.act(a, "flip"))
    assert got["text"] == f"{a} vira o 8 de espadas; à espera de {o}."
    screen.key("5", "H")
    got = entered_in_portuguese(screen, server, [a, o], screen.act(o, "flip"))
    assert got["kind"] == "battle" and got["kicker"] == f"{a} ganha a batalha"
    screen.key("7")
    screen.act(a, "flip")
    screen.key("7")
    got = entered_in_portuguese(screen, server, [a, o], screen.act(o, "flip"))
    assert got["kicker"] == "GUERRA!"
    screen.act(a, "down")
    screen.act(o, "down")
    screen.key("K")
    screen.act(a, "flip")
    screen.key("2")
    got = entered_in_portuguese(screen, server, [a, o], screen.act(o, "flip"))
    assert got["kind"] == "game_over" and got["kicker"] == f"★ {a} ganha o jogo! ★"
    assert pg.evaluate("window.__spokenLang") == "pt-PT"
    screen.shot("pt-classic-over")
    # the proof: every battle's sentence in Portuguese, and the enlarged battle too
    pg.goto("/#proof")
    expect(pg.locator("#history li")).to_have_count(2)
    no_english(screen, [a, o])
    pg.click("#history [data-battle='2']")
    expect(pg.locator("#battle-title")).to_have_text("Batalha 2")
    no_english(screen, [a, o])


def test_a_refusal_from_the_server_is_shown_in_portuguese(browser, server):  # noqa: F811
    ctx, screen, errors = open_screen(browser, server, "tablet", locale="pt-PT")
    pg = screen.pg
    new_game(server, "guerra", ["Alex", "Olivia"])
    screen.open(["Alex", "Olivia"])
    pg.click("details.raw summary")
    pg.fill("#raw-input", '{"type": "flip", "seat": "Bob", "card": "7S"}')
    pg.click("#raw-form button")
    expect(pg.locator("#entry-error")).to_have_text(
        "Não há nenhum jogador chamado 'Bob' nesta mesa (jogadores: Alex e Olivia).")
    spoken = pg.evaluate("window.__spoken.slice()")
    assert spoken[-1] == "Não há nenhum jogador chamado 'Bob' nesta mesa (jogadores: Alex e Olivia).", spoken
    # the camera asks for a card again (web/live.py pushes the sentence with its message)
    pg.evaluate("m => window.__warref.handle(m)", {
        "type": "reask", "seat": "Alex", "card": None,
        "text": "Alex, please show your card again: it could not be read for sure.",
        "msg": {"id": "{seat}, please show your card again: {why}",
                "args": {"seat": "Alex", "why": {"id": "it could not be read for sure.", "args": {}}}}})
    expect(pg.locator("#reask-text")).to_have_text("Alex, mostra outra vez a tua carta")
    expect(pg.locator("#reask-why")).to_have_text("Não foi possível lê-la com certeza.")
    assert pg.evaluate("window.__spoken.slice(-1)[0]") == \
        "Alex, mostra outra vez a tua carta: não foi possível lê-la com certeza."
    ctx.close()
    # the browser logs the refusal's 422 itself; nothing else
    assert [e for e in errors if "status of 422" not in e] == [], errors


@ON_TABLET
def test_guerra_in_portuguese_by_taps(pt_screen, server):  # noqa: F811
    screen, pg, names = pt_screen, pt_screen.pg, ["Alex", "Olivia"]
    new_game(server, "guerra", names)
    screen.open(names)
    expect(pg.locator("#banner-text")).to_have_text("À espera do primeiro confronto…")
    expect(pg.locator("#scoreline")).to_contain_text("Alex")
    no_english(screen, names)
    screen.act("Olivia", "cut", sends=False)
    no_english(screen, names)                                        # the open choice too
    entered_in_portuguese(screen, server, names, screen.pick("choice", "up"))
    entered_in_portuguese(screen, server, names, screen.act("Olivia", "abstain"))
    screen.act("Olivia", "call", sends=False)
    screen.pick("cards", "4 5 6", sends=False)
    got = entered_in_portuguese(screen, server, names, screen.pick("parity", "odd"))
    assert "ímpar" in got["text"]
    screen.act("Olivia", "roll", sends=False)
    got = entered_in_portuguese(screen, server, names, screen.pick("die", 3))
    assert got["kicker"] == "O dado mostra 3"
    for seat in ("Alex", "Olivia", "Alex", "Olivia", "Alex"):
        got = entered_in_portuguese(screen, server, names, screen.act(seat, "raise"))
        assert got["kicker"] == "Ofensiva!"
    why = pg.locator("#seat-rows [data-act='raise'][data-seat='Olivia']").get_attribute("data-why")
    assert why and "Ofensiva" in why and english_in(why) == [], why
    entered_in_portuguese(screen, server, names, screen.act("Olivia", "accept"))
    screen.shot("pt-guerra-ofensiva")
    for seat, card in (("Olivia", "3"), ("Alex", "10"), ("Alex", "BACK"), ("Olivia", "2"), ("Olivia", "4")):
        screen.key(card)
        entered_in_portuguese(screen, server, names, screen.act(seat, "flip"))
    screen.key("9")
    got = entered_in_portuguese(screen, server, names, screen.act("Alex", "flip"))
    assert got["kind"] == "game_over" and got["kicker"] == "★ Alex ganha o jogo! ★"
    assert pg.evaluate("window.__spokenLang") == "pt-PT"
    screen.shot("pt-guerra-over")
    pg.goto("/#proof")
    expect(pg.locator("#history li").first).to_be_visible()
    no_english(screen, names)


@ON_PHONE
def test_woolly_namikopy_and_casino_in_portuguese_by_taps(pt_screen, server):  # noqa: F811
    """The three games test_classic_war_... and test_guerra_... leave out, played by taps on a pt-PT screen:
    after each entry the banner and what is said are the rulings in Portuguese, no English word shown."""
    screen, pg, a, o = pt_screen, pt_screen.pg, "Alex", "Olivia"

    def entered(got, names):
        return entered_in_portuguese(screen, server, names, got)

    new_game(server, "woolly", [a, o], {"max_battles": 1})
    screen.open([a, o])
    screen.act(a, "steal", sends=False)
    entered(screen.pick("from", "hand"), [a, o])
    entered(screen.act(o, "reveal"), [a, o])
    screen.key("WAR")
    screen.act(a, "flip")
    screen.key("5", "G")
    got = entered(screen.act(o, "flip"), [a, o])
    assert got["text"] == "Alex jogou uma carta de Guerra: todos vão à guerra!"
    screen.act(a, "down")
    screen.act(o, "down")
    screen.key("12", "R")
    screen.act(a, "flip")
    screen.key("3")
    assert entered(screen.act(o, "flip"), [a, o])["kind"] == "game_over"

    players = [a, o, "Sam"]
    pg.reload()                                                  # a fresh page for the next game
    new_game(server, "namikopy", players, {"war_cards": "on", "max_battles": 1})
    screen.open(players)
    screen.key("MALLARD")
    screen.act(a, "flip")
    screen.key("5")
    screen.act(o, "flip")
    screen.key("7")
    entered(screen.act("Sam", "flip"), players)
    screen.act(a, "choose", sends=False)
    got = entered(screen.pick("opponent", "Sam"), players)
    assert got["text"].startswith("Alex escolhe Sam: guerra entre Alex e Sam!"), got
    screen.act(a, "down")
    screen.act("Sam", "down")
    screen.key("12")
    screen.act(a, "flip")
    screen.key("4")
    assert entered(screen.act("Sam", "flip"), players)["kind"] == "game_over"

    pg.reload()                                                  # a fresh page for the next game
    new_game(server, "casino", [a, o], {"max_battles": 1})
    screen.open([a, o])
    screen.act(a, "bet", sends=False)
    pg.click(".sheet [data-step='amount+10']")
    assert entered(screen.send("bet"), [a, o])["text"] == "Alex aposta 11 fichas."
    screen.act(o, "bet", sends=False)
    pg.click(".sheet [data-step='amount+5']")
    pg.click(".sheet [data-step='tie+1']")
    entered(screen.send("bet"), [a, o])
    screen.key("7")
    screen.act(a, "flip")
    screen.key("9")
    screen.act(o, "flip")
    screen.key("7")
    entered(screen.act("Dealer", "flip"), [a, o])
    assert entered(screen.act(a, "surrender"), [a, o])["kind"] == "game_over"
    screen.shot("pt-casino-over")


@pytest.mark.parametrize("game", list(GAME_PLAYERS))
def test_every_games_live_screen_in_portuguese(pt_screen, server, game):  # noqa: F811
    """Each game's live screen with the most players it takes and a running clock: Portuguese, whole."""
    players = GAME_PLAYERS[game]
    new_game(server, game, players, clock_minutes=10)
    pg = pt_screen.pg
    pg.goto("/#live")
    expect(pg.locator("#players .player")).to_have_count(len(players))
    first = {"guerra": "do primeiro confronto", "casino": "da primeira ronda"}.get(game, "da primeira batalha")
    expect(pg.locator("#banner-text")).to_have_text(f"À espera {first}…")
    no_english(pt_screen, players)
    pg.click("#start-btn")
    pg.click("#clock-start")
    expect(pg.locator("#clock-label")).to_have_text("restam")
    no_english(pt_screen, players)
    pt_screen.shot(f"pt-{game}-live")


def test_an_english_tablet_switched_to_portuguese_and_back(browser, server):  # noqa: F811
    ctx, screen, errors = open_screen(browser, server, "tablet")
    pg, names = screen.pg, ["Alex", "Olivia"]
    new_game(server, "guerra", names)
    screen.open(names)
    screen.act("Olivia", "cut", sends=False)
    english = screen.pick("choice", "up")["text"]
    assert english.startswith("Olivia cuts") and english in portuguese_rulings(server)[1]        # an English page
    expect(pg.locator(".tabs a[data-tab='live']")).to_have_text("Live")
    said_before = pg.evaluate("window.__spoken.length")
    pg.select_option("#lang", "pt")                                  # the page's switch: at once, no reload
    expect(pg.locator("#banner-text")).to_have_text(one_of(last_rulings(server)[0]))
    expect(pg.locator(".tabs a[data-tab='live']")).to_have_text("Ao vivo")
    no_english(screen, names, said_before)                           # said before the switch: English
    got = entered_in_portuguese(screen, server, names, screen.act("Olivia", "abstain"), said_before)
    assert pg.evaluate("window.__spokenLang") == "pt-PT"
    pg.reload()                                                      # remembered on this device
    expect(pg.locator("#lang")).to_have_value("pt")
    expect(pg.locator("#banner-text")).to_have_text(got["text"])
    assert pg.evaluate("localStorage.getItem('warref-lang')") == "pt"
    pg.select_option("#lang", "en")                                  # and back: the English, as it came
    expect(pg.locator("#banner-text")).to_have_text(one_of(last_rulings(server)[1]))
    expect(pg.locator(".tabs a[data-tab='live']")).to_have_text("Live")
    expect(pg.locator("#clock-label")).to_have_text("no clock")
    assert pg.evaluate("localStorage.getItem('warref-lang')") == "en"
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def test_the_new_game_screen_in_portuguese(pt_screen, server):  # noqa: F811
    """Every game offered on the set-up screen, its rule options and players, in Portuguese and whole."""
    pg = pt_screen.pg
    pg.goto("/#setup")
    expect(pg.locator("#game-choices button")).to_have_count(len(GAME_PLAYERS))
    for game in GAME_PLAYERS:
        pg.click(f"#game-choices button[data-game={game}]")
        expect(pg.locator(f"#game-choices button[data-game={game}]")).to_have_attribute("aria-checked", "true")
        no_english(pt_screen, [])
    expect(pg.locator("#player-range")).to_have_text("(2, 4 ou 6)")             # Guerra, chosen last
    pg.click("#add-player")                                                     # three players: not for Guerra
    expect(pg.locator("#player-hint")).to_have_text("Guerra joga-se com 2, 4 ou 6 jogadores: junta ou tira um jogador.")
    pt_screen.shot("pt-setup")


def test_every_screen_of_the_dashboard_in_portuguese(pt_screen, server):  # noqa: F811
    """Proof, past games, share, teaching a deck, the PIN's and the paired screens' dialogs: no English."""
    names = ["Alex", "Olivia"]
    new_game(server, "classic", names, {"max_battles": 1})
    api(server, "/api/events", {"type": "flips", "cards": {"Alex": "9S", "Olivia": "4H"}})
    pg = pt_screen.pg
    for tab, shown in (("proof", "#history li"), ("games", "#games-list li"), ("share", "#qr"), ("teach", "#teach-form")):
        pg.goto(f"/#{tab}")
        expect(pg.locator(shown).first).to_be_visible()
        no_english(pt_screen, names + ["test tablet"])
    pg.goto("/#games")
    pg.locator("#games-list button").first.click()
    expect(pg.locator("#past-game")).to_be_visible()
    no_english(pt_screen, names)
    pg.click("#badge-pin")                                         # this screen is paired: its devices
    expect(pg.locator("#devices-dialog")).to_be_visible()
    no_english(pt_screen, names + ["test tablet"])


@pytest.fixture(scope="module")
def teach_server(tmp_path_factory):
    """`warref serve` with a WARREF_HOME of its own (the decks being taught are files there)."""
    tmp = tmp_path_factory.mktemp("serve-teach")
    with running(["serve"], tmp, env={**os.environ, "WARREF_HOME": str(tmp / "home")}) as base:
        yield base


@pytest.mark.parametrize("size", list(SCREENS))
def test_teaching_a_deck_in_portuguese(browser, teach_server, size):  # noqa: F811
    """A pt-PT screen teaches a standard deck by photos (no camera): the cards' names and prompts, the
    server's refusals, the training's progress as pushed and what is said, in Portuguese and whole."""
    from web.teach import Job

    ctx, screen, errors = open_screen(browser, teach_server, size, locale="pt-PT")
    pg, name = screen.pg, f"avo-{size}"
    typed = [name, "JOKER", "BACK", "warref referee"]          # the deck's name, card codes and a command: as typed
    pg.goto("/#teach")
    pg.click("#start-btn")
    pg.fill("#teach-name", name)
    pg.check("input[name=teach-like][value=standard]")
    pg.click("#teach-begin")
    expect(pg.locator("#teach-title")).to_contain_text(f"A ensinar o baralho {name}")
    expect(pg.locator("#teach-prompt")).to_have_text("Enviar uma foto com o 2 de paus")
    expect(pg.locator("#teach-grid .tcard[data-code='QS'] .tname")).to_have_text("a dama de espadas")
    expect(pg.locator("#teach-grid .tcard[data-code='BACK'] .tname")).to_have_text("o verso")
    no_english(screen, typed, english=TEACH_ENGLISH)
    pg.click("#teach-grid .tcard[data-code='7H']")
    expect(pg.locator("#teach-prompt")).to_have_text("Enviar uma foto com o 7 de copas")
    # a photo that is no picture: the server's refusal, in Portuguese
    pg.set_input_files("#teach-file", files=[{"name": "foto.png", "mimeType": "image/png", "buffer": b"no picture"}])
    expect(pg.locator("#teach-error")).to_have_text(
        "Foto.png: não é uma imagem legível (ficheiro vazio, danificado ou que não é uma imagem).")
    no_english(screen, typed, english=TEACH_ENGLISH)
    # many photos at once, one not named by its card: refused, in Portuguese
    pg.set_input_files("#teach-files", files=[{"name": "Mesa.png", "mimeType": "image/png", "buffer": b"no picture"}])
    expect(pg.locator("#teach-upload-errors li")).to_have_text(
        "Mesa.png: o nome do ficheiro não começa pelo código de uma carta do baralho normal (como o `warref referee` "
        "os escreve: 2C, 2D, 2H, 2S, ...; BACK para o verso).")
    # the upload is over once it says so (it reads the deck again first, and shows it: a message
    # handled before that would be drawn over)
    expect(pg.locator("#toast")).to_contain_text("recusadas (vê porquê em baixo)")
    no_english(screen, typed, english=TEACH_ENGLISH)
    # training's progress as the server pushes it (web/teach.py's Job makes each message)
    job = Job(name, "standard", lambda p: None)
    job.progress("views", 3, 10)
    pg.evaluate("m => window.__warref.handle(m)", {"type": "teach", "teach": {
        "name": name, "state": "training", "message": job.message, "message_msg": job.json()["msg"],
        "progress": job.json()}})
    expect(pg.locator("#teach-status")).to_have_text("A fazer imagens de treino: 3 de 10")
    expect(pg.locator("#teach-train-btn")).to_have_text("A treinar...")
    no_english(screen, typed, english=TEACH_ENGLISH)
    screen.shot(f"pt-teach-{size}")
    ctx.close()
    # the browser logs the refusals' 400s itself; nothing else
    assert [e for e in errors if "status of 400" not in e] == [], errors


@pytest.mark.parametrize("size", list(SCREENS))
def test_the_camera_s_trouble_is_said_in_portuguese(browser, server, size):  # noqa: F811
    """The camera's status as web/live.py pushes it (vision/sources.py's sentence and its message; a wait
    with a decimal comma)."""
    from referee.say import Decimal, message, say

    ctx, pt_screen, errors = open_screen(browser, server, size, locale="pt-PT")
    pg = pt_screen.pg
    pg.goto("/#live")
    wait_js(pg, "window.__warref.CAM.info")                  # the page's own look at the camera first (none)
    why = say("{source} stopped sending pictures (unplugged?).", source=say("camera {spec}", spec="0"))
    text = say("{why} Reconnecting to {source} in {seconds} s...", why=why, source=say("camera {spec}", spec="0"),
               seconds=Decimal("0.5"))
    pg.evaluate("m => window.__warref.handle(m)", {"type": "camera", "camera": {
        "status": "lost", "source": "camera 0", "fps": 0.0, "frame": 12, "message": text, "message_msg": message(text)}})
    expect(pg.locator("#camera-status")).to_have_text("Câmara perdida - a voltar a ligar...")
    expect(pg.locator("#camera-message")).to_have_text(
        "Câmara 0 deixou de enviar imagens (o cabo saiu?). A voltar a ligar a câmara 0 daqui a 0,5 s...")
    no_english(pt_screen, [], english=TEACH_ENGLISH)
    pt_screen.shot(f"pt-camera-lost-{size}")
    ctx.close()
    # this server has no camera: the panel's picture is not found; nothing else
    assert [e for e in errors if "status of 404" not in e] == [], errors


def test_a_pin_asked_for_while_the_language_loads_is_asked_in_portuguese(browser, server):  # noqa: F811
    """A tap on the PIN badge before the page's Portuguese has arrived (a tablet on a slow network;
    a loaded machine made the next test see it in English): the dialog waits for the language and
    then asks in Portuguese, not in the English it had until then."""
    ctx = browser.new_context(base_url=server, locale="pt-PT", **SCREENS["phone"])     # not paired
    pg = ctx.new_page()
    pg.set_default_timeout(10_000)
    held = []
    pg.route("**/i18n/pt.json", lambda route: held.append(route))       # the catalog answered only when released
    pg.goto("/#live")
    expect(pg.locator("#badge-pin")).to_be_visible()
    for _ in range(200):                                                   # the page has asked for it (10 s)
        if held:
            break
        pg.wait_for_timeout(50)
    pg.click("#badge-pin")
    pg.wait_for_timeout(300)
    expect(pg.locator("#pin-dialog")).to_be_hidden()
    held[0].continue_()
    expect(pg.locator("#pin-dialog")).to_be_visible()
    expect(pg.locator("#pin-msg")).to_have_text("Só a mesa pode mudar o jogo. O PIN está no ecrã do servidor.")
    assert problems(pg) == [], problems(pg)
    ctx.close()


def test_a_wrong_pin_s_wait_is_said_in_portuguese(browser, server):  # noqa: F811
    """Past the free tries, the server's 401 says how long to wait (detail_msg): the PIN dialog says it too."""
    from referee.say import message, say
    from web.guard import wait_words
    from web.server import PIN_SENTENCE

    ctx = browser.new_context(base_url=server, locale="pt-PT", **SCREENS["phone"])     # not paired
    pg = ctx.new_page()
    pg.set_default_timeout(10_000)
    answers = [{"detail": PIN_SENTENCE, "detail_msg": message(PIN_SENTENCE)}]
    waited = say("This needs the table's PIN (shown on the server's console). Wait {wait} before trying again.",
                 wait=wait_words(60))
    answers.append({"detail": waited, "detail_msg": message(waited)})
    pg.route("**/api/pair", lambda route: route.fulfill(status=401, json=answers.pop(0)))  # the lockout is the server's
    pg.goto("/#live")
    pg.click("#badge-pin")
    for said in ("Esse PIN não serviu. Tenta outra vez (está no ecrã do servidor).",
                 "Esse PIN não serviu. Espera 60 segundos antes de tentar outra vez (está no ecrã do servidor)."):
        pg.fill("#pin-input", "0000")
        pg.click("#pin-ok")
        expect(pg.locator("#pin-msg")).to_have_text(said)
    assert problems(pg) == [], problems(pg)
    ctx.close()


# The widest common typeface: DejaVu Sans (what system-ui is on a Linux machine without another
# sans-serif; make system-deps installs it). The page's font list starts with system-ui, which is a
# narrower face on many machines, so the checks above alone can pass where a wide face breaks words.
WIDE = "* { font-family: 'DejaVu Sans' !important; }"


@pytest.mark.parametrize("locale", ["pt-PT", "en-GB"])
def test_the_phone_s_tabs_and_proof_keep_their_words_whole_in_a_wide_typeface(browser, server, locale):  # noqa: F811
    """On a phone in DejaVu Sans, every tab of the menu on the screen with its words whole ("Histórico"
    broke in a five-column grid, the sixth tab alone on a row), and a battle's text in the proof list
    with a 24-letter name whole (it broke beside the photo)."""
    new_game(server, "classic", [LONG, "Bo"])
    api(server, "/api/events", {"type": "flips", "cards": {LONG: "KH", "Bo": "2S"}})
    ctx, screen, errors = open_screen(browser, server, "phone", locale=locale,
                                         bypass_csp=True)          # so that the test may add its style
    pg = screen.pg
    for tab, shown in (("live", "#players .player"), ("proof", "#history li")):
        pg.goto(f"/#{tab}")
        pg.add_style_tag(content=WIDE)
        expect(pg.locator(shown).first).to_be_visible()
        expect(pg.locator(".tabs a[data-tab='live']")).to_have_text("Ao vivo" if locale == "pt-PT" else "Live")
        assert pg.evaluate("getComputedStyle(document.querySelector('.tabs a')).fontFamily") == '"DejaVu Sans"'
        tabs = pg.evaluate("[...document.querySelectorAll('.tabs a')].map(a => { const r = a.getBoundingClientRect(); "
                           "return r.left >= 0 && r.right <= innerWidth && r.width > 0; })")
        assert len(tabs) == 6 and all(tabs), tabs
        assert problems(pg) == [], problems(pg)
    ctx.close()
    assert not errors, errors


@pytest.mark.parametrize("width", [320, 360])
@pytest.mark.parametrize("locale", ["pt-PT", "en-GB"])
def test_small_phones_show_every_screen_whole_in_a_wide_typeface(browser, server, locale, width):  # noqa: F811
    """A 320 or 360 px wide phone (small Androids, the first iPhone SE) in DejaVu Sans, a 24-letter name
    in the game: every screen of the dashboard and the rooms page's form fit the screen, every word
    whole and every field showing its value. Before: the set-up's name field cut the name (360 px), the
    teaching form stuck out, the proof list was wider than the screen (320 px), and the rooms page
    broke "Opcional" and "Obrigatório" beside their explanations."""
    new_game(server, "classic", [LONG, "Olivia", "Bo"])
    api(server, "/api/events", {"type": "flips", "cards": {LONG: "KH", "Olivia": "2S", "Bo": "3C"}})
    size = {**SCREENS["phone"], "viewport": {"width": width, "height": 640}}
    ctx = browser.new_context(base_url=server, **size, locale=locale, bypass_csp=True)   # the test adds its style
    pair(ctx, server)
    pg = ctx.new_page()
    pg.set_default_timeout(10_000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    live = "Ao vivo" if locale == "pt-PT" else "Live"
    for tab, shown in (("live", "#players .player"), ("setup", "#setup-players input[type=text]"),
                       ("proof", "#history li"), ("games", "#games-list li"), ("share", "#qr"), ("teach", "#teach-form")):
        pg.goto(f"/#{tab}")
        pg.add_style_tag(content=WIDE)
        expect(pg.locator(shown).first).to_be_visible()
        expect(pg.locator(".tabs a[data-tab='live']")).to_have_text(live)
        assert problems(pg) == [], (tab, problems(pg))
    assert pg.locator("#setup-players input[type=text]").first.input_value() == LONG
    pg.goto("/room")
    pg.add_style_tag(content=WIDE)
    expect(pg.locator("#c-form")).to_be_visible()
    expect(pg.locator("fieldset.r-choice").last).to_contain_text("Opcional" if locale == "pt-PT" else "Optional")
    assert problems(pg) == [], ("room", problems(pg))
    ctx.close()
    assert not errors, errors
