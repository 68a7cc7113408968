#!/usr/bin/env python3
"""A stand-in for an agent CLI: records how it was invoked (argv, cwd, environment, stdin, and
$CODEX_HOME/config.toml when set) as JSON into $FAKE_CLI_RECORD, prints one line, exits 0."""
import json
import os
import sys

record = {"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ), "uid": os.getuid(),
          "stdin": sys.stdin.read() if not sys.stdin.isatty() else None}
home = os.environ.get("CODEX_HOME")
if home and os.path.isfile(os.path.join(home, "config.toml")):
    record["codex_config"] = open(os.path.join(home, "config.toml")).read()
with open(os.environ["FAKE_CLI_RECORD"], "w") as fh:
    json.dump(record, fh)
print(json.dumps({"type": "fake", "ok": True}))
