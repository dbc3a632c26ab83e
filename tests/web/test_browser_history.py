"""Issue 41 in the dashboard, in a real browser (Debian's chromium through Playwright) against the real
`warref serve`: every change carries an id and a change whose answer was lost is sent again with the
same id (and applied once); the proof list shows the newest battles and pages back the older ones."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from test_browser import (CHROMIUM, api, browser, flip, open_dashboard, page, server,  # noqa: F401 (fixtures)
                          setup_classic, sync_api)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="the browser tests drive Debian's chromium, and /usr/bin/chromium is missing")
expect = sync_api.expect


def test_a_change_whose_answer_is_lost_is_sent_again_with_its_id(page, server):  # noqa: F811 (fixtures)
    open_dashboard(page)
    setup_classic(page, clock_minutes=None)
    sent: list[dict] = []
    lost = {"done": False}

    def lose_the_first_answer(route):
        sent.append(json.loads(route.request.post_data or "{}"))
        if not lost["done"]:
            lost["done"] = True
            route.fetch()              # the server gets it and applies it ...
            route.abort("failed")      # ... and its answer never comes back
        else:
            route.continue_()

    page.route("**/api/events", lose_the_first_answer)
    flip(page, "Alex", "8S")
    end = time.monotonic() + 10
    while len(sent) < 2 and time.monotonic() < end:
        page.wait_for_timeout(50)
    assert len(sent) == 2 and sent[0]["id"] and sent[0] == sent[1], sent
    assert api(server, "/api/state")[1]["log_length"] == 1      # applied once
    page.wait_for_timeout(300)
    expect(page.locator("#entry-error")).to_be_hidden()         # and the page took the answer
    page.unroute("**/api/events")
    flip(page, "Olivia", "5H")
    expect(page.locator("#banner-text")).to_have_text("Alex's 8 beats Olivia's 5: Alex takes 2 cards.")
    undo = []
    page.on("request", lambda r: undo.append(json.loads(r.post_data or "{}")) if r.url.endswith("/api/undo") else None)
    page.click("#undo")
    expect(page.locator("#banner-kicker")).to_have_text("Undone")
    assert len(undo) == 1 and len(undo[0]["id"]) >= 16 and undo[0]["id"] != sent[0]["id"]


def test_the_proof_list_shows_the_newest_battles_and_pages_back(page, server):  # noqa: F811 (fixtures)
    open_dashboard(page)
    setup_classic(page, clock_minutes=None)
    for i in range(30):
        cards = {"Alex": "AS", "Olivia": "2H"} if i % 2 == 0 else {"Alex": "2S", "Olivia": "AH"}
        assert api(server, "/api/events", {"type": "flips", "cards": cards})[0] == 200
    page.reload()                                   # a fresh page gets the newest 20 battles
    if page.locator("#start-overlay").is_visible():
        page.click("#start-btn")
    page.goto("/#proof")
    battles = page.locator("#history li button[data-battle]")
    expect(battles).to_have_count(20)
    more = page.locator("[data-history-more]")
    expect(more).to_have_text("Show earlier battles (10 more)")
    more.click()
    expect(battles).to_have_count(30)
    expect(more).to_have_count(0)
    numbers = [int(b.get_attribute("data-battle")) for b in battles.all()]
    assert numbers == list(range(30, 0, -1))
    # a new battle pushed while the list is open: the older ones stay
    assert api(server, "/api/events", {"type": "flips", "cards": {"Alex": "KS", "Olivia": "3H"}})[0] == 200
    expect(battles).to_have_count(31)
    expect(page.locator("#history li button[data-battle='31']")).to_be_visible()
