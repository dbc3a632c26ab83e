"""warref's application layer: the `warref` command line (and, in later issues, the FastAPI
server, the tablet dashboard and SQLite persistence)."""
