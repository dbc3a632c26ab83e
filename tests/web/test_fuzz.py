"""Every endpoint answers bad input with a 4xx and a sentence, never a 500: schemathesis fuzzes the
dashboard's whole OpenAPI schema (paths, queries, headers), and hypothesis sends any JSON at all
to every endpoint that reads a JSON body (the schema does not describe those bodies: the routes read
them themselves to answer in sentences)."""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from web.server import create_app

PIN = "2468"
FUZZ = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))


def make_app():
    folder = Path(tempfile.mkdtemp(prefix="warref-fuzz-"))
    (folder / "static").mkdir()
    (folder / "static" / "index.html").write_text("<!doctype html><title>t</title>")
    # schemathesis' ASGI client calls itself "testserver"
    app = create_app(folder / "warref.db", PIN, static_dir=folder / "static", hosts=["testserver", "localhost"])
    with TestClient(app, base_url="http://localhost") as client:
        client.post("/api/games", content=json.dumps({"game": "classic", "players": ["Alex", "Olivia"]}),
                    headers={"X-Warref-Pin": PIN})
    return app, folder


APP, FOLDER = make_app()
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module")
def app():
    yield APP
    shutil.rmtree(FOLDER, ignore_errors=True)


@schema.parametrize()
@FUZZ
def test_no_request_the_schema_allows_gets_a_server_error(case):
    answer = case.call(headers={"X-Warref-Pin": PIN})
    assert answer.status_code < 500, (case.method, case.formatted_path, answer.text[:300])
    if answer.status_code >= 400:
        detail = json.loads(answer.text).get("detail")
        assert isinstance(detail, str) and detail.strip(), answer.text[:300]


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
                    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
                    max_leaves=20)
FIELDS = st.fixed_dictionaries({}, optional={
    "type": st.sampled_from(["flip", "down", "undo", "recount", "time_up", "action", "choice", "battle", "x"]),
    "seat": st.sampled_from(["Alex", "Olivia", "", "Nobody", 3]), "card": st.sampled_from(["8S", "QH", "JOKER", "ZZ", 1]),
    "count": JSON, "game": st.sampled_from(["classic", "woolly", "casino", "namikopy", "guerra", "chess", 7]),
    "players": JSON, "options": JSON, "clock_minutes": JSON, "minutes": JSON, "action": JSON, "seq": JSON,
    "event": JSON, "seats": JSON, "deck": JSON, "name": JSON, "like": JSON, "id": JSON})
BODIES = FIELDS | JSON
CHANGES = [("POST", "/api/games"), ("POST", "/api/events"), ("POST", "/api/corrections"), ("POST", "/api/clock"),
           ("PUT", "/api/zones"), ("POST", "/api/pair"), ("POST", "/api/teach"), ("POST", "/api/undo")]


@pytest.mark.parametrize("method,path", CHANGES)
def test_any_json_body_gets_a_sentence_never_a_server_error(app, method, path, tmp_path, monkeypatch):
    monkeypatch.setenv("WARREF_HOME", str(tmp_path / "home"))          # drafts of decks go there
    client = TestClient(app, base_url="http://localhost")

    @given(body=BODIES)
    @FUZZ
    def send(body):
        answer = client.request(method, path, content=json.dumps(body), headers={"X-Warref-Pin": PIN})
        assert answer.status_code < 500, (body, answer.text[:300])
        if answer.status_code >= 400:
            assert isinstance(answer.json().get("detail"), str), (body, answer.text[:300])

    send()
