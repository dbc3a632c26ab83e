"""Who may call each route of the dashboard's API is said by the route's dependencies (web/server.py:
``paired``, ``pin_given``), and they add nothing to the OpenAPI schema that tests/web/test_fuzz.py walks."""
from __future__ import annotations

import re

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from web.server import PIN_SENTENCE, create_app

PIN = "2468"


@pytest.fixture
def app(tmp_path):
    (tmp_path / "static").mkdir()
    return create_app(tmp_path / "warref.db", PIN, static_dir=tmp_path / "static", hosts=["*"])


def dashboard_routes(app) -> list[APIRoute]:
    """The dashboard's own routes (Guerra rooms have seat tokens instead: web/rooms_api.py)."""
    return [r for r in app.routes if isinstance(r, APIRoute) and not r.path.startswith(("/api/rooms", "/room"))]


def guarded(route: APIRoute) -> bool:
    return any(d.call.__name__ in ("paired", "pin_given") for d in route.dependant.dependencies)


def test_every_change_needs_a_paired_device_or_the_pin(app):
    routes = dashboard_routes(app)
    changes = [r for r in routes if r.methods - {"GET", "HEAD"} or r.path == "/api/devices"]
    assert len(changes) >= 15
    assert [r.path for r in changes if not guarded(r)] == []
    assert [r.path for r in routes if r not in changes and guarded(r)] == []     # reading needs no PIN
    with TestClient(app, base_url="http://localhost") as client:
        for route in changes:
            for method in route.methods:
                path = re.sub(r"\{[^}]+\}", "1", route.path)
                answer = client.request(method, path, content=b'{"game": "classic", "players": ["A", "B"]}')
                assert (answer.status_code, answer.json()) == \
                    (401, {"detail": PIN_SENTENCE, "detail_msg": {"id": PIN_SENTENCE, "args": {}}}), (method, path)


def test_the_dependencies_add_nothing_to_the_schema(app):
    """The PIN and the JSON body are read by the dependencies themselves, so no route's schema asks for a
    header or a body: the fuzz test sends no X-Warref-Pin header or body the schema would require."""
    schema = app.openapi()
    for path, operations in schema["paths"].items():
        if path.startswith("/api/rooms"):
            continue
        for method, op in operations.items():
            assert "requestBody" not in op, (method, path)
            assert all(p["in"] in ("path", "query") for p in op.get("parameters", [])), (method, path)
