"""``readingroom serve``: one library over HTTP for a team (app.py), with bearer tokens kept
hashed (tokens.py), request size and rate limits (limits.py), and its CLI verbs (cli.py)."""
