"""warref's application layer: what people use.

- the `warref` command line: web/cli.py (the parser and ``main``) and web/commands/, one module per
  command group;
- the tablet dashboard's server (web/server.py: FastAPI's routes and its WebSocket; web/keeper.py:
  the current game, held in memory (web/session.py) and in SQLite through web/store.py; web/hub.py:
  the pushes to every page; web/bodies.py: request bodies), who may change it (web/guard.py),
  teaching warref a deck (web/teach.py), the camera loop (web/live.py) and its demo (web/demo.py);
- the Guerra phone rooms (web/rooms.py, their routes web/rooms_api.py, Redis across processes
  web/rooms_redis.py);
- the pages themselves, static files with no build step (web/static/).
"""
