"""warref in Portuguese (issue 64), the tablet dashboard's side: every word of web/static/index.html and
app.js has its Portuguese with the same placeholders (make locale extracts them), every text of the page
is marked, and the server's answers carry the message of every sentence it gives (rulings, the prompt,
the result, the history, a refusal, why an action can't be taken now) beside its English text, which
is unchanged. tests/web/test_browser_dashboard_pt.py plays the page in Portuguese."""
from __future__ import annotations

import html as markup
import re
from pathlib import Path

from test_i18n import all_translated, words_of
from test_server_api import EVENTS, H, client, clock, setup_game  # noqa: F401 (fixtures)
from web.i18n import catalog, message_in, page_words, template

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"
PAGE = [STATIC / "app.js", STATIC / "index.html"]


def test_every_word_of_the_dashboard_has_portuguese_with_the_same_placeholders():
    words = {msgid[0] if isinstance(msgid, tuple) else msgid: msgid for path in PAGE for _, msgid in page_words(path)}
    assert len(words) > 300
    in_template = {m.id[0] if isinstance(m.id, tuple) else m.id for m in template() if m.id}
    assert set(words) <= in_template, "make locale does not read the dashboard"
    all_translated(words, catalog("pt"))
    # a t() inside another t()'s arguments is not extracted: every one the script names is
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    named = set(re.findall(r'\btn?\(\s*"((?:[^"\\]|\\.)*)"', script))
    assert named - set(words) == set(), "t() inside another t(): give it a variable of its own"


def test_every_text_of_the_dashboard_page_is_marked():
    words = {msgid for _, msgid in page_words(STATIC / "index.html")}
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    body = re.sub(r"<(script|svg|code)\b.*?</\1>", "", html.split("<body", 1)[1], flags=re.S)
    # what app.js writes over (the badge's state, the banner, the PIN's sentence...) and names, not words
    written = {"Watching (PIN?)", "Waiting for the first battle…", "Only the table can change the game. The PIN is on the "
               "server's screen.", "More…", "Hide picture", "Teaching", "Upload a photo of this card", "Taken",
               "Train", "The screen stays on while the game runs when the page is opened over HTTPS.", "Battle",
               "Woolly Warfare", "Namikopy", "warref", "cards", "no photo"}
    for text in re.findall(r">([^<>]*[A-Za-z]{2,}[^<>]*)<", body):
        assert words_of(markup.unescape(text)) <= words | written, f"{text.strip()!r} is not marked data-i18n"


def said_alike(ruling: dict) -> None:
    """A ruling carries its message, whole (every {name} given) and translated: a Portuguese page says it."""
    assert "msg" in ruling, ruling
    pt = message_in(ruling["msg"], "pt")
    assert "{" not in pt and pt != ruling["text"], (pt, ruling)
    assert ruling["msg"]["id"] in catalog("pt"), ruling["msg"]["id"]


def test_the_dashboard_gets_every_sentence_with_its_message(client):  # noqa: F811
    view = setup_game(client, options={"max_battles": 2})          # over after the two battles of EVENTS
    said_alike(view["view"]["prompt"] if "view" in view else view["prompt"])
    answers = [client.post("/api/events", json=e, headers=H).json() for e in EVENTS]
    for answer in answers:
        for ruling in answer["rulings"]:
            said_alike(ruling)
    state = client.get("/api/state").json()
    assert state["over"] and state["result"]["text"]
    said_alike(state["result"])
    for battle in state["history"]:
        said_alike(battle)
        for ruling in battle["rulings"]:
            said_alike(ruling)
    # the past games list says the result in the page's language too
    listed = client.get("/api/games").json()
    said_alike(listed[0]["result"])
    # the English is what it always was: the messages are beside it
    assert answers[0]["rulings"][0]["text"] == "Alex turns up an 8; waiting for Olivia."
    assert message_in(answers[0]["rulings"][0]["msg"], "pt") == "Alex vira o 8 de espadas; à espera de Olivia."


def test_a_refusal_and_why_an_action_waits_carry_their_messages(client):  # noqa: F811
    setup_game(client)
    r = client.post("/api/events", json={"type": "flip", "seat": "Bob", "card": "7S"}, headers=H)
    assert r.status_code == 422
    body = r.json()
    assert message_in(body["detail_msg"], "pt") == \
        "Não há nenhum jogador chamado 'Bob' nesta mesa (jogadores: Alex e Olivia)."
    now = client.get("/api/state").json()["entry_now"]
    why = now["can"]["Alex"]["down"]
    assert why == "No war is waiting for face-down cards right now."
    assert message_in(now["msgs"][why], "pt") != why
    # the server's own refusal of a body that is no event carries its message too (issue 64), its English as it was
    r = client.post("/api/events", json=["not", "an", "object"], headers=H)
    assert r.status_code == 400
    assert r.json()["detail"] == 'An event must be a JSON object such as {"type": "flip", "seat": "Alex", "card": "8S"}.'
    assert message_in(r.json()["detail_msg"], "pt") == \
        'Um evento tem de ser um objeto JSON como {"type": "flip", "seat": "Alex", "card": "8S"}.'


def test_the_rule_sheet_s_parts_say_its_lines_and_are_translated():
    """The page puts each rule sheet line together from its parts in its language (app.js's ruleLines):
    in English they make the line the server writes, and every part has its Portuguese."""
    from referee import GAMES
    from web.i18n import text_in
    from web.session import rule_sheet_parts

    for game in (GAMES.values() if isinstance(GAMES, dict) else GAMES):
        options = game.resolve_options({})
        parts = rule_sheet_parts(game, options)
        lines = [f"{p['label']}: {p['value']}{' (' + p['choice'] + ')' if p['choice'] else ''}. {p['help']}" for p in parts]
        assert lines == game.rule_sheet(options), game.id
        for p in parts:
            for text in (p["label"], p["choice"], p["help"]):
                if text:
                    assert text_in(text, "pt") != text, (game.id, text)


def test_the_camera_asks_again_in_the_page_s_language(tmp_path):
    """A card the camera reads but the referee refuses, or reads unsure, is asked for again: the push
    carries the sentence's message, and the page says it in Portuguese (the reason too)."""
    import time

    from vision.tracker import Observation
    from web.keeper import GameKeeper
    from web.live import Glue
    from web.store import Store

    keeper = GameKeeper(Store(tmp_path / "glue.db"), time.time)
    pushed: list[dict] = []
    keeper.hub.broadcast = pushed.append
    keeper.new_game({"game": "classic", "players": [{"name": "Alex"}, {"name": "Olivia"}]})
    glue = Glue(keeper, threshold=0.8)

    def flip(seat, card, conf=0.95, box=(0, 0, 10, 10)):
        return Observation("flip", seat, card, confidence=conf, frame=1, box=list(box), reads=[])

    glue.handle([flip("Alex", "AS", box=(100, 400, 220, 570))])
    glue.handle([flip("Olivia", "AS", box=(100, 100, 220, 270))])          # a second ace of spades
    glue.handle([flip("Alex", "7H", conf=0.3)])                            # read unsure
    asked = [m for m in pushed if m.get("type") == "reask"]
    assert [m["text"].split(":")[0] for m in asked] == ["Olivia, please show your card again",
                                                         "Alex, please show your card again"]
    for m in asked:
        pt = message_in(m["msg"], "pt")
        assert "{" not in pt and pt != m["text"], pt
    assert message_in(asked[0]["msg"], "pt").startswith("Olivia, mostra outra vez a tua carta: ")
    assert message_in(asked[1]["msg"], "pt") == \
        "Alex, mostra outra vez a tua carta: não foi possível lê-la com certeza."


def test_the_game_s_own_refusals_carry_their_messages(client):  # noqa: F811
    """What a tap on the dashboard may be refused with: nothing to undo, a clock that cannot run, a
    game that cannot be set up (its sentence as the referee says it, not just its English)."""
    r = client.post("/api/undo", json={}, headers=H)
    assert r.status_code == 409 and r.json()["detail"] == "There is no game yet; set one up first."
    assert message_in(r.json()["detail_msg"], "pt") == "Ainda não há jogo; prepara um primeiro."
    r = client.post("/api/games", json={"game": "guerra", "players": [{"name": n} for n in ("Ana", "Rui", "Eva")]},
                    headers=H)
    assert r.status_code == 422
    pt = message_in(r.json()["detail_msg"], "pt")
    assert "{" not in pt and pt != r.json()["detail"], pt
    setup_game(client)
    r = client.post("/api/undo", json={}, headers=H)
    assert r.status_code == 409 and message_in(r.json()["detail_msg"], "pt") == "Não há nada para anular."
    r = client.post("/api/clock", json={"action": "start"}, headers=H)
    assert r.status_code == 409 and r.json()["detail"] == 'The clock has no length; set it first ("minutes": 10).'
    assert message_in(r.json()["detail_msg"], "pt") == 'O relógio não tem duração; acerta-o primeiro ("minutes": 10).'


def test_the_api_s_own_refusals_are_said_in_the_page_s_language(client, tmp_path, monkeypatch):  # noqa: F811
    """The server's refusals of a request (issue 64: web/keeper.py, server.py, teach.py, bodies.py) carry their
    messages: the English exactly as it was, and the Portuguese word for word; what is code or JSON in the
    sentence (a field's name, an example, a value given) stays as written; the JSON parser's own words are said in
    Portuguese where warref knows them (web/system_words.py), in English exactly as the parser says them."""
    monkeypatch.setenv("WARREF_HOME", str(tmp_path / "home"))

    def refused(method, path, status, english, portuguese, **kw):
        r = client.request(method, path, headers={**H, **kw.pop("headers", {})}, **kw)
        assert r.status_code == status, r.text
        assert r.json()["detail"] == english
        assert message_in(r.json()["detail_msg"], "pt") == portuguese

    refused("PUT", "/api/zones", 409, "There is no game yet; set one up first.", "Ainda não há jogo; prepara um primeiro.",
            json={"seats": {}})
    refused("POST", "/api/pair", 422, "A device's name is up to 40 printable characters.",
            "O nome de um aparelho tem até 40 caracteres imprimíveis.", json={"name": "x" * 41})
    refused("POST", "/api/games", 400, "The request body is not JSON (Expecting value at line 1, column 1).",
            "O corpo do pedido não é JSON (era esperado um valor na linha 1, coluna 1).", content=b"players")
    refused("POST", "/api/games", 400, "The request body is not JSON (Expecting ',' delimiter at line 2, column 1).",
            "O corpo do pedido não é JSON (era esperado o separador ',' na linha 2, coluna 1).",
            content=b'{"game": "classic"\n"players": []}')
    refused("POST", "/api/games", 400, "The request body is not JSON (Unterminated string starting at at line 1, "
            "column 10).", "O corpo do pedido não é JSON (aspas por fechar na linha 1, coluna 10).",
            content=b'{"game": "classic')
    refused("POST", "/api/games", 400, "The request body is not JSON (Extra data at line 1, column 4).",
            "O corpo do pedido não é JSON (dados a mais na linha 1, coluna 4).", content=b"{} {}")
    refused("POST", "/api/games", 422, 'List the players in seat order ("players": [{"name": "Alex"}, ...]).',
            'Indica os jogadores pela ordem dos lugares ("players": [{"name": "Alex"}, ...]).', json={"game": "classic"})
    refused("POST", "/api/games", 422, "Classic War is played with the standard deck, not the woolly deck.",
            "Guerra clássica joga-se com o baralho normal, não com o baralho woolly.",
            json={"game": "classic", "players": ["Ana", "Rui"], "deck": "woolly"})
    refused("POST", "/api/games", 422, "The clock runs from 1 second to 24 hours: a number of minutes from 1/60 to 1440 "
            "(got 1441).", "O relógio vai de 1 segundo a 24 horas: um número de minutos de 1/60 a 1440 (foi dado 1441).",
            json={"game": "classic", "players": ["Ana", "Rui"], "clock_minutes": 1441})
    setup_game(client)
    refused("PUT", "/api/zones", 422, "Bob is not playing; the seats are Alex, Olivia.",
            "Bob não está a jogar; os lugares são Alex, Olivia.", json={"seats": {"Bob": [[0, 0], [1, 0], [1, 1]]}})
    refused("PUT", "/api/zones", 400, 'Send the zones as {"seats": {"Alex": [[x, y], ...], ...}} (fractions 0..1).',
            'Envia as zonas assim: {"seats": {"Alex": [[x, y], ...], ...}} (frações de 0 a 1).', json={"seats": []})
    refused("PUT", "/api/zones", 422, "Olivia's zone must be 3 to 64 points [x, y], each a fraction of the frame between "
            "0 and 1.", "A zona de Olivia tem de ter de 3 a 64 pontos [x, y], cada um uma fração da imagem entre 0 e 1.",
            json={"seats": {"Alex": [[0, 0], [1, 0], [1, 1]], "Olivia": [[0, 0], [2, 0], [1, 1]]}})
    refused("POST", "/api/clock", 422, "The clock runs from 1 second to 24 hours: a number of minutes from 1/60 to 1440 "
            "(got 0).", "O relógio vai de 1 segundo a 24 horas: um número de minutos de 1/60 a 1440 (foi dado 0).",
            json={"action": "set", "minutes": 0})
    refused("POST", "/api/clock", 422, "Unknown clock action 'stop'; the actions are start, pause, resume, add_minute "
            "and set.", "Ação do relógio desconhecida: 'stop'; as ações são start, pause, resume, add_minute e set.",
            json={"action": "stop"})
    refused("GET", "/api/games/1/history?limit=0", 422, "limit is how many battles to send, 1 to 200 (got 0).",
            "O limit diz quantas batalhas enviar, de 1 a 200 (foi dado 0).")
    refused("POST", "/api/undo", 422, 'An id is 1 to 64 letters, digits, ".", "_", ":" or "-" (a UUID will do), sent as '
            "\"id\" in the body or in the Idempotency-Key header (got 'no spaces').",
            'Um id tem de 1 a 64 letras, algarismos, ".", "_", ":" ou "-" (serve um UUID), enviado como "id" no corpo ou '
            "no cabeçalho Idempotency-Key (foi dado 'no spaces').", json={"id": "no spaces"})
    assert client.post("/api/teach", json={"name": "gran", "like": "standard"}, headers=H).status_code == 200
    refused("POST", "/api/teach/gran/train", 422, "minutes: the most time training may take, above 0 and at most 60 "
            "(got 61).", "O minutes é o tempo máximo que o treino pode levar, acima de 0 e no máximo 60 (foi dado 61).",
            json={"minutes": 61})
    refused("GET", "/api/teach/gran/cards/7H.png", 404, "No picture of the 7 of hearts yet.",
            "Ainda não há nenhuma imagem com o 7 de copas.")
    r = client.post("/api/events", json={"type": "flip", "seat": "Alex", "card": "8S"}, headers=H)
    assert r.status_code == 200, r.text
    refused("POST", "/api/corrections", 422, "seq must be the index of an entry in the log, 0 to 0 (got 3).",
            "O seq tem de ser o índice de uma entrada do registo, de 0 a 0 (foi dado 3).", json={"seq": 3, "event": None})


def test_fastapi_s_own_refusals_are_said_in_the_page_s_language(client, tmp_path):  # noqa: F811
    """FastAPI's validation of a path or query parameter (issue 64's long tail): one plain sentence from the
    error's type and place, the parameter named as written, with its message; and its 404 and 405."""
    for path, english, portuguese in (
            ("/api/games/abc", "The value of game_id must be a whole number.",
             "O valor de game_id tem de ser um número inteiro."),
            ("/api/games/1/history?limit=ten", "The value of limit must be a whole number.",
             "O valor de limit tem de ser um número inteiro."),
            ("/api/games/1/history?before=2.5", "The value of before must be a whole number.",
             "O valor de before tem de ser um número inteiro.")):
        r = client.get(path, headers=H)
        assert r.status_code == 422, r.text
        assert r.json()["detail"] == english
        assert message_in(r.json()["detail_msg"], "en") == english
        assert message_in(r.json()["detail_msg"], "pt") == portuguese
    r = client.get("/index.html", headers=H)                    # the fixture's pages folder is not there yet
    assert r.status_code == 404 and r.json()["detail"] == "The dashboard's pages (web/static/) are not installed."
    assert message_in(r.json()["detail_msg"], "pt") == "As páginas do painel (web/static/) não estão instaladas."
    (tmp_path / "static").mkdir()                               # the server looks for it at each request
    r = client.get("/api/nowhere", headers=H)
    assert r.status_code == 404 and r.json()["detail"] == "There is nothing at /api/nowhere."
    assert message_in(r.json()["detail_msg"], "pt") == "Não há nada em /api/nowhere."
    r = client.delete("/api/state", headers=H)
    assert r.status_code == 405 and r.json()["detail"] == "DELETE is not allowed on /api/state."
    assert message_in(r.json()["detail_msg"], "pt") == "DELETE não é permitido em /api/state."


def test_a_device_locked_out_for_wrong_pins_is_told_why_in_its_language(client):  # noqa: F811
    from web import guard

    for k in range(guard.FREE + 1):
        assert client.post("/api/pair", json={"name": "x"}, headers={"X-Warref-Pin": f"{k:04d}"}).status_code == 401
    locked = client.post("/api/pair", json={"name": "x"}, headers=H)
    assert locked.status_code == 429
    body = locked.json()
    assert body["detail"].startswith("Too many wrong PINs from this device: try again in ")       # as it was
    assert message_in(body["detail_msg"], "pt") == \
        "Demasiados PINs errados deste aparelho: tenta outra vez daqui a 60 segundos. Um aparelho já emparelhado " \
        "continua a funcionar."


def test_a_wrong_pin_s_wait_is_said_in_the_page_s_language(client):  # noqa: F811
    """The 401 for a wrong PIN carries its message: past the free tries, with the wait (English as it was)."""
    from web import guard
    from web.server import PIN_SENTENCE

    first = client.post("/api/undo", json={}, headers={"X-Warref-Pin": "0000"})
    assert first.status_code == 401 and first.json()["detail"] == PIN_SENTENCE
    assert message_in(first.json()["detail_msg"], "pt") == "Isto precisa do PIN da mesa (mostrado na consola do servidor)."
    for k in range(1, guard.FREE + 1):
        r = client.post("/api/undo", json={}, headers={"X-Warref-Pin": f"{k:04d}"})
    assert r.status_code == 401
    assert r.json()["detail"] == f"{PIN_SENTENCE} Wait 60 seconds before trying again."
    assert message_in(r.json()["detail_msg"], "pt") == \
        "Isto precisa do PIN da mesa (mostrado na consola do servidor). Espera 60 segundos antes de tentar outra vez."


def test_a_refusal_answered_again_for_its_id_keeps_its_message(client):  # noqa: F811
    """A change sent again with the same id is refused again with the first refusal's message (stored with it)."""
    first = client.post("/api/undo", json={"id": "undo-1"}, headers=H)          # no game yet
    setup_game(client)
    assert client.post("/api/events", json=EVENTS[0], headers=H).status_code == 200   # something to undo now
    again = client.post("/api/undo", json={"id": "undo-1"}, headers=H)           # the same request: its first answer
    assert (first.status_code, again.status_code) == (409, 409) and again.json() == first.json()
    assert message_in(again.json()["detail_msg"], "pt") == "Ainda não há jogo; prepara um primeiro."


def test_teaching_a_deck_names_its_cards_in_the_page_s_language(client, tmp_path, monkeypatch):  # noqa: F811
    """Each card of a deck being taught comes with its name's and its prompt's messages: a Portuguese page
    names it as warref names cards ("o 7 de copas"); the English is the deck file's, as it was."""
    monkeypatch.setenv("WARREF_HOME", str(tmp_path / "home"))

    def cards(like):
        r = client.post("/api/teach", json={"name": f"my-{like}", "like": like}, headers=H)
        assert r.status_code == 200, r.text
        return {c["code"]: c for c in r.json()["cards"]}

    def pt(card):
        return message_in(card["name_msg"], "pt", top=False), message_in(card["prompt_msg"], "pt")

    std = cards("standard")
    assert (std["7H"]["name"], std["7H"]["prompt"]) == ("7 of hearts", "Show the 7 of hearts")
    assert pt(std["7H"]) == ("o 7 de copas", "Mostra o 7 de copas")
    assert pt(std["QS"]) == ("a dama de espadas", "Mostra a dama de espadas")
    assert pt(std["JOKER"]) == ("o jóquer", "Mostra o jóquer")
    assert (std["BACK"]["prompt"], pt(std["BACK"])) == ("Show the back", ("o verso", "Mostra o verso"))
    wool = cards("woolly")
    assert (wool["7R"]["name"], pt(wool["7R"])) == ("red 7", ("o 7 vermelho", "Mostra o 7 vermelho"))
    assert (wool["STEAL"]["prompt"], pt(wool["STEAL"])) == ("Show the Steal card", ("a carta Steal", "Mostra a carta Steal"))
    assert (wool["WAR"]["name"], pt(wool["WAR"])) == ("War card", ("a carta de Guerra", "Mostra a carta de Guerra"))
    nami = cards("namikopy")
    assert (nami["FLAMINGO"]["name"], pt(nami["FLAMINGO"])) == ("WAR Flamingo", ("a WAR Flamingo", "Mostra a WAR Flamingo"))
    assert pt(nami["11"]) == ("o 11", "Mostra o 11")
    for deck in (std, wool, nami):                      # every card of every deck: whole, and not its English
        for card in deck.values():
            name, prompt = pt(card)
            assert "{" not in name + prompt and prompt != card["prompt"], card


def test_teaching_a_deck_s_refusals_carry_their_messages(client, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("WARREF_HOME", str(tmp_path / "home"))

    def refused(method, path, status, english, portuguese, **kw):
        r = client.request(method, path, headers=H, **kw)
        assert r.status_code == status, r.text
        assert r.json()["detail"] == english
        assert message_in(r.json()["detail_msg"], "pt") == portuguese

    refused("POST", "/api/teach", 422, "'standard' is a built-in deck; give the deck you teach another name.",
            "'standard' é um baralho do warref; dá outro nome ao baralho que ensinas.",
            json={"name": "standard", "like": "standard"})
    assert client.post("/api/teach", json={"name": "gran", "like": "standard"}, headers=H).status_code == 200
    refused("POST", "/api/teach/gran/train", 400,
            "No card taken yet: show the cards to the camera or upload their photos first.",
            "Ainda não há nenhuma carta tirada: mostra primeiro as cartas à câmara ou envia as suas fotos.", json={})
    refused("POST", "/api/teach/gran/cards/7H/take", 404,
            "No camera is attached (start warref run); upload a photo of the card instead.",
            "Não há câmara ligada (inicia o warref run); em vez disso, envia uma foto da carta.")
    refused("PUT", "/api/teach/gran/cards/ZZ", 400,
            "'ZZ' is not a card of the standard deck (its cards: 2C, 2D, 2H, 2S, 3C, 3D, ...; BACK for the back).",
            "'ZZ' não é uma carta do baralho normal (as suas cartas: 2C, 2D, 2H, 2S, 3C, 3D, ...; BACK para o verso).",
            content=b"not a picture")
    refused("PUT", "/api/teach/gran/cards/7H", 400,
            "the photo of the 7 of hearts: not a readable image (empty, corrupt or not a picture).",
            "A foto com o 7 de copas: não é uma imagem legível (ficheiro vazio, danificado ou que não é uma imagem).",
            content=b"not a picture")
    import cv2
    from cardpics import namikopy_pictures, on_table

    shaped = (" (a picture shaped 4:3 is taken for a camera's photo of a table; a card cut out of a photo should be cut "
              "at the card's edge)", " (uma imagem com a forma 4:3 é tomada pela foto de uma mesa tirada por uma câmara; "
              "uma carta recortada de uma foto deve ser cortada pela borda da carta)")
    for cards, english, portuguese in (             # a photo of a table (4:3): no card on it, two cards on it
            ([], "the photo of the 7 of hearts: no card found (photograph one card on a plain table, or crop the "
                 "photo to the card)",
             "A foto com o 7 de copas: não se encontrou nenhuma carta (fotografa uma só carta numa mesa lisa, ou "
             "corta a foto pela carta)"),
            ([namikopy_pictures()["5"], namikopy_pictures()["6"]],
             "the photo of the 7 of hearts: 2 cards found; photograph one card at a time",
             "A foto com o 7 de copas: encontraram-se 2 cartas; fotografa uma carta de cada vez")):
        refused("PUT", "/api/teach/gran/cards/7H", 400, english + shaped[0], portuguese + shaped[1],
                content=cv2.imencode(".png", on_table(cards))[1].tobytes())
    two = on_table([namikopy_pictures()["5"], namikopy_pictures()["6"]], size=(600, 1200))     # 2:1, no camera's
    refused("PUT", "/api/teach/gran/cards/7H", 400,
            "the photo of the 7 of hearts: 2 cards found; photograph one card at a time.",          # its full stop too
            "A foto com o 7 de copas: encontraram-se 2 cartas; fotografa uma carta de cada vez.",
            content=cv2.imencode(".png", two)[1].tobytes())
    refused("PUT", "/api/teach/gran/photos/zz.png", 400,
            "zz.png: the file name does not start with a card code of the standard deck (as `warref referee` spells "
            "them: 2C, 2D, 2H, 2S, ...; BACK for the back).",
            "Zz.png: o nome do ficheiro não começa pelo código de uma carta do baralho normal (como o `warref referee` "
            "os escreve: 2C, 2D, 2H, 2S, ...; BACK para o verso).", content=b"not a picture")


def test_a_deck_that_cannot_be_removed_is_said_with_the_system_s_words_in_the_page_s_language(client, tmp_path,  # noqa: F811
                                                                                             monkeypatch):
    """`DELETE /api/decks/NAME` when the system refuses to remove the folder: the system's words in Portuguese where
    warref knows them (web/system_words.py), in English exactly as the error says them."""
    import web.teach  # the module whose decks.forget is made to fail (web.server imports it)

    monkeypatch.setenv("WARREF_HOME", str(tmp_path / "home"))
    folder = tmp_path / "home" / "decks" / "fam"
    (folder / "cards").mkdir(parents=True)
    (folder / "deck.json").write_text('{"name": "fam", "like": "namikopy", "codes": ["1", "2"]}')
    gone = folder.with_name(".fam.gone-1")
    for err, english, portuguese in (
            (PermissionError(13, "Permission denied", str(folder), None, str(gone)),
             f"[Errno 13] Permission denied: '{folder}' -> '{gone}'", f"[erro 13] sem permissão: '{folder}' -> '{gone}'"),
            (OSError(5, "Input/output error", str(folder)), f"[Errno 5] Input/output error: '{folder}'",
             f"[erro 5] Input/output error: '{folder}'")):
        def refuse(name, err=err):
            raise err
        monkeypatch.setattr(web.teach.decks, "forget", refuse)
        r = client.delete("/api/decks/fam", headers=H)
        assert r.status_code == 500 and r.json()["detail"] == f"The fam deck could not be removed: {english}", r.text
        assert message_in(r.json()["detail_msg"], "pt") == f"Não foi possível remover o baralho fam: {portuguese}"


def test_training_s_progress_is_said_in_the_page_s_language():
    """What the bar says while a deck trains (web/teach.py's Job), pushed and read with its message."""
    from web.teach import Job

    pushed: list[dict] = []
    job = Job("fam", "standard", pushed.append)
    assert message_in(job.json()["msg"], "pt") == "A ler as fotos..."
    job.progress("views", 3, 10)
    assert (job.message, message_in(job.json()["msg"], "pt")) == \
        ("Making practice pictures: 3 of 10", "A fazer imagens de treino: 3 de 10")
    job.progress("views", 10, 10)                       # a stage done: the next one's name
    assert (job.message, message_in(pushed[-1]["msg"], "pt")) == \
        ("Teaching the readers...", "A ensinar os leitores...")
    job.progress("check", 1, 1)
    assert message_in(job.json()["msg"], "pt") == "A verificar os leitores novos em imagens guardadas à parte..."


def test_the_camera_s_status_is_said_in_the_page_s_language():
    """The camera's status (vision/sources.py's WatchedSource, through web/live.py) carries its sentence's
    message: unplugged, reconnecting, back, frozen."""
    import numpy as np

    from referee.say import say
    from vision.sources import ListSource, WatchedSource
    from web.live import Live

    now = [0.0]

    def seconds():                     # the camera's clock, moved on by hand
        return now[0]

    src = ListSource(lambda i: np.full((24, 32, 3), i % 200, np.uint8), clock=seconds)
    live = Live(WatchedSource(src.reopen, source=say("demo table"), clock=seconds), None, threaded=False)

    def status_after(seconds):
        end = now[0] + seconds
        while now[0] < end:
            live.camera.poll()
            now[0] += 0.05
        status = live.camera_json()
        return status["status"], status["message"], message_in(status["message_msg"], "pt")

    assert status_after(0.2) == ("ok", "demo table: pictures arriving.",
                                 "Mesa de demonstração: as imagens estão a chegar.")
    src.fail(0.9)
    assert status_after(0.6) == (
        "lost", "demo table stopped sending pictures (unplugged?). Reconnecting to demo table in 0.5 s...",
        "Mesa de demonstração deixou de enviar imagens (o cabo saiu?). A voltar a ligar a mesa de demonstração "
        "daqui a 0,5 s...")
    assert status_after(2.0)[0] == "ok"                 # opened again once it works
    src.freeze()
    assert status_after(1.2) == (
        "frozen", "The picture from demo table has not changed for 1 s: is the camera frozen?",
        "A imagem (mesa de demonstração) não muda há 1 s: a câmara parou?")


def test_a_taught_deck_s_warning_is_said_in_the_page_s_language(tmp_path):
    """What "Deck … ready" adds when a deck read few held-back views or its cards are seldom found
    (vision/decks.py's Taught.warning, said with say()): English as it was, Portuguese whole."""
    from vision.decks import Taught
    from web.teach import ready_sentence

    (tmp_path / "cards.png").write_bytes(b"")
    poor = {"held_back": {"views": 40, "right": 12}, "codes": ["7H"]}
    unseen = {"negative": False, "plain": {"cards": 10, "found": 5}}
    for meta, english, portuguese in (
            (poor, f"Deck fam ready: read 12 of 40 held-back views right. But it read only 12 of 40 held-back views "
                   f"right: look at the card pictures it learnt from ({tmp_path / 'cards.png'}); a corner or a stripe "
                   f"cut out instead of the whole card, or a blurred one, teaches little. Better photos, one card "
                   f"each, help.",
             f"Baralho fam pronto: leu bem 12 de 40 vistas guardadas à parte. Mas só leu bem 12 de 40 vistas "
             f"guardadas à parte: vê as imagens das cartas com que aprendeu ({tmp_path / 'cards.png'}); um canto ou "
             f"uma tira recortados em vez da carta inteira, ou uma carta desfocada, ensinam pouco. Fotos melhores, "
             f"uma carta em cada, ajudam."),
            ({**poor, "held_back": {"views": 40, "right": 39}, "detector": unseen},
             "Deck fam ready: read 39 of 40 held-back views right. But warref's card finder found only 5 of 10 of "
             "these cards on made-up tables, and a card it does not find is not read: expect it to miss cards on your "
             "table too (a table unlike the cards, and good light, help it).",
             "Baralho fam pronto: leu bem 39 de 40 vistas guardadas à parte. Mas o localizador de cartas do warref só "
             "encontrou 5 de 10 destas cartas em mesas inventadas, e uma carta que ele não encontra não é lida: conta "
             "que também lhe escapem cartas na tua mesa (uma mesa diferente das cartas e boa luz ajudam-no).")):
        said = ready_sentence(Taught("fam", "standard", tmp_path, meta))
        assert (said, message_in(said.message(), "pt")) == (english, portuguese)
    both = ready_sentence(Taught("fam", "standard", tmp_path, {**poor, "detector": unseen}))
    assert both.endswith("one card each, help. warref's card finder found only 5 of 10 of these cards on made-up "
                         "tables, and a card it does not find is not read: expect it to miss cards on your table too "
                         "(a table unlike the cards, and good light, help it).")
    pt = message_in(both.message(), "pt")
    assert "Fotos melhores, uma carta em cada, ajudam. o localizador de cartas do warref" in pt and "{" not in pt


def test_why_a_training_failed_is_said_in_the_page_s_language(tmp_path, monkeypatch):
    """vision.teach's reasons a training stops, as web/teach.py's sentence() hands them to the page: a photo
    with no card on it (one, or several at once), a deck of that name made meanwhile."""
    import cv2
    import pytest
    from cardpics import on_table

    from vision.teach import TeachError, collect, teach
    from web.teach import sentence

    def failed(run) -> tuple[str, str]:
        with pytest.raises(TeachError) as caught:
            run()
        said = sentence(caught.value)
        return said, message_in(said.message(), "pt")

    folder = tmp_path / "cards"
    folder.mkdir()
    cv2.imwrite(str(folder / "7H.png"), on_table([], size=(600, 1200)))      # a bare table, not a camera's shape
    english, portuguese = failed(lambda: collect("standard", cards=folder))
    assert english == (f"{folder / '7H.png'}: no card found (photograph one card on a plain table, or crop the photo "
                       f"to the card)")           # ends on its bracket: no full stop added
    assert portuguese == (f"{folder / '7H.png'}: não se encontrou nenhuma carta (fotografa uma só carta numa mesa lisa, "
                          f"ou corta a foto pela carta)")
    cv2.imwrite(str(folder / "8H.png"), on_table([], size=(600, 1200)))
    english, portuguese = failed(lambda: collect("standard", cards=folder))
    assert english == (f"2 photos cannot be used; fix or remove them and teach the deck again:\n  {folder / '7H.png'}: "
                       f"no card found (photograph one card on a plain table, or crop the photo to the card)\n  "
                       f"{folder / '8H.png'}: no card found (photograph one card on a plain table, or crop the photo "
                       f"to the card)")
    assert portuguese == (f"2 fotos não podem ser usadas; corrige-as ou retira-as e volta a ensinar o baralho:\n  "
                          f"{folder / '7H.png'}: não se encontrou nenhuma carta (fotografa uma só carta numa mesa lisa, "
                          f"ou corta a foto pela carta)\n  {folder / '8H.png'}: não se encontrou nenhuma carta "
                          f"(fotografa uma só carta numa mesa lisa, ou corta a foto pela carta)")
    monkeypatch.setenv("WARREF_HOME", str(tmp_path / "home"))
    from vision import decks
    (decks.folder() / "fam").mkdir(parents=True)
    english, portuguese = failed(lambda: teach("fam", "standard", cards=folder))
    assert english == f"a deck named 'fam' exists ({decks.folder() / 'fam'}); choose another name or --replace."
    assert portuguese == f"Já existe um baralho chamado 'fam' ({decks.folder() / 'fam'}); escolhe outro nome ou --replace."
