"""warref's command line in Portuguese (issue 64): `warref rules --lang pt` for every game, under every
value of every rule option, has no English word left (the printed names of the cards and games aside);
the set-up errors and the own sentences of `warref referee`, `simulate`, `serve`, `demo` and `run`
speak Portuguese under --lang pt, word for word where checked; so do the help (its placeholders too), argparse's
errors, the refusals of `teach`, `detect` and `decks` (the vision package's sentences), the progress bars and the
system's and the JSON parser's words inside a message. English stays as it was (tests/web/test_cli.py and the
golden transcripts check that, and this file where it shows both)."""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import pickle
import re
import socket
import subprocess
import sys
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

import pytest
from pebble import ProcessExpired

from cardpics import write_cards
from referee import GAMES
from vision.photos import _failure, read_one
from web.cli import build_parser, main
from referee.say import say
from vision.art import standard
import web.commands.camera as camera
import web.commands.common as common
from web.commands.common import placeholder, said_here, why
from web.system_words import system_words

# English words that have no business in a Portuguese sheet (none of them is also Portuguese: not
# "a", "face", "final", "for", "no" or "do")
ENGLISH = {"the", "and", "your", "you", "play", "plays", "card", "cards", "wait", "waiting", "seat", "seats", "turn",
           "points", "point", "round", "start", "game", "over", "score", "time", "up", "down", "players", "player",
           "deal", "cut", "tie", "team", "now", "with", "against", "worth", "to", "or", "of", "is", "it", "on", "off",
           "keep", "hand", "back", "win", "wins", "war", "wars", "battle", "battles", "deck", "decks", "dealer", "chip",
           "chips", "bet", "bets", "herd", "stack", "stacks", "pile", "joker", "jokers", "jack", "queen", "king", "ace",
           "aces", "shared", "sudden", "death", "rule", "rules", "option", "options", "how", "when", "which", "what",
           "each", "every", "all", "only", "more", "most", "highest", "number", "numbers", "look", "take", "takes",
           "out", "left", "last", "first", "same", "than", "that", "this", "are", "be", "if", "in", "at", "by",
           "not", "force", "optional", "required", "chosen", "basic", "advanced", "race", "fair", "short"}
# names printed on the cards and boxes, kept as printed in every language (docs/translating.md)
PRINTED = ("Woolly Warfare", "Namikopy War", "MALLARD", "FLAMINGO", "TURKEY", "WAR", "Steal", "Reveal", "Razboi")


def run(*args: str, stdin: str = "") -> tuple[int, str, str]:
    out, err, saved = io.StringIO(), io.StringIO(), sys.stdin
    try:
        sys.stdin = io.StringIO(stdin)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def english_in(text: str) -> list[str]:
    """The English words of a sheet, leaving out the settings as typed (``  - war_down=3``) and the
    printed names."""
    text = re.sub(r"^  - \S+", " ", text, flags=re.M)
    for name in PRINTED:
        text = text.replace(name, " ")
    return sorted({w for w in re.findall(r"[A-Za-zÀ-ÿ]+", text.lower()) if w in ENGLISH})


def settings(game) -> list[list[str]]:
    """Every value of every rule option of ``game``, as --option KEY=VALUE (and what else it needs)."""
    out = []
    for option in game.options:
        values = (option.choices if option.kind == "choice" else ("on", "off") if option.kind == "bool"
                  else ("off", "5") if option.can_be_off else ("5",))
        out += [[f"{option.name}={value}"] for value in values]
    return [s + ["min_bet=2"] if s == ["odd_surrender=even_bets"] else s for s in out]


@pytest.mark.parametrize("game", list(GAMES))
def test_every_rule_sheet_in_portuguese_has_no_english_word_left(game):
    code, english, _ = run("rules", "--game", game, "--how-to-play")
    assert code == 0 and len(english_in(english)) > 10        # the check finds English where there is some
    for setting in settings(GAMES[game]):
        options = [word for value in setting for word in ("--option", value)]
        code, out, err = run("rules", "--game", game, "--lang", "pt", "--how-to-play", *options)
        assert code == 0, err
        assert f"  - {setting[0]}  " in out
        assert english_in(out) == [], (setting, english_in(out), out)


def test_rule_sheets_in_portuguese_word_for_word():
    out = run("rules", "--game", "classic", "--lang", "pt", "--option", "war_down=3")[1].splitlines()
    assert out[:2] == ["Guerra clássica (2-4 jogadores, 52 cartas)", "Regras em vigor:"]
    assert ("  - war_down=3  Cartas para baixo numa guerra: Três (três cartas (a famosa variante «de-cla-ro-guer-ra»)). "
            "Quantas cartas cada jogador põe com a face para baixo numa guerra antes de virar a seguinte.") in out
    out = run("rules", "--game", "namikopy", "--lang", "pt", "--option", "war_cards=on")[1].splitlines()
    assert ("  - war_cards=on  Cartas WAR: ligado. Juntar ao baralho as cartas WAR da Namikopy (MALLARD, FLAMINGO, "
            "TURKEY; com um baralho normal, os dois jóqueres): virar uma começa logo uma guerra com o adversário que o "
            "seu jogador escolher.") in out
    out = run("rules", "--game", "woolly", "--lang", "pt", "--how-to-play")[1].splitlines()
    assert out[out.index("Como jogar:") + 1] == ("  1. Dá as 71 cartas de alpacas. Fica com 3 na mão; as outras ficam "
                                                 "com a face para baixo à tua frente: é o teu rebanho.")
    out = run("rules", "--game", "guerra", "--lang", "pt", "--how-to-play")[1].splitlines()
    assert "  5. Na 2ª e na 3ª rodada podes jogar uma carta virada para baixo (encoberta): vale 0." in out
    assert out.index("As palavras do jogo:") < out.index("  Guerra Fria: os dois lados com 5 pontos: ninguém pode ver "
                                                         "as próprias cartas")
    assert "As palavras do jogo:" not in run("rules", "--game", "woolly", "--lang", "pt", "--how-to-play")[1]
    # without --how-to-play the sheet is the options only, as it always was
    assert "Como jogar:" not in run("rules", "--game", "guerra", "--lang", "pt")[1]


@pytest.mark.parametrize("args, english, portuguese", [
    (["rules", "--game", "casino", "--option", "min_bet=0"], "warref rules: Rule option min_bet must be at least 1 "
     "(got 0).", "warref rules: A opção min_bet tem de ser pelo menos 1 (foi dado 0)."),
    (["rules", "--game", "woolly", "--option", "zz=1"], "warref rules: Woolly Warfare has no rule option 'zz'; its "
     "options are timed_count, timed_tie, max_battles.", "warref rules: Woolly Warfare não tem a opção 'zz'; as "
     "opções são timed_count, timed_tie, max_battles."),
    (["rules", "--game", "classic", "--option", "war=sometimes"], "warref rules: Rule option war must be one of "
     "bury, race (got 'sometimes').", "warref rules: A opção war tem de ser uma destas: bury, race (foi dado "
     "'sometimes')."),
    (["rules", "--game", "nope"], "warref rules: Unknown game 'nope'; warref referees woolly, classic, casino, "
     "namikopy, guerra.", "warref rules: Jogo desconhecido: 'nope'; o warref arbitra woolly, classic, casino, "
     "namikopy, guerra."),
    (["rules"], "warref rules: which game? Give --game with one of: woolly, classic, casino, namikopy, guerra (e.g. "
     "warref rules --game classic)", "warref rules: Que jogo? Dá --game com um destes: woolly, classic, casino, "
     "namikopy, guerra (por exemplo warref rules --game classic)"),
    (["referee", "--game", "guerra", "--players", "Alex,Olivia,Sam"], "warref referee: Guerra is for 2 players, or "
     "teams of 2 or 3 (4 or 6 players; got 3).", "warref referee: A Guerra joga-se a 2, ou em equipas de 2 ou 3 "
     "(4 ou 6 jogadores; foram dados 3)."),
    (["referee", "--game", "classic"], "warref referee: --players is missing: give the players' names in seat order, "
     "e.g. --players Alex,Olivia", "warref referee: Falta --players: dá os nomes dos jogadores pela ordem dos "
     "lugares, por exemplo --players Alex,Olivia"),
    (["referee", "--game", "namikopy", "--players", "A,B", "--option", "cards=1"], "warref referee: Rule option cards "
     "must be at least 2 (got 1).", "warref referee: A opção cards tem de ser pelo menos 2 (foi dado 1)."),
    (["simulate", "--game", "woolly", "--games", "0"], "warref simulate: --games must be at least 1",
     "warref simulate: --games tem de ser pelo menos 1"),
    (["simulate", "--game", "woolly", "--npc", "hard"], "warref simulate: --npc is for --game guerra (there are no "
     "NPC players for Woolly Warfare)", "warref simulate: --npc é para --game guerra (não há jogadores NPC para "
     "Woolly Warfare)"),
    (["serve", "--port", "0"], "warref serve: --port 0: give a port from 1 to 65535",
     "warref serve: --port 0: dá uma porta de 1 a 65535"),
    (["demo", "--game", "woolly"], "warref demo: the demo simulates Classic War only: --game classic",
     "warref demo: A demonstração só simula a Guerra clássica: --game classic"),
    (["run", "--camera", "0"], "warref run: --players is missing: give the players' names in seat order, e.g. "
     "--players Alex,Olivia", "warref run: Falta --players: dá os nomes dos jogadores pela ordem dos lugares, por "
     "exemplo --players Alex,Olivia"),
    (["run", "--players", "A,B", "--game", "casino", "--option", "decks=9"], "warref run: Rule option decks must be "
     "at most 8 (got 9).", "warref run: A opção decks pode ser no máximo 8 (foi dado 9)."),
    # the player count of a game other than Guerra, names alike, NPC levels (said as 'tu', as every other)
    (["referee", "--game", "classic", "--players", "Alex"], "warref referee: Classic War is for 2-4 players (got 1).",
     "warref referee: Guerra clássica joga-se com 2-4 jogadores (são 1)."),
    (["referee", "--game", "classic", "--players", "Alex,alex"], "warref referee: Two players have the same name "
     "(Alex and alex); give each a different one.", "warref referee: Dois jogadores têm o mesmo nome (Alex e alex); "
     "dá a cada um um nome diferente."),
    (["simulate", "--game", "guerra", "--npc", "hard,easy,hard"], "warref simulate: --npc hard,easy,hard: give one "
     "NPC level per seat (2), one per side (2) or one for all, not 3", "warref simulate: --npc hard,easy,hard: indica "
     "um nível de NPC por lugar (2), um por lado (2) ou um para todos, não 3"),
])
def test_set_up_errors_in_either_language(args, english, portuguese):
    assert run(*args) == (2, "", english + "\n")
    assert run(*args, "--lang", "pt") == (2, "", portuguese + "\n")


def test_a_log_that_is_a_folder_is_refused_in_portuguese(tmp_path):
    code, _, err = run("referee", "--players", "Alex,Olivia", "--log", str(tmp_path), "--lang", "pt")
    assert (code, err) == (2, f"warref referee: --log {tmp_path} é uma pasta; dá o nome de um ficheiro dentro dela, "
                              f"por exemplo --log {tmp_path / 'game.jsonl'}\n")


def test_the_referee_s_own_lines_in_portuguese(tmp_path):
    log = tmp_path / "game.jsonl"
    flips = [{"type": "flip", "seat": "Alex", "card": "2S"}, {"type": "flip", "seat": "Olivia", "card": "9H"}]
    args = ["referee", "--game", "classic", "--players", "Alex,Olivia", "--log", str(log), "--no-prompts"]
    assert run(*args, stdin="".join(json.dumps(f) + "\n" for f in flips))[0] == 0
    out = [json.loads(line) for line in run(*args, "--lang", "pt", stdin="nope\n" + json.dumps(
        {"type": "flip", "seat": "Alex", "card": "ZZ"}) + "\n")[1].splitlines()]
    assert out[0]["text"] == f"Recuperados 2 eventos de {log}."
    assert out[1]["text"] == "A linha 1 não é um evento JSON (era esperado um valor na coluna 1)."
    # an unknown card: the deck's name and how its cards are written, in Portuguese
    assert out[2]["text"].startswith("Carta desconhecida: 'ZZ'. As cartas do baralho normal escrevem-se assim: valor "
                                     "e depois naipe, como AS, 10D")


def test_a_casino_shoe_is_named_in_portuguese():
    events = [{"type": "bet", "seat": "Alex", "amount": 5}, {"type": "flip", "seat": "Alex", "card": "ZZ"}]
    out = run("referee", "--game", "casino", "--players", "Alex", "--option", "decks=6", "--no-prompts", "--lang",
              "pt", stdin="".join(json.dumps(e) + "\n" for e in events))[1]
    assert json.loads(out.splitlines()[-1])["text"].startswith(
        "Carta desconhecida: 'ZZ'. As cartas do baralho Guerra de Casino (sapato de 6 baralhos) escrevem-se assim: ")


def test_namikopy_s_jokers_and_court_cards_are_said_in_portuguese():
    def said(options: list[str], events: list[dict]) -> list[str]:
        args = ["referee", "--game", "namikopy", "--players", "Alex,Olivia", "--no-prompts", "--lang", "pt"]
        for option in options:
            args += ["--option", option]
        out = run(*args, stdin="".join(json.dumps(e) + "\n" for e in events))[1]
        return [json.loads(line)["text"] for line in out.splitlines()]

    queens = [{"type": "flip", "seat": "Alex", "card": "QH"}, {"type": "flip", "seat": "Olivia", "card": "QS"}]
    assert said(["deck=standard"], queens)[1] == "Duas damas: guerra entre Alex e Olivia!"
    beaten = [{"type": "flip", "seat": "Alex", "card": "QH"}, {"type": "flip", "seat": "Olivia", "card": "KS"}]
    assert said(["deck=standard"], beaten)[1] == "O rei de espadas de Olivia vence a dama de Alex: Olivia leva 2 cartas."
    joker = [{"type": "flip", "seat": "Alex", "card": "JOKER"}]
    assert said(["deck=standard", "war_cards=on"], joker) == ["Alex vira o jóquer; à espera de Olivia."]
    assert said(["deck=standard"], joker)[0].startswith("O jóquer não se pode jogar neste jogo: os jóqueres fazem "
                                                         "de cartas WAR")


def test_simulate_prints_its_statistics_in_portuguese():
    args = ["simulate", "--game", "classic", "--games", "20", "--quiet", "--jobs", "1", "--seed", "4"]
    english = run(*args)[1].splitlines()
    code, out, _ = run(*args, "--lang", "pt")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Guerra clássica, 2 jogadores, 20 jogos simulados (semente 4)"
    mean = re.search(r"mean (\d+\.\d)", english[2]).group(1)
    assert lines[2].startswith(f"Batalhas por jogo       média {mean.replace('.', ',')}  mediana ")
    assert lines[6] == "Duração dos jogos (batalhas por jogo):"
    assert lines[1].startswith("Regras: war_down=1, ") and lines[-2].startswith("Finais                  ")
    # the options as typed (KEY=VALUE) and the endings are named by their codes
    assert english_in("\n".join(lines[:1] + lines[2:-2] + lines[-1:])) == []


def plotted(monkeypatch, call) -> list[dict]:
    """What each picture `call()` writes says: its title, the axes' labels, the legend, the bars' names and the axes'
    numbers (matplotlib's Figure.savefig watched; the picture is written as always)."""
    from matplotlib.figure import Figure  # matplotlib only where a test draws (slow to import)

    seen, save = [], Figure.savefig

    def watched(fig, *args, **kwargs):
        save(fig, *args, **kwargs)         # drawn: the ticks' labels are set
        left, right = fig.axes
        seen.append({"title": fig._suptitle.get_text(), "labels": [left.get_xlabel(), left.get_ylabel(),
                                                                    right.get_ylabel()],
                     "legend": [t.get_text() for t in left.get_legend().get_texts()],
                     "bars": [t.get_text() for t in right.get_xticklabels()],
                     "numbers": [t.get_text() for ax in (left.xaxis, left.yaxis, right.yaxis)
                                 for t in ax.get_ticklabels()]})
    monkeypatch.setattr(Figure, "savefig", watched)
    call()
    return seen


def test_simulate_plots_its_picture_in_portuguese(tmp_path, monkeypatch):
    """`simulate --plot --lang pt`: the picture's title, axes, legend and bars in Portuguese, its numbers with a
    decimal comma; in English as it always was."""
    args = ["simulate", "--game", "classic", "--games", "20", "--quiet", "--jobs", "1", "--seed", "4"]
    (english,) = plotted(monkeypatch, lambda: run(*args, "--plot", str(tmp_path / "en.png")))
    (portuguese,) = plotted(monkeypatch, lambda: run(*args, "--plot", str(tmp_path / "pt.png"), "--lang", "pt"))
    assert (tmp_path / "pt.png").read_bytes()[:4] == b"\x89PNG"
    assert english["labels"] == ["battles per game", "games", "% of games won"]
    assert english["title"] == "Classic War, 2 players, 20 simulated games (seed 4)"
    median = english["legend"][0].removeprefix("median ")
    assert english["legend"] == [f"median {median}"] and median.isdigit()
    assert portuguese["title"] == "Guerra clássica, 2 jogadores, 20 jogos simulados (semente 4)"
    assert portuguese["labels"] == ["batalhas por jogo", "jogos", "% de jogos ganhos"]
    assert portuguese["legend"] == [f"mediana {median}"]
    assert portuguese["bars"] == english["bars"] == ["P1", "P2"]
    assert portuguese["numbers"] == [n.replace(".", ",") for n in english["numbers"]]
    # the bars of games drawn or shared and of the house's wins, and numbers with a fractional part
    from web.commands.games import _plot  # matplotlib only where a test draws (slow to import)

    summary = {"battles": {"median": 2.5}, "wins": {"P1": 0.25, "P2": 0.25}, "draws": 0.125, "shared_wins": 0.125,
               "house_wins": 0.25}
    pictures = {lang: plotted(monkeypatch, lambda lang=lang: _plot(str(tmp_path / f"{lang}2.png"), "t", [1, 2, 3, 4],
                                                                   summary, lang))[0] for lang in ("en", "pt")}
    assert pictures["en"]["bars"] == ["P1", "P2", "draw/shared", "house"] and pictures["en"]["legend"] == ["median 2"]
    assert pictures["pt"]["bars"] == ["P1", "P2", "empate/partilhada", "casa"]
    assert any("." in n for n in pictures["en"]["numbers"])
    assert pictures["pt"]["numbers"] == [n.replace(".", ",") for n in pictures["en"]["numbers"]]


def free_port() -> int:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        return free.getsockname()[1]


def test_demo_says_why_it_cannot_draw_the_cards_in_portuguese(tmp_path, monkeypatch):
    """`warref demo --lang pt` when the standard deck's art cannot be fetched (vision/art/standard.py's
    ArtFetchError, made with say()): the reason in Portuguese; in English exactly as it was."""
    monkeypatch.setattr(standard.shutil, "which", lambda tool: None)
    monkeypatch.setattr(camera, "_demo", lambda *args: standard.fetch(tmp_path / "cache"))
    args = ("demo", "--no-browser", "--host", "127.0.0.1", "--port", str(free_port()))
    assert run(*args) == (2, "", "warref demo: cannot draw the cards: npm not found on PATH, needed for the standard "
                                 "deck's card art: install Node.js and npm, e.g. apt-get install nodejs npm.\n")
    assert run(*args, "--lang", "pt") == (2, "", "warref demo: Não é possível desenhar as cartas: npm não está no PATH e "
                                                 "é preciso para as imagens das cartas do baralho normal: instala o "
                                                 "Node.js e o npm, por exemplo apt-get install nodejs npm.\n")


def art_failure(call) -> str:
    with pytest.raises(standard.ArtFetchError) as caught:
        call()
    return why(caught.value)


def test_every_reason_the_card_art_fails_is_english_as_it_was_and_portuguese(tmp_path, monkeypatch):
    """Each ArtFetchError's sentence: in English the words it always had (str(err) as before say()), in Portuguese
    every word but the tools' own (a path, a command, what the command wrote)."""
    def failed(*args, **kwargs):            # a tool that fails, saying "boom" (as text where asked so)
        return subprocess.CompletedProcess(args, 1, b"", "boom" if kwargs.get("text") else b"boom")
    npm = tmp_path / "npm"
    npm.mkdir()
    # what each failure said before it was made with say()
    name, version, sha256 = standard.PACKAGES["svg-cards"]
    stem = f"{name}-{version}"
    cases = {
        "missing": (lambda: standard._file(tmp_path / "pkg" / "cards" / "QH.svg"),
                    f"{tmp_path / 'pkg' / 'cards' / 'QH.svg'} is missing from the unpacked package; delete "
                    f"{tmp_path / 'pkg'} and run `python -m vision.art.standard` again.",
                    f"{tmp_path / 'pkg' / 'cards' / 'QH.svg'} não está no pacote extraído; apaga {tmp_path / 'pkg'} e "
                    "volta a executar `python -m vision.art.standard`."),
        "tool": (lambda: standard._require("rsvg-convert", say("install librsvg's command-line tool (apt-get install "
                                                                "librsvg2-bin)")),
                 "rsvg-convert not found on PATH, needed for the standard deck's card art: install librsvg's "
                 "command-line tool (apt-get install librsvg2-bin).",
                 "rsvg-convert não está no PATH e é preciso para as imagens das cartas do baralho normal: instala a "
                 "ferramenta de linha de comandos da librsvg (apt-get install librsvg2-bin)."),
        "run": (lambda: standard._run(["node", "x.mjs"], say("converting @letele/playing-cards' React components to "
                                                            "SVG")),
                "Failed converting @letele/playing-cards' React components to SVG: `node x.mjs` exited with 1: boom",
                "Falha ao converter os componentes React de @letele/playing-cards em SVG: `node x.mjs` terminou com "
                "o código 1: boom"),
        "render": (lambda: standard._render_one(tmp_path / "svg-cards" / "QH.png", lambda: b"<svg/>"),
                   "rsvg-convert could not render svg-cards/QH: boom",
                   "O rsvg-convert não conseguiu desenhar svg-cards/QH: boom"),
    }
    monkeypatch.setattr(standard.shutil, "which", lambda tool: None)
    monkeypatch.setattr(standard.subprocess, "run", failed)
    for key, (call, english, portuguese) in cases.items():
        said = art_failure(call)
        assert str(said) == english, key
        assert said_here(said, "pt") == portuguese, key
    # npm: not found; its download failing; a download that wrote nothing; a tarball that is not the one pinned
    said = art_failure(lambda: standard._npm_package("svg-cards", npm))
    assert said_here(said, "pt") == ("npm não está no PATH e é preciso para as imagens das cartas do baralho normal: "
                                     "instala o Node.js e o npm, por exemplo apt-get install nodejs npm.")
    monkeypatch.setattr(standard.shutil, "which", lambda tool: f"/usr/bin/{tool}")
    said = art_failure(lambda: standard._npm_package("svg-cards", npm))
    assert str(said) == (f"Failed downloading {name}@{version} from the npm registry (check the network and `npm "
                         f"config get registry`): `npm pack {name}@{version}` exited with 1: boom")
    assert said_here(said, "pt") == (f"Falha ao descarregar {name}@{version} do registo do npm (verifica a rede e `npm "
                                     f"config get registry`): `npm pack {name}@{version}` terminou com o código 1: boom")
    monkeypatch.setattr(standard.subprocess, "run", lambda *args, **kwargs: subprocess.CompletedProcess(args, 0))
    said = art_failure(lambda: standard._npm_package("svg-cards", npm))
    assert str(said) == f"`npm pack {name}@{version}` did not write {stem}.tgz in {npm}; delete that folder and try again."
    assert said_here(said, "pt") == (f"`npm pack {name}@{version}` não escreveu {stem}.tgz em {npm}; apaga essa pasta "
                                     "e tenta outra vez.")
    (npm / f"{stem}.tgz").write_bytes(b"not a tarball")
    digest = hashlib.sha256(b"not a tarball").hexdigest()
    said = art_failure(lambda: standard._npm_package("svg-cards", npm))
    assert str(said) == (f"{stem}.tgz has SHA-256 {digest}, expected {sha256}: the download was damaged or the "
                         "registry's tarball changed. It was deleted; run again, and if it persists check the package by "
                         "hand.")
    assert said_here(said, "pt") == (f"{stem}.tgz tem o SHA-256 {digest}, mas era esperado {sha256}: a transferência "
                                     "ficou danificada ou o tarball do registo mudou. Foi apagado; volta a tentar e, se "
                                     "continuar, verifica o pacote à mão.")
    # a cached card of the wrong size
    root = tmp_path / "cache" / "art" / "standard"
    (root / "svg-cards").mkdir(parents=True)
    (root / "manifest.json").write_text(json.dumps({**standard._wanted(), "files": ["svg-cards/QH.png"]}))
    standard.Image.new("RGBA", (5, 7)).save(root / "svg-cards" / "QH.png")
    said = art_failure(lambda: standard._images.__wrapped__(tmp_path / "cache"))
    wanted = (standard.CARD_H, standard.CARD_W, 4)
    assert str(said) == (f"{root / 'svg-cards' / 'QH.png'} is (7, 5, 4), not {wanted}; delete {root} and run `python -m "
                         "vision.art.standard` again.")
    assert said_here(said, "pt") == (f"{root / 'svg-cards' / 'QH.png'} tem as dimensões (7, 5, 4), não {wanted}; apaga "
                                     f"{root} e volta a executar `python -m vision.art.standard`.")


def test_an_npc_match_is_told_in_portuguese():
    code, out, _ = run("simulate", "--game", "guerra", "--npc", "hard,easy", "--seed", "2", "--lang", "pt")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Guerra, 2 jogadores, partida de NPCs (semente 2): P1 (hard) contra P2 (easy)"
    assert lines[1].startswith("  1. ") and "confronto" in lines[1]
    assert "Resultado final: " in lines[-1] and lines[-1].endswith("todos verificados pelo árbitro.")
    assert english_in("\n".join(lines).replace("(hard)", "").replace("(easy)", "")) == []


@pytest.mark.parametrize("game, players, events, english, portuguese", [
    ("classic", "Alex,Olivia", [("Alex", "9S"), ("Olivia", "4H"), ("Alex", "7S"), ("Olivia", "7H"), "undo"],
     ["Alex turns up a 9; waiting for Olivia.", "Alex's 9 beats Olivia's 4: Alex takes 2 cards.",
      "Alex turns up a 7; waiting for Olivia.", "Two 7s: war!", "Undone: Olivia's flip (card 7H)."],
     ["Alex vira o 9 de espadas; à espera de Olivia.", "O 9 de espadas de Alex vence o 4 de copas de Olivia: Alex leva "
      "2 cartas.", "Alex vira o 7 de espadas; à espera de Olivia.", "Dois 7: guerra!",
      "Anulado: flip de Olivia (card 7H)."]),
    ("casino", "Alex", [{"type": "bet", "seat": "Alex", "amount": 5}, ("Alex", "9S"), ("dealer", "4H")],
     None, ["Alex aposta 5 fichas.", "Alex recebe o 9 de espadas; ainda sem carta: o croupier.",
            "O 9 de espadas de Alex vence o 4 de copas do croupier: Alex ganha 5 fichas (agora tem 105 fichas)."]),
    ("woolly", "Alex,Olivia", [("Alex", "7R"), ("Olivia", "3B"), ("Alex", "5R"), ("Olivia", "5B")],
     None, ["Alex vira o 7; à espera de Olivia.", "O 7 de Alex vence o 3 de Olivia: Alex leva 2 cartas.",
            "Alex vira o 5; à espera de Olivia.", "Dois 5: todos vão à guerra!"]),
])
def test_a_few_rulings_of_every_game_word_for_word(game, players, events, english, portuguese):
    """Classic, Casino and Woolly Warfare's rulings in Portuguese (Guerra's: test_i18n.py; Namikopy's above),
    and an undo names the event undone in the reader's words ("flip de Olivia"), its fields as typed."""
    lines = "".join(json.dumps(e if isinstance(e, dict) else {"type": "undo"} if e == "undo" else
                               {"type": "flip", "seat": e[0], "card": e[1]}) + "\n" for e in events)

    def said(*lang):
        out = run("referee", "--game", game, "--players", players, "--no-prompts", *lang, stdin=lines)[1]
        return [json.loads(line)["text"] for line in out.splitlines()]

    assert said("--lang", "pt") == portuguese
    if english is not None:
        assert said() == english


# -- --help and argparse's own words (`--lang pt` anywhere on the command line) --------------------------
HELPED = ("referee", "rules", "simulate", "serve", "demo", "run", "teach", "decks", "detect")
# argparse's own English, none of which may be left in a Portuguese help or error
ARGPARSE_ENGLISH = ("usage", "options", "positional arguments", "show this help", "show program's", "error:",
                    "the following arguments", "required", "invalid choice", "choose from", "expected", "argument",
                    "unrecognized")


def argparse_english(text: str) -> list[str]:
    return [w for w in ARGPARSE_ENGLISH if re.search(rf"\b{w}\b", text, flags=re.I)]


def exits(*args: str) -> tuple[int, str, str]:
    """`warref ARGS` that ends in argparse's exit (--help, a bad command line): its code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), pytest.raises(SystemExit) as done:
        main(list(args))
    return done.value.code, out.getvalue(), err.getvalue()


def help_words(text: str) -> str:
    """A help's words, leaving out what is typed or named as it is: options (--no-prompts), commands (warref
    decks, and `warref --help`'s list of them), placeholders (PLAYERS, KEY=VALUE), choices ({standard,woolly}), files
    and paths (QH.png, models/)."""
    text = " ".join(re.sub(r"(?m)^    \w+ ", " ", text).split())
    text = text.replace("passes, zoom, strips, cut, again, lean, unstretch, indices, words", " ")   # steps, as typed
    for pattern in (r"--?[\w-]+", r"warref \w+", r"\{[^}]*\}", r"\b[A-Z][A-Z_=]+\b", r"\S+/\S*", r"\S+\.\w+"):
        text = re.sub(pattern, " ", text)
    return text


@pytest.mark.parametrize("command", ["", *HELPED])
def test_help_in_portuguese_has_no_english_word_left(command, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    words = [command] if command else []
    code, english, _ = exits(*words, "--help")
    assert code == 0 and english.startswith("usage: warref") and "options:" in english
    code, out, err = exits(*words, "--help", "--lang", "pt")
    assert (code, err) == (0, "")
    assert out.startswith(f"utilização: warref {command}".rstrip() + " [-h]") and "\nopções:\n" in out
    assert re.search(r"^  -h, --help +mostra esta mensagem de ajuda e sai$", out, flags=re.M)
    assert argparse_english(out) == []
    assert english_in(help_words(out)) == [], english_in(help_words(out))
    assert len(english_in(help_words(english))) > 3         # the check finds English where there is some


def test_help_in_portuguese_word_for_word(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    out = exits("teach", "--help", "--lang", "pt")[1].splitlines()
    assert out[0] == "utilização: warref teach [-h] --like {standard,woolly,namikopy} [--cards PASTA] [--labelled PASTA]"
    assert "argumentos posicionais:" in out and "opções:" in out
    assert "  nome                  o nome do baralho: letras minúsculas, algarismos, - ou _" in out
    assert "  --lang LÍNGUA         a língua do que diz: en, pt (predefinido en)" in out
    out = exits("referee", "--help", "--lang", "pt")[1].splitlines()
    assert out[:2] == ["utilização: warref referee [-h] [--game JOGO] [--players JOGADORES] [--option OPÇÃO=VALOR]",
                       "                           [--log REGISTO] [--no-prompts] [--echo] [--lang LÍNGUA]"]
    # English as it always was
    english = exits("teach", "--help")[1].splitlines()
    assert english[0] == "usage: warref teach [-h] --like {standard,woolly,namikopy} [--cards CARDS] [--labelled LABELLED]"
    assert "  name                  the deck's name: lower-case letters, digits, - or _" in english
    out = exits("--help", "--lang", "pt")[1].splitlines()
    assert out[0] == "utilização: warref [-h] [--version]"
    assert "Um árbitro para a Guerra e os seus parentes." in out
    assert "    teach               ensina ao warref o teu próprio baralho, com uma foto por carta" in out
    assert "  --version             mostra o número da versão do programa e sai" in out
    # the language before the command, or given as --lang=pt, says it too; the lab's commands stay English
    assert exits("--lang", "pt", "rules", "--help")[1].startswith("utilização: warref rules [-h]")
    assert exits("decks", "--lang=pt", "--help")[1].startswith("utilização: warref decks [-h]")
    assert exits("synth", "--help", "--lang", "pt")[1].startswith("usage: warref synth [-h]")
    # a language warref does not know: the help in English, and the command says which there are
    assert exits("rules", "--help", "--lang", "xx")[1].startswith("usage: warref rules [-h]")


@pytest.mark.parametrize("args, english, portuguese", [
    (["teach", "fam"], "warref teach: error: the following arguments are required: --like",
     "warref teach: erro: faltam estes argumentos obrigatórios: --like"),
    (["teach", "fam", "--like", "zz"], "warref teach: error: argument --like: invalid choice: 'zz' (choose from "
     "'standard', 'woolly', 'namikopy')", "warref teach: erro: argumento --like: escolha inválida: 'zz' (escolhe "
     "entre 'standard', 'woolly', 'namikopy')"),
    (["simulate", "--games", "many"], "warref simulate: error: argument --games: invalid int value: 'many'",
     "warref simulate: erro: argumento --games: valor inteiro inválido: 'many'"),
    (["teach", "fam", "--like", "standard", "--minutes", "2,5,0"], "warref teach: error: argument --minutes: invalid "
     "float value: '2,5,0'", "warref teach: erro: argumento --minutes: valor numérico inválido: '2,5,0'"),
    # a positional is named by its placeholder, in the usage line too
    (["detect"], "warref detect: error: the following arguments are required: images",
     "warref detect: erro: faltam estes argumentos obrigatórios: imagens"),
    (["teach", "--like", "standard"], "warref teach: error: the following arguments are required: name",
     "warref teach: erro: faltam estes argumentos obrigatórios: nome"),
    (["referee", "--game"], "warref referee: error: argument --game: expected one argument",
     "warref referee: erro: argumento --game: espera um valor"),
    (["decks", "--bogus"], "warref: error: unrecognized arguments: --bogus",
     "warref: erro: argumentos desconhecidos: --bogus"),
])
def test_argparse_s_errors_in_either_language(args, english, portuguese):
    code, out, err = exits(*args)
    assert (code, out) == (2, "") and err.startswith("usage: warref") and err.endswith("\n" + english + "\n")
    code, out, err = exits(*args, "--lang", "pt")
    assert (code, out) == (2, "") and err.startswith("utilização: warref") and err.endswith("\n" + portuguese + "\n")
    assert argparse_english(err) == []


# placeholders the same in both languages
AS_IN_ENGLISH = {"PIN", "URL", "FPS"}


@pytest.mark.parametrize("command", ["", *HELPED])
def test_every_placeholder_of_a_portuguese_help_is_portuguese(command):
    """What an option takes (--players JOGADORES) and a positional's name (nome), for every option of warref and
    of each user's command: none left as argparse makes it of the English name, and the English ones unchanged."""
    def shown(lang: str) -> dict[str, str]:
        parser = build_parser(lang)
        chosen = parser if not command else next(
            a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
        return {a.dest: placeholder(a) for a in chosen._actions if placeholder(a) is not None}

    english, portuguese = shown("en"), shown("pt")
    assert english.keys() == portuguese.keys() and (len(english) > 1 or not command)
    assert {d: w for d, w in portuguese.items() if w == english[d] and w not in AS_IN_ENGLISH} == {}


def test_a_lang_shortened_as_argparse_allows_says_the_help_and_errors_in_portuguese():
    assert exits("rules", "--lan", "pt", "--help")[1].startswith("utilização: warref rules [-h]")
    assert exits("--lan", "pt", "rules", "--help")[1].startswith("utilização: warref rules [-h]")
    assert exits("referee", "--la=pt", "--game")[2].endswith("warref referee: erro: argumento --game: espera um valor\n")
    # before the command, it is the command's language too
    assert run("--l", "pt", "rules", "--game", "nope")[2].startswith("warref rules: Jogo desconhecido: 'nope'")
    assert run("rules", "--lan", "pt", "--game", "nope")[2].startswith("warref rules: Jogo desconhecido: 'nope'")
    # where it could be another option of the command too, argparse refuses it, in English
    assert exits("teach", "fam", "--la", "pt")[2].endswith("warref teach: error: ambiguous option: --la could match "
                                                           "--labelled, --lang\n")
    assert exits("synth", "--lan", "pt", "--help")[1].startswith("usage: warref synth [-h]")


def test_warref_decks_in_portuguese(tmp_path, monkeypatch):
    monkeypatch.setenv("WARREF_HOME", str(tmp_path))
    decks = tmp_path / "decks"
    assert run("decks", "--lang", "pt") == (0, "Incluídos no warref: standard, woolly, namikopy\nAinda não há nenhum "
                                               f"baralho ensinado ({decks}): warref teach NOME --like standard --cards "
                                               "PASTA\n", "")
    for name, held in (("fam", {"right": 40, "views": 48, "wrong": 8}), ("old", None)):
        (decks / name).mkdir(parents=True)
        meta = {"name": name, "like": "standard", "codes": ["AS", "KH"], **({"held_back": held} if held else {})}
        (decks / name / "deck.json").write_text(json.dumps(meta))
    english = run("decks")[1].splitlines()
    assert english[1:] == [f"fam: like standard, 2 cards, read 40 of 48 held-back views right ({decks / 'fam'})",
                           f"old: like standard, 2 cards, not measured ({decks / 'old'})"]
    assert run("decks", "--lang", "pt")[1].splitlines() == [
        "Incluídos no warref: standard, woolly, namikopy",
        f"fam: como o standard, 2 cartas, leu bem 40 de 48 vistas guardadas à parte ({decks / 'fam'})",   # as typed
        f"old: como o standard, 2 cartas, não medido ({decks / 'old'})"]
    assert run("decks", "--forget", "old", "--lang", "pt") == (0, f"Baralho old esquecido ({decks / 'old'} apagado)\n",
                                                                "")
    code, out, err = run("decks", "--forget", "standard", "--lang", "pt")
    assert (code, out) == (2, "") and err.startswith("warref decks: ")
    assert run("decks", "--lang", "xx")[2] == "warref decks: --lang: no language 'xx': en, pt\n"


# -- the vision package's own sentences in the refusals of `warref teach`, `detect` and `decks --forget` ---------
def test_teach_s_refusals_in_either_language(tmp_path, monkeypatch, namikopy_cards):
    """Each said with say() in vision/ (teach.py, decks.py, photos.py, reader.py): English as it was, Portuguese
    word for word; a path or a deck's name at the start of a line keeps its case."""
    monkeypatch.setenv("WARREF_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fotos").mkdir()
    (tmp_path / "fotos" / "QH.png").write_bytes(b"not a picture")
    (tmp_path / "fotos" / "zz.png").write_bytes(b"not a picture")
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "ks.png").write_bytes(b"")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("the photos are on my phone")
    write_cards(tmp_path / "few", dict(list(namikopy_cards.items())[:3]))
    (tmp_path / "labels" / "images").mkdir(parents=True)
    (tmp_path / "labels" / "classes.txt").write_text("ZZ\n")
    cases = [
        (["--like", "standard", "--cards", "nope"], "--cards nope: no such folder", "--cards nope: essa pasta não existe"),
        (["--like", "standard"], "no card photos: give --cards DIR (one photo per card, named by its code) or "
         "--labelled DIR", "Nenhuma foto de cartas: dá --cards PASTA (uma foto por carta, com o nome do código dela) "
         "ou --labelled PASTA"),
        (["--like", "standard", "--cards", "fotos"], "2 photos cannot be used; fix or remove them and teach the deck "
         "again:\n  fotos/QH.png: not a readable image (empty, corrupt or not a picture)\n  fotos/zz.png: the file name "
         "does not start with a card code of the standard deck (as `warref referee` spells them: 2C, 2D, 2H, 2S, ...; "
         "BACK for the back)", "2 fotos não podem ser usadas; corrige-as ou retira-as e volta a ensinar o baralho:\n  "
         "fotos/QH.png: não é uma imagem legível (ficheiro vazio, danificado ou que não é uma imagem)\n  fotos/zz.png: o "
         "nome do ficheiro não começa pelo código de uma carta do baralho normal (como o `warref referee` os escreve: "
         "2C, 2D, 2H, 2S, ...; BACK para o verso)"),
        (["--like", "standard", "--cards", "empty"], "--cards empty: no photos in it (JPEG, PNG, HEIC ...): one photo "
         "per card, named by its code (AS.jpg, 10H.png)", "--cards empty: não tem fotos (JPEG, PNG, HEIC ...): uma foto "
         "por carta, com o nome do código dela (AS.jpg, 10H.png)"),
        (["--like", "standard", "--cards", "one"], "one/ks.png: not a readable image (empty, corrupt or not a picture)",
         "one/ks.png: não é uma imagem legível (ficheiro vazio, danificado ou que não é uma imagem)"),
        (["--like", "namikopy", "--cards", "few"], "no photo of 12 card(s) of the namikopy deck: 4, 5, 6, 7, 8, 9, 10, "
         "11, 12, MALLARD, FLAMINGO, TURKEY; add them, or teach the deck without them with --allow-missing (they are "
         "then read as the built-in namikopy readers read them)", "Falta a foto de 12 carta(s) do baralho namikopy: "
         "4, 5, 6, 7, 8, 9, 10, 11, 12, MALLARD, FLAMINGO, TURKEY; junta-as, ou ensina o baralho sem elas com "
         "--allow-missing (são então lidas como os leitores do baralho namikopy do warref as leem)"),
        (["--like", "namikopy", "--labelled", "few"], "--labelled few: no classes.txt (expected classes.txt, images/, "
         "labels/)", "--labelled few: não há classes.txt (esperava-se classes.txt, images/, labels/)"),
        (["--like", "namikopy", "--labelled", "labels"], "--labelled labels: no label names a card of the deck",
         "--labelled labels: nenhuma etiqueta indica uma carta do baralho"),
    ]
    for args, english, portuguese in cases:
        assert run("teach", "fam", *args, "--quiet") == (2, "", f"warref teach: {english}\n"), args
        assert run("teach", "fam", *args, "--quiet", "--lang", "pt") == (2, "", f"warref teach: {portuguese}\n"), args
    for name, english, portuguese in (
            ("standard", "'standard' is a built-in deck; give the deck you teach another name",
             "'standard' é um baralho do warref; dá outro nome ao baralho que ensinas"),
            ("BAD", "'BAD' cannot name a deck: use 1-40 lower-case letters, digits, '-' or '_', starting with a letter "
             "or digit", "'BAD' não pode ser o nome de um baralho: usa de 1 a 40 letras minúsculas, algarismos, '-' ou "
             "'_', a começar por uma letra ou um algarismo")):
        assert run("teach", name, "--like", "standard") == (2, "", f"warref teach: {english}\n")
        assert run("teach", name, "--like", "standard", "--lang", "pt") == (2, "", f"warref teach: {portuguese}\n")
    assert not (tmp_path / "home" / "decks").exists() or not any((tmp_path / "home" / "decks").iterdir())


def test_decks_forget_and_detect_refusals_in_either_language(tmp_path, monkeypatch):
    monkeypatch.setenv("WARREF_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.png").write_bytes(b"not a picture")
    unknown = ("unknown deck 'zz': choose one of standard, woolly, namikopy (decks you taught warref: `warref decks`; "
               "teach one: `warref teach`)", "Baralho desconhecido: 'zz'; escolhe um destes: standard, woolly, namikopy "
               "(os baralhos que ensinaste ao warref: `warref decks`; para ensinar um: `warref teach`)")
    cases = [
        (["decks", "--forget", "standard"], "warref decks: 'standard' is one of warref's own decks; only a deck you "
         "taught can be forgotten", "warref decks: 'standard' é um dos baralhos do próprio warref; só se pode esquecer "
         "um baralho que ensinaste"),
        (["decks", "--forget", "zz"], f"warref decks: {unknown[0]}", f"warref decks: {unknown[1]}"),
        (["detect", "--deck", "zz", "bad.png"], f"warref detect: {unknown[0]}", f"warref detect: {unknown[1]}"),
        (["detect", "--models", str(tmp_path), "bad.png"], f"warref detect: model file {tmp_path / 'detector.onnx'} "
         "is missing (train it with `warref train`, or check out models/)", "warref detect: Falta o ficheiro do modelo "
         f"{tmp_path / 'detector.onnx'} (treina-o com `warref train`, ou obtém models/ do repositório)"),
    ]
    for args, english, portuguese in cases:
        assert run(*args) == (2, "", english + "\n"), args
        assert run(*args, "--lang", "pt") == (2, "", portuguese + "\n"), args
    # a photo it cannot read: its line, and the others read on (exit 1)
    code, out, err = run("detect", "bad.png", "nope.png", "--lang", "pt")
    assert (code, out) == (1, "") and err == ("warref detect: bad.png: não é uma imagem legível (ficheiro vazio, "
                                              "danificado ou que não é uma imagem)\nwarref detect: nope.png: esse "
                                              "ficheiro de imagem não existe\n")
    assert run("detect", "bad.png", "nope.png")[2] == ("warref detect: bad.png: not a readable image (empty, corrupt or "
                                                      "not a picture)\nwarref detect: nope.png: no such image file\n")


def test_a_photo_s_failure_keeps_its_message_from_a_worker_process():
    """What `warref detect --jobs N` gets back from a worker process (pickled) is said in Portuguese too, and so
    is a worker that died or ran out of time."""
    path, size, why = pickle.loads(pickle.dumps(read_one(None, "nope.png", 0.5)))
    assert (path, size, why) == ("nope.png", None, "nope.png: no such image file")
    assert said_here(why, "pt") == "nope.png: esse ficheiro de imagem não existe"
    died = _failure("a.png", ProcessExpired("gone", code=-9), None)
    assert died == "a.png: not read: the process reading it died (killed by SIGKILL, as when memory runs out)"
    assert said_here(pickle.loads(pickle.dumps(died)), "pt") == ("a.png: não lido: o processo que o lia morreu "
                                                                 "(terminado por SIGKILL, como quando a memória se "
                                                                 "esgota)")
    late = _failure("a.png", FutureTimeout(), 2.5)
    assert late == "a.png: not read: stopped after the time limit of 2.5 s a photo"
    assert said_here(late, "pt") == "a.png: não lido: parado ao fim do tempo máximo de 2,5 s por foto"


# -- progress bars: their names, units and decimal mark --------------------------------------------------
class Terminal(io.StringIO):
    """stderr as a terminal: `warref detect` shows its bar only on one."""

    def isatty(self) -> bool:
        return True


def test_progress_bars_in_portuguese(tmp_path, monkeypatch):
    """simulate's, detect's and teach's bars: named, counted and timed in Portuguese (a decimal comma); in English
    as they always were (tqdm's "it", "photo", "game")."""
    args = ["simulate", "--game", "classic", "--games", "20", "--jobs", "1", "--seed", "4"]
    english, portuguese = run(*args)[2], run(*args, "--lang", "pt")[2]
    assert re.search(r"^Classic War, 2 players: 100%\|.*\| 20/20 \[[\d:]+<[\d:]+, +[\d.]+(game/s|s/game)\]$",
                     english.split("\r")[-1].strip())
    last = portuguese.split("\r")[-1].strip()
    assert re.search(r"^Guerra clássica, 2 jogadores: 100%\|.*\| 20/20 \[[\d:]+<[\d:]+, +\d+,\d\d(jogo/s|s/jogo)\]$",
                     last), last
    # detect: named by what it does, counted in photos (a bar only on a terminal, for more than one photo)
    (tmp_path / "a.png").write_bytes(b"not a picture")
    (tmp_path / "b.png").write_bytes(b"not a picture")
    for lang, bar, unit in (("en", "warref detect", "photo"), ("pt", "a ler as fotos", "foto")):
        err = Terminal()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            assert main(["detect", str(tmp_path / "a.png"), str(tmp_path / "b.png"), "--jobs", "1", "--lang", lang]) == 1
        last = err.getvalue().split("\r")[-1].strip()
        assert re.search(rf"^{bar}: 100%\|.*\| 2/2 \[[\d:]+<[\d:]+, +[\d{'.' if lang == 'en' else ','}]+"
                         rf"({unit}/s|s/{unit})\]$", last), last
    # teach: each stage's bar, counted in what it counts
    def stages(name, like, cards, labelled, minutes, allow_missing, replace, progress):
        for stage, total in (("tables", 3), ("views", 5), ("readers", 2), ("check", 1)):
            for done in range(1, total + 1):
                progress(stage, done, total)
        raise ValueError("stopped here")

    monkeypatch.setattr("vision.teach.teach", stages)
    for lang, said in (("en", (("tables", "it"), ("views", "it"), ("readers", "it"), ("check", "it"))),
                       ("pt", (("mesas", "mesa"), ("vistas", "vista"), ("leitores", "leitor"),
                               ("verificação", "verificação")))):
        err = run("teach", "fam", "--like", "standard", "--lang", lang)[2]
        finals = [line.strip().splitlines()[0] for line in err.split("\r") if "100%" in line]
        assert len(finals) == 4 and err.endswith("warref teach: stopped here\n"), err
        for line, (name, unit) in zip(finals, said):
            number = r"[\d.?]+" if lang == "en" else r"[\d,?]+"
            assert re.search(rf"^{name}: 100%\|.*\[[\d:]+<[\d:]+, +{number}({unit}/s|s/{unit})\]$", line), line


# -- the system's and the JSON parser's own words inside a message ----------------------------------------------
def test_the_system_s_and_the_json_parser_s_words_in_portuguese(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "zones.json").write_text("x")
    (tmp_path / "bad.jsonl").write_text('{"type": "table"\n')
    cases = [
        (["run", "--players", "A,B", "--camera", "0", "--zones", "zones.json"], "warref run: cannot read the zones file "
         "zones.json: Expecting value: line 1 column 1 (char 0)", "warref run: Não é possível ler o ficheiro das zonas "
         "zones.json: era esperado um valor: linha 1, coluna 1 (carácter 0)"),
        (["run", "--players", "A,B", "--camera", "0", "--zones", "nope.json"], "warref run: cannot read the zones file "
         "nope.json: [Errno 2] No such file or directory: 'nope.json'", "warref run: Não é possível ler o ficheiro das "
         "zonas nope.json: [erro 2] esse ficheiro ou pasta não existe: 'nope.json'"),
        (["referee", "--players", "A,B", "--log", "bad.jsonl"], "warref referee: the log file bad.jsonl is damaged "
         "(Expecting ',' delimiter: line 1 column 17 (char 16)); nothing was changed.", "warref referee: O ficheiro de "
         "registo bad.jsonl está danificado (era esperado o separador ',': linha 1, coluna 17 (carácter 16)); nada foi "
         "alterado."),
    ]
    for args, english, portuguese in cases:
        assert run(*args) == (2, "", english + "\n"), args
        assert run(*args, "--lang", "pt") == (2, "", portuguese + "\n"), args
    lines = 'nope\n{"a" 1}\n"abc\n1 2\n'
    said = [json.loads(line)["text"] for line in run("referee", "--game", "classic", "--players", "A,B", "--no-prompts",
                                                      "--lang", "pt", stdin=lines)[1].splitlines()]
    assert said == ["A linha 1 não é um evento JSON (era esperado um valor na coluna 1).",
                    "A linha 2 não é um evento JSON (era esperado o separador ':' na coluna 6).",
                    "A linha 3 não é um evento JSON (carácter de controlo inválido na coluna 5).",
                    "A linha 4 não é um evento JSON (dados a mais na coluna 3)."]


def test_a_redis_out_of_reach_is_said_in_portuguese():
    with socket.socket() as free:           # a port to listen on, and one where no Redis listens
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    args = ["serve", "--host", "127.0.0.1", "--port", str(port), "--no-qr", "--redis", "redis://127.0.0.1:1/0"]
    code, out, err = run(*args)
    assert (code, out) == (2, "") and err.startswith("warref serve: cannot reach Redis at redis://127.0.0.1:1/0: ")
    code, out, portuguese = run(*args, "--lang", "pt")
    assert (code, out) == (2, "") and portuguese == err.replace("cannot reach Redis at", "Não é possível ligar ao Redis em")


def test_system_words_are_english_exactly_as_the_error_says_them():
    """An error's words as str(err) says them, in English always; in Portuguese where warref knows them (by errno, as
    the system says them), the rest as the system says it."""
    for err in (PermissionError(13, "Permission denied", "a", None, "b"), FileNotFoundError(2, "No such file or directory",
                "x.json"), IsADirectoryError(21, "Is a directory"), OSError(5, "Input/output error", "disk"),
                OSError(13, "Access is denied", "a"), OSError("plain"), json.JSONDecodeError("Extra data", "1 2", 2)):
        assert system_words(err) == str(err) and why(err) == str(err), err
    assert said_here(system_words(PermissionError(13, "Permission denied", "a", None, "b")), "pt") == ("[erro 13] sem "
                                                                                                  "permissão: 'a' -> 'b'")
    assert said_here(system_words(IsADirectoryError(21, "Is a directory")), "pt") == "[erro 21] é uma pasta"
    # a system that says it otherwise, and an error warref has no words for, as they are said
    assert said_here(system_words(OSError(13, "Access is denied", "a")), "pt") == "[erro 13] Access is denied: 'a'"
    assert said_here(system_words(OSError(5, "Input/output error", "disk")), "pt") == ("[erro 5] Input/output error: "
                                                                                       "'disk'")
    # an error raised with a sentence of its own keeps it (a deck that exists: vision/decks.py)
    exists = FileExistsError(say("a deck named {name} exists ({folder}); choose another name or --replace",
                                 name="'fam'", folder="/decks/fam"))
    assert said_here(why(exists), "pt") == "Já existe um baralho chamado 'fam' (/decks/fam); escolhe outro nome ou --replace"


def test_the_system_words_are_the_servers_too_without_the_command_line():
    """The system's and the JSON parser's words are web/system_words.py's (beside the catalog), which the server
    imports: not the command line's (web/commands/), which says them through it."""
    probe = ("import sys, web.system_words\n"
             "print(sorted(m for m in sys.modules if m.startswith(('web.commands', 'web.cli', 'argparse', 'tqdm'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.stdout.strip() == "[]"
    assert common.system_words is system_words


def test_a_fraction_may_be_written_with_a_decimal_comma_as_portuguese_writes_it():
    """The user commands' fractional options (``--minutes``, ``--threshold``, ``--fps``) read "2,5" as 2.5 in any
    language, "2.5" as before; two commas or words are still refused as not a number."""
    from web.cli import build_parser
    parser = build_parser()
    for text, value in (("2,5", 2.5), ("2.5", 2.5), ("3", 3.0), ("0,75", 0.75)):
        assert parser.parse_args(["teach", "fam", "--like", "standard", "--minutes", text]).minutes == value
        assert parser.parse_args(["detect", "a.jpg", "--threshold", text]).threshold == value
    with pytest.raises(SystemExit):
        parser.parse_args(["detect", "a.jpg", "--threshold", "1,000.5"])
