#!/usr/bin/env python3
"""A stand-in for an agent CLI: records how it was invoked (argv, cwd, environment, stdin, and
$CODEX_HOME/config.toml when set) as JSON into the file FAKE_CLI_RECORD names, prints one line, exits 0.

Its settings come from fake-env.json beside the path it was invoked by (the local backend passes an
agent only an allowlist of the host's environment, so a test cannot reach a fake CLI through it),
else from the environment."""
import json
import os
import sys


def setting(name):
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "fake-env.json")
    if os.path.isfile(beside):
        with open(beside) as fh:
            value = json.load(fh).get(name)
        if value is not None:
            return value
    return os.environ.get(name)


record = {"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ), "uid": os.getuid(),
          "stdin": sys.stdin.read() if not sys.stdin.isatty() else None}
home = os.environ.get("CODEX_HOME")
if home and os.path.isfile(os.path.join(home, "config.toml")):
    record["codex_config"] = open(os.path.join(home, "config.toml")).read()
with open(setting("FAKE_CLI_RECORD"), "w") as fh:
    json.dump(record, fh)
print(json.dumps({"type": "fake", "ok": True}))
