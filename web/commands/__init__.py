"""The `warref` subcommands, one module per group; web/cli.py builds the parser from them and runs one."""
