"""Teaching a deck in the dashboard, in a real browser (Debian's chromium through Playwright) against
a real `warref run` whose camera is a folder of pictures of a Namikopy card lying still on a table,
played as a camera sends them (--loop --fps). Two cards are taken from the camera (one retaken),
the rest uploaded through the page's file inputs, the deck trained with its progress shown, and
then it is one of the Cards of Namikopy's set-up and the camera reads the new game with it.

Screenshots go to reports/screenshots/teach-*.png (git-ignored).
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from cardpics import namikopy_pictures, on_table
from test_browser import (CHROMIUM, PIN, ROOT, SHOTS, api, browser, pair, running, sync_api,  # noqa: F401 (browser: test_browser's fixture)
                          wait_js)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="the browser tests drive Debian's chromium, and /usr/bin/chromium is missing")
expect = sync_api.expect
FRAMES = 4


def show_card(folder: Path, card: np.ndarray, seed: int = 0) -> None:
    """The camera's folder: FRAMES pictures of ``card`` lying still (sensor noise apart), each
    replaced in one rename so the camera never reads half a picture."""
    table = on_table([card], size=(720, 960), seed=seed)
    rng = np.random.default_rng(seed)
    for k in range(FRAMES):
        frame = cv2.add(table, rng.integers(0, 3, table.shape, dtype=np.uint8))
        tmp = folder.parent / f"frame-{k}.jpg"
        cv2.imwrite(str(tmp), frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
        os.replace(tmp, folder / f"frame-{k}.jpg")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """`warref run` for Namikopy: (its address, the camera's folder, WARREF_HOME)."""
    tmp = tmp_path_factory.mktemp("teach")
    camera = tmp / "camera"
    camera.mkdir()
    show_card(camera, namikopy_pictures()["1"])
    home = tmp / "home"
    with running(["run", "--camera", str(camera), "--loop", "--fps", "4", "--game", "namikopy",
                  "--players", "Alex,Olivia"], tmp, wait=60, env={**os.environ, "WARREF_HOME": str(home)}) as base:
        yield base, camera, home


def context(chromium, base, **kw):
    ctx = chromium.new_context(base_url=base, **kw)
    pair(ctx, base)                                                          # the table's own tablet
    return ctx


def opened(ctx, hash_: str):
    pg = ctx.new_page()
    pg.set_default_timeout(15_000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto("/" + hash_)
    pg.click("#start-btn")
    return pg, errors


def no_sideways_scroll(pg) -> None:
    width = pg.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page scrolls sideways: {width}"


def shot(pg, name: str, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def test_a_deck_is_taught_from_the_camera_and_photos_then_set_up_with(browser, table, tmp_path):  # noqa: F811
    base, camera, home = table
    cards = namikopy_pictures()
    ctx = context(browser, base, viewport={"width": 1024, "height": 768})
    pg, errors = opened(ctx, "#setup")
    try:
        # set-up: Namikopy's cards are warref's own; a link teaches a new deck
        pg.click("#game-choices button[data-game=namikopy]")
        expect(pg.locator("#setup-deck")).to_have_value("namikopy")
        pg.click("#teach-link")
        expect(pg.locator("#teach-start")).to_be_visible()
        no_sideways_scroll(pg)
        shot(pg, "teach-start")
        pg.fill("#teach-name", "fam")
        pg.check("input[name=teach-like][value=namikopy]")
        # the camera's view is shown only until the card is taken, which a loaded machine's checks can
        # miss: the page notes whether it was shown
        pg.evaluate("""() => { const f = document.querySelector('#teach-camera'); window.__cameraShown = !f.hidden;
            new MutationObserver(() => { if (!f.hidden) window.__cameraShown = true; })
              .observe(f, { attributes: true, attributeFilter: ['hidden'] }); }""")
        pg.click("#teach-begin")
        # the camera: it asks for the first card and takes it once it lies still
        expect(pg.locator("#teach-prompt")).to_have_text("Show the 1")
        wait_js(pg, "window.__cameraShown === true")
        taken = pg.locator("#teach-grid .tcard[data-code='1']")
        expect(taken).to_have_class(re.compile(r"\btaken\b"), timeout=20_000)
        expect(pg.locator("#teach-taken")).to_be_visible()
        expect(pg.locator("#teach-retake")).to_be_visible()
        wait_js(pg, "document.querySelector('#teach-taken-img').naturalWidth > 0")
        assert pg.evaluate("document.querySelector('#teach-taken-img').naturalHeight") == 700
        shot(pg, "teach-camera-taken")
        # retake it: the camera takes it again, a new picture
        first = pg.locator("#teach-taken-img").get_attribute("src")
        pg.click("#teach-retake")
        expect(pg.locator("#teach-camera")).to_be_visible()
        expect(pg.locator("#teach-retake")).to_be_visible(timeout=20_000)
        assert pg.locator("#teach-taken-img").get_attribute("src") != first
        # the next card: the table now shows the 2
        show_card(camera, cards["2"], seed=1)
        pg.wait_for_timeout(1200)                    # the camera's pictures of the 1 have gone by
        pg.click("#teach-next")
        expect(pg.locator("#teach-prompt")).to_have_text("Show the 2")
        expect(pg.locator("#teach-grid .tcard[data-code='2']")).to_have_class(re.compile(r"\btaken\b"), timeout=20_000)
        no_sideways_scroll(pg)
        # the rest as photos named by their codes, one named by no code at all
        photos = tmp_path / "photos"
        photos.mkdir()
        files = []
        for code, image in cards.items():
            if code in ("1", "2", "3"):
                continue
            path = photos / (f"{code.lower()}-front.png" if code == "FLAMINGO" else f"{code}.png")
            cv2.imwrite(str(path), image)
            files.append(str(path))
        cv2.imwrite(str(photos / "queen.png"), cards["3"])
        pg.set_input_files("#teach-files", files + [str(photos / "queen.png")])
        expect(pg.locator("#teach-upload-errors")).to_contain_text("queen.png: the file name does not start with a card code")
        expect(pg.locator("#teach-count")).to_contain_text("14 of 15 cards taken")
        expect(pg.locator("#teach-grid .tcard.taken")).to_have_count(14)
        expect(pg.locator("#teach-train-btn")).to_be_disabled()
        # on to the card still missing: the camera will not take the 2, still lying there, as the 3
        expect(pg.locator("#teach-prompt")).to_have_text("Show the 3")
        expect(pg.locator("#teach-hint")).to_have_text("That is still the 2: take it away and show the 3.")
        shot(pg, "teach-cards", full=True)

        # a phone, with no camera: it asks for a photo of the card that is left, and takes it
        phone = context(browser, base, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                        device_scale_factor=2)
        try:
            ph = phone.new_page()
            ph.set_default_timeout(15_000)
            ph.route(re.compile(r"/api/camera(\?|$)"), lambda route: route.fulfill(
                json={"status": "off", "source": None, "fps": 0, "frame": None, "message": "No camera."}))
            ph.route_web_socket(re.compile(r"/ws$"), lambda ws: _without_camera(ws))
            ph.goto("/#teach")
            ph.click("#start-btn")
            expect(ph.locator("#teach-draft-list button[data-draft=fam]")).to_contain_text("14 of 15 cards")
            no_sideways_scroll(ph)
            ph.click("#teach-draft-list button[data-draft=fam]")
            expect(ph.locator("#teach-prompt")).to_have_text("Upload a photo of the 3")
            expect(ph.locator("#teach-camera")).to_be_hidden()
            no_sideways_scroll(ph)
            ph.set_input_files("#teach-file", str(photos / "queen.png"))     # the 3's picture, whatever its name
            expect(ph.locator("#teach-grid .tcard[data-code='3']")).to_have_class(re.compile(r"\btaken\b"))
            expect(ph.locator("#teach-count")).to_contain_text("15 of 15 cards taken")
            no_sideways_scroll(ph)
            shot(ph, "teach-phone", full=True)
        finally:
            phone.close()

        # train: progress, then ready (the tablet reloaded: it goes on with the deck it was teaching)
        pg.reload()
        pg.click("#start-btn")
        expect(pg.locator("#teach-count")).to_contain_text("15 of 15 cards taken")
        pg.fill("#teach-minutes", "0.05")
        expect(pg.locator("#teach-train-btn")).to_be_enabled()
        pg.click("#teach-train-btn")
        expect(pg.locator("#teach-progress")).to_be_visible()
        wait_js(pg, "document.querySelector('#teach-progress').value > 0.05", timeout=60_000)
        shot(pg, "teach-training")
        status = pg.locator("#teach-status")
        expect(status).to_contain_text("Deck fam ready: read ", timeout=180_000)
        expect(status).to_contain_text("held-back views right")
        assert pg.evaluate("document.querySelector('#teach-progress').value") == 1
        assert not (home / "teaching" / "fam").exists() and (home / "decks" / "fam" / "deck.json").is_file()
        # every card picture it learnt from, shown to look over
        expect(pg.locator("#teach-sheet")).to_be_visible()
        wait_js(pg, "document.querySelector('#teach-sheet img').naturalWidth === 13 * 131", timeout=10_000)
        shot(pg, "teach-ready")
        # the deck is among Namikopy's Cards: a game set up with it is read with it
        pg.click("#teach-use")
        expect(pg.locator("#tab-setup")).to_be_visible()
        expect(pg.locator("#game-choices button[data-game=namikopy]")).to_have_attribute("aria-checked", "true")
        expect(pg.locator("#setup-deck option[value=fam]")).to_have_count(1)
        expect(pg.locator("#setup-deck")).to_have_value("fam")
        no_sideways_scroll(pg)
        shot(pg, "teach-setup")
        pg.click("#start-game")
        expect(pg.locator("#tab-live")).to_be_visible()
        assert api(base, "/api/state")[1]["deck"] == "fam"
        end = time.time() + 30
        while api(base, "/api/decks")[1]["camera"]["deck"] != "fam" and time.time() < end:
            time.sleep(0.3)
        assert api(base, "/api/decks")[1]["camera"] == {"deck": "fam", "like": "namikopy"}
        # Woolly Warfare's Cards do not offer it
        pg.goto("/#setup")
        pg.click("#game-choices button[data-game=woolly]")
        expect(pg.locator("#setup-deck")).to_have_value("woolly")
        assert pg.locator("#setup-deck option").all_inner_texts() == ["Woolly Warfare (warref's own)"]
        expect(pg.locator("#deck-forget")).to_be_hidden()                  # warref's own cannot be forgotten
        # forgetting it: refused while the camera reads the table with it, done once a game uses other cards
        pg.click("#game-choices button[data-game=namikopy]")
        expect(pg.locator("#setup-deck")).to_have_value("fam")
        expect(pg.locator("#deck-forget")).to_be_visible()
        pg.once("dialog", lambda d: d.accept())
        pg.click("#deck-forget")
        expect(pg.locator("#setup-error")).to_contain_text("The camera is reading the table with the fam deck")
        assert (home / "decks" / "fam" / "deck.json").is_file()
        pg.select_option("#setup-deck", "namikopy")
        expect(pg.locator("#deck-forget")).to_be_hidden()
        pg.click("#start-game")
        expect(pg.locator("#tab-live")).to_be_visible()
        end = time.time() + 30
        while api(base, "/api/decks")[1]["camera"]["deck"] != "namikopy" and time.time() < end:
            time.sleep(0.3)
        pg.goto("/#setup")
        pg.click("#game-choices button[data-game=namikopy]")
        pg.select_option("#setup-deck", "fam")
        pg.once("dialog", lambda d: d.dismiss())                           # asked first: no, keep it
        pg.click("#deck-forget")
        pg.wait_for_timeout(500)
        assert (home / "decks" / "fam" / "deck.json").is_file()
        expect(pg.locator("#setup-deck option[value=fam]")).to_have_count(1)
        pg.once("dialog", lambda d: d.accept())
        pg.click("#deck-forget")
        expect(pg.locator("#toast")).to_have_text("Deck fam forgotten.")
        expect(pg.locator("#setup-deck option[value=fam]")).to_have_count(0)
        expect(pg.locator("#setup-deck")).to_have_value("namikopy")
        expect(pg.locator("#deck-forget")).to_be_hidden()
        assert not (home / "decks" / "fam").exists()
    finally:
        ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def _without_camera(ws) -> None:
    """The page's WebSocket, minus the camera's status pushes (this phone stands in for a server
    without a camera)."""
    server = ws.connect_to_server()
    server.on_message(lambda m: None if isinstance(m, str) and json.loads(m).get("type") == "camera" else ws.send(m))
