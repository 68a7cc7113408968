"""Probe the CLI with bad inputs and write docs/reliability.md.

Every probe runs the real `gauntlet` CLI in a subprocess (from this checkout) against a scratch copy
of the fixture suite, a scratch agent file or a scratch run dir, and records the exit code and the
line that explains the refusal. A probe fails when the CLI exits 0, prints a traceback, or says
nothing. Usage:

    python scripts/probe_inputs.py [--out docs/reliability.md] [--jobs 2]

Exit 1 if any probe failed.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "tasks"
SCALE = "triton2triton/scale"
TIMEOUT_S = 300
NOTES_MARKER = "<!-- notes below are written by hand and kept when probe_inputs.py rewrites the table -->"


@dataclass
class Probe:
    name: str                               # what is wrong, for the table
    args: list[str]                         # CLI arguments; {root} {agent} {run} {tmp} are filled in
    setup: object = None                    # fn(Case) run before the CLI: breaks a file
    env: dict = field(default_factory=dict)
    accepted: str = ""                      # why the CLI rightly runs this one (exit 0 is then the pass)


@dataclass
class Case:
    tmp: Path
    root: Path                              # a private copy of the fixture suite
    agent: Path                             # a private agent file (valid until setup breaks it)
    run: Path                               # a finished noop run of SCALE (made on demand)

    @property
    def task(self) -> Path:
        return self.root / SCALE


# -- helpers that break one thing --------------------------------------------------------------
def replace(rel: str, old: str, new: str):
    def setup(c: Case):
        path = c.task / rel
        text = path.read_text()
        assert old in text, (rel, old)
        path.write_text(text.replace(old, new, 1))
    return setup


def append(rel: str, text: str):
    def setup(c: Case):
        path = c.task / rel
        path.write_text(path.read_text() + text)
    return setup


def write(rel: str, data: str | bytes):
    def setup(c: Case):
        path = c.task / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return setup


def remove(rel: str):
    return lambda c: (c.task / rel).unlink()


def link_out(rel: str):
    def setup(c: Case):
        outside = c.tmp / "outside.txt"
        outside.write_text("host file\n")
        (c.task / rel).unlink()
        (c.task / rel).symlink_to(outside)
    return setup


AGENT_HEAD = 'name = "mine"\nkind = "command"\ncommand = "true"\n'


def agent(text: str | bytes, head: str = AGENT_HEAD):
    def setup(c: Case):
        data = head.encode() + (text if isinstance(text, bytes) else text.encode())
        c.agent.write_bytes(data)
    return setup


def make_run(c: Case) -> None:
    proc = subprocess.run(_cli("run", "--agent", "noop", "--tasks", SCALE, "--tasks-root", str(c.root),
                               "--device", "cpu", "--out", str(c.run), "--budget", "60"),
                          capture_output=True, text=True, cwd=REPO, timeout=TIMEOUT_S,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    if proc.returncode != 0:
        raise RuntimeError(f"could not make a run to break: {proc.stderr[-400:]}")


def run_then(breaker):
    def setup(c: Case):
        make_run(c)
        breaker(c)
    return setup


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "runner.cli", *args]


# -- the probes -----------------------------------------------------------------------------------
VALIDATE = ["tasks", "validate", "--load-only", "--tasks-root", "{root}"]
VALIDATE_RUN = ["tasks", "validate", "--tasks-root", "{root}"]
RUN = ["run", "--tasks", SCALE, "--tasks-root", "{root}", "--device", "cpu", "--out", "{tmp}/out"]
RUN_MINE = RUN + ["--agent", "{agent}"]
RESUME = RUN[:-2] + ["--agent", "noop", "--out", "{run}", "--resume", "--budget", "60"]   # make_run's options


def probes() -> list[Probe]:
    p: list[Probe] = []
    # task.toml
    for key in ("id", "category", "platforms", "description"):
        p.append(Probe(f"task.toml: `{key}` missing", VALIDATE,
                       lambda c, key=key: _drop_line(c.task / "task.toml", f"{key} =")))
    p += [
        Probe("task.toml: unknown top-level key", VALIDATE, _prepend("task.toml", "speed = 3\n")),
        Probe("task.toml: not valid TOML", VALIDATE, append("task.toml", "\n[[[\n")),
        Probe("task.toml: empty file", VALIDATE, write("task.toml", "")),
        Probe("task.toml: not UTF-8", VALIDATE,
              lambda c: (c.task / "task.toml").write_bytes((c.task / "task.toml").read_bytes().replace(b'"', b'"\xff', 1))),
        Probe("task.toml: missing", VALIDATE, remove("task.toml")),
        Probe("task.toml: id does not match the folder", VALIDATE, replace("task.toml", SCALE, "triton2triton/other")),
        Probe("task.toml: unknown category", VALIDATE, replace("task.toml", 'category = "triton2triton"',
                                                               'category = "rust2rust"')),
        Probe("task.toml: platforms is a string", VALIDATE, _sub_line("platforms", 'platforms = "cpu"')),
        Probe("task.toml: unknown platform", VALIDATE, _sub_line("platforms", 'platforms = ["tpu"]')),
        Probe("task.toml: description is a number", VALIDATE, _sub_line("description", "description = 3")),
        Probe("task.toml: editable path escapes the folder", VALIDATE,
              replace("task.toml", 'editable = ["kernel.py"]', 'editable = ["../../x.py"]')),
        Probe("task.toml: editable path is absolute", VALIDATE,
              replace("task.toml", 'editable = ["kernel.py"]', 'editable = ["/etc/passwd"]')),
        Probe("task.toml: reference is editable", VALIDATE,
              replace("task.toml", 'editable = ["kernel.py"]', 'editable = ["kernel.py", "reference.py"]')),
        Probe("task.toml: no editable path", VALIDATE, replace("task.toml", 'editable = ["kernel.py"]', "editable = []")),
        Probe("task.toml: workspace file missing", VALIDATE, remove("kernel.py")),
        Probe("task.toml: editable file links out of the task", VALIDATE, link_out("kernel.py")),
        Probe("task.toml: reference links out of the task", VALIDATE, link_out("reference.py")),
        Probe("task.toml: reference file missing", VALIDATE, remove("reference.py")),
        Probe("task.toml: symbol not an identifier", VALIDATE, replace("task.toml", 'symbol = "forward"',
                                                                       'symbol = "for ward"')),
        Probe("task.toml: unknown [candidate] key", VALIDATE, replace("task.toml", 'symbol = "forward"',
                                                                      'symbol = "forward"\nspeed = 1')),
        Probe("task.toml: hidden configs missing", VALIDATE, remove("hidden/configs.toml")),
        Probe("task.toml: hidden configs copied into the workspace", VALIDATE,
              replace("task.toml", '"kernel.py",', '"kernel.py", "hidden/configs.toml",')),
        Probe("task.toml: extends an unknown task", VALIDATE, _prepend("task.toml", 'extends = "nope/none"\n')),
        Probe("task.toml: extends itself", VALIDATE, _prepend("task.toml", f'extends = "{SCALE}"\n')),
        Probe("task.toml: tolerance for an unknown dtype", VALIDATE,
              append("task.toml", "\n[tolerance.float8]\natol = 1\nrtol = 1\n")),
        Probe("task.toml: tolerance without rtol", VALIDATE, append("task.toml", "\n[tolerance.float32]\natol = 1\n")),
        Probe("task.toml: solution folder missing", VALIDATE, lambda c: shutil.rmtree(c.task / "solution")),
        Probe("task.toml: [space] without max_elements", VALIDATE, _space("[space]\n[space.shape.n]\nmin = 1\nmax = 9\n")),
        Probe("task.toml: [space] dim min > max", VALIDATE,
              _space("[space]\nmax_elements = 100\n[space.shape.n]\nmin = 9\nmax = 1\n")),
        Probe("task.toml: [space] unknown dim key", VALIDATE,
              _space("[space]\nmax_elements = 100\n[space.shape.n]\nmin = 1\nmax = 9\nstep = 2\n")),
        Probe("task.toml: is a folder", VALIDATE, lambda c: (_unlink(c.task / "task.toml"), (c.task / "task.toml").mkdir())),
        Probe("task.toml: id is a number", VALIDATE, _sub_line("id", "id = 3")),
        Probe("task.toml: platforms empty", VALIDATE, _sub_line("platforms", "platforms = []")),
        Probe("task.toml: seen configs link out of the task", VALIDATE, link_out("configs.toml")),
        Probe("task.toml: hidden configs link out of the task", VALIDATE, link_out("hidden/configs.toml")),
        Probe("task.toml: editable file is a dangling symlink", VALIDATE,
              lambda c: (_unlink(c.task / "kernel.py"), (c.task / "kernel.py").symlink_to(c.task / "gone.py"))),
        Probe("task.toml: editable file is a folder", VALIDATE,
              lambda c: (_unlink(c.task / "kernel.py"), (c.task / "kernel.py").mkdir())),
        Probe("task.toml: candidate.entry not editable", VALIDATE,
              replace("task.toml", 'entry = "kernel.py"', 'entry = "reference.py"')),
        Probe("task.toml: reference.module missing", VALIDATE,
              replace("task.toml", 'module = "reference.py"', 'module = "nope.py"')),
        Probe("task.toml: configs.seen is a number", VALIDATE,
              replace("task.toml", 'seen = "configs.toml"', "seen = 3")),
        Probe("task.toml: tolerance atol negative", VALIDATE,
              append("task.toml", "\n[tolerance.float32]\natol = -1\nrtol = 1\n")),
        Probe("task.toml: tolerance rtol a string", VALIDATE,
              append("task.toml", '\n[tolerance.float32]\natol = 0.1\nrtol = "tight"\n')),
        Probe("task.toml: [space] dim max a string", VALIDATE,
              _space('[space]\nmax_elements = 100\n[space.shape.n]\nmin = 1\nmax = "9"\n')),
        Probe("task.toml: [space.fixed] choice list empty", VALIDATE,
              _space("[space]\nmax_elements = 100\n[space.shape.n]\nmin = 1\nmax = 9\n[space.fixed]\nalpha = []\n")),
        Probe("task.toml: [space] zero max_elements", VALIDATE,
              _space("[space]\nmax_elements = 0\n[space.shape.n]\nmin = 1\nmax = 9\n")),
    ]
    # configs
    for rel in ("configs.toml", "hidden/configs.toml"):
        p += [
            Probe(f"{rel}: not valid TOML", VALIDATE, append(rel, "\n[[[\n")),
            Probe(f"{rel}: no [[config]]", VALIDATE, write(rel, "")),
            Probe(f"{rel}: config without a name", VALIDATE, write(rel, "[[config]]\nn = 3\n")),
            Probe(f"{rel}: duplicate config name", VALIDATE,
                  write(rel, '[[config]]\nname = "a"\nn = 3\n[[config]]\nname = "a"\nn = 4\n')),
            Probe(f"{rel}: config value is a table", VALIDATE, write(rel, '[[config]]\nname = "a"\nn = {x = 1}\n')),
            Probe(f"{rel}: unknown top-level key", VALIDATE, _prepend(rel, "other = 1\n")),
            Probe(f"{rel}: not UTF-8", VALIDATE, write(rel, b'[[config]]\nname = "\xff"\n')),
            Probe(f"{rel}: [config] a table, not an array", VALIDATE, write(rel, '[config]\nname = "a"\nn = 3\n')),
            Probe(f"{rel}: config name empty", VALIDATE, write(rel, '[[config]]\nname = ""\nn = 3\nalpha = 1.0\n')),
            Probe(f"{rel}: is a folder", VALIDATE, lambda c, rel=rel: (_unlink(c.task / rel), (c.task / rel).mkdir())),
        ]
    p.append(Probe("hidden config named like a seen one", VALIDATE, write("hidden/configs.toml",
                                                                         '[[config]]\nname = "small"\nn = 5\nalpha = 1.0\n')))
    # references (validate runs them on the CPU)
    p += [
        Probe("reference.py raises at import", VALIDATE_RUN, write("reference.py", "raise ImportError('helpers')\n")),
        Probe("reference.py has a syntax error", VALIDATE_RUN, write("reference.py", "def make_inputs(:\n")),
        Probe("reference.py has no make_inputs", VALIDATE_RUN, write("reference.py", "def reference(x, a):\n    return x\n")),
        Probe("make_inputs returns a string", VALIDATE_RUN, write(
            "reference.py", "def make_inputs(c, g, d):\n    return ['x']\ndef reference(x):\n    return x\n")),
        Probe("reference() returns a string", VALIDATE_RUN, write(
            "reference.py", "import torch\ndef make_inputs(c, g, d):\n    return [torch.ones(2)]\n"
                            "def reference(x):\n    return 'x'\n")),
        Probe("reference.py not UTF-8", VALIDATE_RUN, write("reference.py", b"# \xff\xfe\ndef make_inputs(:\n")),
        Probe("solution kernel raises at import", VALIDATE_RUN, write("solution/kernel.py", "raise RuntimeError('x')\n")),
        Probe("solution kernel has no forward", VALIDATE_RUN, write("solution/kernel.py", "def other(x, a):\n    return x\n")),
        Probe("reference.py exits the process", VALIDATE_RUN, write("reference.py", "import os\nos._exit(3)\n")),
    ]
    # agent files
    p += [
        Probe("agent: gateway = \"yes\"", RUN_MINE, agent('gateway = "yes"\n')),
        Probe("agent: env.set integer", RUN_MINE, agent("[env]\nset = { RETRIES = 3 }\n")),
        Probe("agent: env.required a string", RUN_MINE, agent('[env]\nrequired = "KEY"\n')),
        Probe("agent: unknown [env] key", RUN_MINE, agent('[env]\npass = ["X"]\n')),
        Probe("agent: unknown [gateway] key", RUN_MINE, agent('[gateway]\nprotocol = "anthropic"\nupstreem = "x"\n')),
        Probe("agent: unknown gateway protocol", RUN_MINE, agent('[gateway]\nprotocol = "grpc"\n')),
        Probe("agent: gateway without protocol", RUN_MINE, agent('[gateway]\nupstream = "https://x"\n')),
        Probe("agent: unknown parser", RUN_MINE, agent('parser = "yaml"\n')),
        Probe("agent: unknown top-level key", RUN_MINE, agent("timeout = 5\n")),
        Probe("agent: unknown kind", RUN_MINE, agent("", 'name = "mine"\nkind = "robot"\n')),
        Probe("agent: kind missing", RUN_MINE, agent("", 'name = "mine"\n')),
        Probe("agent: name differs from the file", RUN_MINE, agent("", 'name = "other"\nkind = "noop"\n')),
        Probe("agent: command is a list", RUN_MINE, agent("", 'name = "mine"\nkind = "command"\ncommand = ["true"]\n')),
        Probe("agent: command agent without command", RUN_MINE, agent("", 'name = "mine"\nkind = "command"\n')),
        Probe("agent: bad placeholder", RUN_MINE, agent("", 'name = "mine"\nkind = "command"\ncommand = "x {nope}"\n')),
        Probe("agent: description a number", RUN_MINE, agent("description = 3\n")),
        Probe("agent: cli a list", RUN_MINE, agent('cli = ["x"]\n')),
        Probe("agent: not valid TOML", RUN_MINE, agent("[[[\n")),
        Probe("agent: not UTF-8", RUN_MINE, agent(b'description = "\xff"\n')),
        Probe("agent: file missing", ["run", "--agent", "{tmp}/none.toml", "--tasks", SCALE, "--tasks-root", "{root}",
                                      "--device", "cpu"]),
        Probe("agent: file is a folder", ["run", "--agent", "{tmp}/dir.toml", "--tasks", SCALE, "--tasks-root", "{root}",
                                           "--device", "cpu", "--out", "{tmp}/out"], lambda c: (c.tmp / "dir.toml").mkdir()),
        Probe("agent: file is a dangling symlink", ["run", "--agent", "{tmp}/dangling.toml", "--tasks", SCALE,
                                                    "--tasks-root", "{root}", "--device", "cpu", "--out", "{tmp}/out"],
              lambda c: (c.tmp / "dangling.toml").symlink_to(c.tmp / "gone.toml")),
        Probe("agent: empty file", RUN_MINE, agent("", "")),
        Probe("agent: name missing", RUN_MINE, agent("", 'kind = "noop"\n')),
        Probe("agent: parser a number", RUN_MINE, agent("parser = 3\n")),
        Probe("agent: env.set a list", RUN_MINE, agent('[env]\nset = ["A=1"]\n')),
        Probe("agent: gateway.upstream a number", RUN_MINE, agent('[gateway]\nprotocol = "anthropic"\nupstream = 3\n')),
        Probe("agent: CLI not installed", RUN_MINE, agent('cli = "no-such-agent-cli-xyz"\n')),
        Probe("agent: required key not set", RUN_MINE, agent('[env]\nrequired = ["GAUNTLET_PROBE_UNSET_KEY"]\n')),
    ]
    # run options
    run_noop = RUN + ["--agent", "noop"]
    p += [
        Probe("--agent unknown name", RUN + ["--agent", "nobody"]),
        Probe("--budget 0", run_noop + ["--budget", "0"]),
        Probe("--budget -5", run_noop + ["--budget", "-5"]),
        Probe("--budget abc", run_noop + ["--budget", "abc"]),
        Probe("--budget 3y", run_noop + ["--budget", "3y"]),
        Probe("--max-speedup nan", run_noop + ["--max-speedup", "nan"]),
        Probe("--max-speedup inf", run_noop + ["--max-speedup", "inf"]),
        Probe("--max-speedup 0", run_noop + ["--max-speedup", "0"]),
        Probe("--max-speedup abc", run_noop + ["--max-speedup", "abc"]),
        Probe("--device gpu", run_noop + ["--device", "gpu"]),
        Probe("--device cuda on a host without one", RUN[:-2] + ["--out", "{tmp}/out", "--agent", "noop",
                                                                 "--device", "cuda"]),
        Probe("--device rocm on a host without one", run_noop + ["--device", "rocm"]),
        Probe("--backend k8s", run_noop + ["--backend", "k8s"]),
        Probe("--backend docker, no engine", run_noop + ["--backend", "docker"],
              env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"}),
        Probe("--backend docker, image missing", run_noop + ["--backend", "docker"],
              env={"GAUNTLET_IMAGE_CPU": "gauntlet-probe-missing:0"}),
        Probe("--unseen -1", run_noop + ["--unseen", "-1"]),
        Probe("--unseen on a task without [space]", run_noop + ["--unseen", "2"], _space("")),
        Probe("--max-speedup -1", run_noop + ["--max-speedup", "-1"]),
        Probe("--jobs 0", run_noop + ["--jobs", "0"]),
        Probe("--attempts 0", run_noop + ["--attempts", "0"]),
        Probe("--gpus 7 on the cpu", run_noop + ["--gpus", "7"], accepted="--gpus names evaluation slots on the CPU too"),
        Probe("--ray-resource without --executor ray", run_noop + ["--ray-resource", "TPU=1"]),
        Probe("--ray-resource not NAME=AMOUNT", run_noop + ["--executor", "ray", "--ray-resource", "TPU"]),
        Probe("--executor spark", run_noop + ["--executor", "spark"]),
        Probe("--tasks empty string", RUN[:2] + ["", "--tasks-root", "{root}", "--device", "cpu", "--agent", "noop",
                                                "--out", "{tmp}/out"], accepted="an empty selector selects all, as no --tasks does"),
        Probe("--seed abc", run_noop + ["--seed", "abc"]),
        Probe("--timing-regime hot", run_noop + ["--timing-regime", "hot"]),
        Probe("--max-turns 0", run_noop + ["--max-turns", "0"]),
        Probe("--api-retries -1", run_noop + ["--api-retries", "-1"]),
        Probe("--tasks unknown", ["run", "--agent", "noop", "--tasks", "nope", "--tasks-root", "{root}", "--device", "cpu"]),
        Probe("--tasks bare name (softmax)", ["run", "--agent", "noop", "--tasks", "softmax", "--device", "cpu",
                                             "--out", "{tmp}/out"]),
        Probe("--tasks-root missing", ["run", "--agent", "noop", "--tasks-root", "{tmp}/none", "--device", "cpu"]),
        Probe("--tasks-root empty", ["run", "--agent", "noop", "--tasks-root", "{tmp}/empty", "--device", "cpu"],
              lambda c: (c.tmp / "empty").mkdir()),
        Probe("--tasks-root is a file", ["run", "--agent", "noop", "--tasks-root", "{agent}", "--device", "cpu"]),
        Probe("--out is a file", RUN[:-2] + ["--agent", "noop", "--out", "{agent}"]),
        Probe("--out cannot be created (/proc)", RUN[:-2] + ["--agent", "noop", "--out", "/proc/gauntlet-probe-out"]),
        Probe("--out holds a finished run, no --resume", RUN[:-2] + ["--agent", "noop", "--out", "{run}"], run_then(lambda c: None)),
        Probe("--out under a file", RUN[:-2] + ["--agent", "noop", "--out", "{agent}/x"]),
        Probe("--resume without --out", ["run", "--agent", "noop", "--tasks", SCALE, "--tasks-root", "{root}",
                                         "--device", "cpu", "--resume"]),
        Probe("--resume on a folder with no run", run_noop + ["--resume"], lambda c: (c.tmp / "out").mkdir()),
        Probe("replay without --replay-from", RUN + ["--agent", "replay"]),
        Probe("--replay-from missing", RUN + ["--agent", "replay", "--replay-from", "{tmp}/none.patch"]),
        Probe("--command with a bad placeholder", RUN + ["--agent", "command", "--command", "x {nope}"]),
        Probe("--replay-from a folder with no run", RUN + ["--agent", "replay", "--replay-from", "{tmp}/empty"],
              lambda c: (c.tmp / "empty").mkdir()),
        Probe("--replay-from a file that is not a patch", RUN + ["--agent", "replay", "--replay-from", "{agent}"]),
        Probe("--command empty", RUN + ["--agent", "command", "--command", ""]),
        Probe("command agent without --command", RUN + ["--agent", "command"]),
    ]
    # eval / report / tasks / agents / images
    p += [
        Probe("eval: folder missing", ["eval", "{tmp}/none", "--device", "cpu"]),
        Probe("eval: folder with no run", ["eval", "{tmp}", "--device", "cpu", "--tasks-root", "{root}"]),
        Probe("eval: corrupt manifest.json", ["eval", "{run}", "--device", "cpu", "--tasks-root", "{root}"],
              run_then(lambda c: (c.run / "manifest.json").write_text("{nope"))),
        Probe("eval: corrupt result.json", ["eval", "{run}", "--device", "cpu", "--tasks-root", "{root}"],
              run_then(lambda c: next(c.run.glob("attempts/*/result.json")).write_text("[1"))),
        Probe("eval: diff.patch missing", ["eval", "{run}", "--device", "cpu", "--tasks-root", "{root}"],
              run_then(lambda c: next(c.run.glob("attempts/*/diff.patch")).unlink())),
        Probe("eval: --device cuda on a host without one", ["eval", "{run}", "--device", "cuda", "--tasks-root", "{root}"],
              run_then(lambda c: None)),
        Probe("eval: empty --tasks-root", ["eval", "{run}", "--device", "cpu", "--tasks-root", "{tmp}/empty"],
              run_then(lambda c: (c.tmp / "empty").mkdir())),
        Probe("eval: manifest.json is a list", ["eval", "{run}", "--device", "cpu", "--tasks-root", "{root}"],
              run_then(lambda c: (c.run / "manifest.json").write_text("[]"))),
        Probe("eval: manifest.json not UTF-8", ["eval", "{run}", "--device", "cpu", "--tasks-root", "{root}"],
              run_then(lambda c: (c.run / "manifest.json").write_bytes(b'{"a": "\xff"}'))),
        Probe("eval: result.json is a number", ["eval", "{run}", "--device", "cpu", "--tasks-root", "{root}"],
              run_then(lambda c: _first(c, "result.json").write_text("3"))),
        Probe("eval: diff.patch is not a patch", ["eval", "{run}", "--device", "cpu", "--tasks-root", "{root}"],
              run_then(lambda c: _first(c, "diff.patch").write_text("diff --git a/kernel.py b/kernel.py\n@@ junk\n"))),
        Probe("eval: task gone from --tasks-root", ["eval", "{run}", "--device", "cpu", "--tasks-root", "{root}"],
              run_then(lambda c: shutil.rmtree(c.task))),
        Probe("resume: corrupt manifest.json", RESUME,
              run_then(lambda c: (c.run / "manifest.json").write_text("{nope"))),
        Probe("resume: manifest.json is a list", RESUME,
              run_then(lambda c: (c.run / "manifest.json").write_text("[]"))),
        Probe("resume: manifest.json an empty object", RESUME,
              run_then(lambda c: (c.run / "manifest.json").write_text("{}"))),
        Probe("resume: corrupt result.json", RESUME,
              run_then(lambda c: _first(c, "result.json").write_text("[1")),
              accepted="an unreadable result is an unfinished attempt: redone, and a warning line names the file"),
        Probe("resume: result.json is a list", RESUME,
              run_then(lambda c: _first(c, "result.json").write_text("[]")),
              accepted="an unreadable result is an unfinished attempt: redone, and a warning line names the file"),
        Probe("resume: with another --budget", RUN[:-2] + ["--agent", "noop", "--out", "{run}", "--resume", "--budget", "90"],
              run_then(lambda c: None)),
        Probe("resume: with another agent", RUN[:-2] + ["--agent", "oracle", "--out", "{run}", "--resume", "--budget", "60"],
              run_then(lambda c: None)),
        Probe("resume: with another --device", ["run", "--tasks", SCALE, "--tasks-root", "{root}", "--device", "cuda",
                                                 "--agent", "noop", "--out", "{run}", "--resume"], run_then(lambda c: None)),
        Probe("report: folder with no run", ["report", "{tmp}"]),
        Probe("report: corrupt manifest.json", ["report", "{run}"],
              run_then(lambda c: (c.run / "manifest.json").write_text("{nope")),
              accepted="report reads only the attempts' result.json, never manifest.json"),
        Probe("report: manifest.json is a list", ["report", "{run}"],
              run_then(lambda c: (c.run / "manifest.json").write_text("[]")),
              accepted="report reads only the attempts' result.json, never manifest.json"),
        Probe("report: corrupt result.json", ["report", "{run}"],
              run_then(lambda c: _first(c, "result.json").write_text("[1"))),
        Probe("report: result.json is a string", ["report", "{run}"],
              run_then(lambda c: _first(c, "result.json").write_text('"x"'))),
        Probe("report: result.json not UTF-8", ["report", "{run}"],
              run_then(lambda c: _first(c, "result.json").write_bytes(b'{"a": "\xff"}'))),
        Probe("report: result.json missing fields", ["report", "{run}"],
              run_then(lambda c: _first(c, "result.json").write_text("{}"))),
        Probe("report: folder missing", ["report", "{tmp}/none"]),
        Probe("report: no run dirs", ["report"]),
        Probe("report: --format xml", ["report", "{tmp}", "--format", "xml"]),
        Probe("tasks show: bare name", ["tasks", "show", "softmax"]),
        Probe("tasks show: misspelt id", ["tasks", "show", "cuda2cuda/sofmax"]),
        Probe("tasks show: missing --tasks-root", ["tasks", "show", SCALE, "--tasks-root", "{tmp}/none"]),
        Probe("tasks list: unknown selector", ["tasks", "list", "softmx"]),
        Probe("tasks validate: empty --tasks-root", ["tasks", "validate", "--tasks-root", "{tmp}/empty"],
              lambda c: (c.tmp / "empty").mkdir()),
        Probe("agents check: unknown agent", ["agents", "check", "nobody"]),
        Probe("agents check: --budget abc", ["agents", "check", "noop", "--budget", "abc"]),
        Probe("tasks show: --tasks-root is a file", ["tasks", "show", SCALE, "--tasks-root", "{agent}"]),
        Probe("tasks validate: unknown selector", ["tasks", "validate", "--tasks-root", "{root}", "nope/none"]),
        Probe("agents check: --budget 0", ["agents", "check", "noop", "--budget", "0"]),
        Probe("agents check: --backend k8s", ["agents", "check", "noop", "--backend", "k8s"]),
        Probe("agents check: --script missing", ["agents", "check", "noop", "--script", "{tmp}/none.toml"]),
        Probe("images build: --wheelhouse missing", ["images", "build", "cpu", "--wheelhouse", "{tmp}/none"]),
        Probe("doctor: --device tpu", ["doctor", "--device", "tpu"]),
        Probe("images build: --build-arg without =", ["images", "build", "cpu", "--build-arg", "NOEQUALS"]),
        Probe("images build: unknown platform", ["images", "build", "tpu"]),
        Probe("unknown command", ["frobnicate"]),
    ]
    return p


def _unlink(path: Path) -> None:
    path.unlink()


def _first(c: Case, name: str) -> Path:
    """The run's one attempt's file (the run has one task, one attempt)."""
    return next(c.run.glob(f"attempts/*/{name}"))


def _drop_line(path: Path, prefix: str) -> None:
    path.write_text("".join(line for line in path.read_text().splitlines(keepends=True)
                            if not line.startswith(prefix)))


def _sub_line(key: str, new: str):
    def setup(c: Case):
        path = c.task / "task.toml"
        lines = path.read_text().splitlines()
        path.write_text("\n".join(new if line.startswith(f"{key} =") else line for line in lines) + "\n")
    return setup


def _prepend(rel: str, text: str):
    def setup(c: Case):
        path = c.task / rel
        path.write_text(text + path.read_text())
    return setup


def _space(table: str):
    def setup(c: Case):
        path = c.task / "task.toml"
        text = path.read_text()
        if "[space]" in text:
            text = text[:text.index("[space]")]
        path.write_text(text + "\n" + table)
    return setup


# -- running and reporting ----------------------------------------------------------------------
@dataclass
class Outcome:
    probe: Probe
    exit_code: int
    message: str
    traceback: bool

    @property
    def ok(self) -> bool:
        if self.probe.accepted:
            return self.exit_code == 0 and not self.traceback
        return self.exit_code not in (0, None) and not self.traceback and bool(self.message)


def _message(stderr: str, stdout: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error:")]
    chosen = errors[0] if errors else (lines[0] if lines else (stdout.strip().splitlines() or [""])[0])
    return chosen


def run_probe(probe: Probe, scratch: Path) -> Outcome:
    tmp = Path(tempfile.mkdtemp(dir=scratch))
    case = Case(tmp=tmp, root=tmp / "tasks", agent=tmp / "mine.toml", run=tmp / "run")
    shutil.copytree(FIXTURES, case.root)
    case.agent.write_text(AGENT_HEAD)
    try:
        if probe.setup:
            probe.setup(case)
    except Exception as exc:  # a probe that cannot be set up is reported, not hidden
        return Outcome(probe, -1, f"probe setup failed: {type(exc).__name__}: {exc}", True)
    # str.replace, not str.format: some probes pass literal braces ("x {nope}") on purpose
    fills = {"{root}": case.root, "{agent}": case.agent, "{run}": case.run, "{tmp}": tmp}
    args = [_fill(a, fills) for a in probe.args]
    # cwd and PYTHONPATH: this checkout's runner, whatever the interpreter has installed
    env = {**os.environ, "COLUMNS": "200", "PYTHONPATH": str(REPO), **probe.env}
    try:
        proc = subprocess.run(_cli(*args), capture_output=True, text=True, cwd=REPO, env=env, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return Outcome(probe, 124, f"no answer in {TIMEOUT_S} s", False)
    message = _message(proc.stderr, proc.stdout).replace(str(tmp), "$TMP")
    return Outcome(probe, proc.returncode, message, "Traceback (most recent call last)" in proc.stderr)


def _fill(arg: str, fills: dict) -> str:
    for key, value in fills.items():
        arg = arg.replace(key, str(value))
    return arg


def _command(probe: Probe) -> str:
    """The command as a user types it, with the scratch paths named as placeholders."""
    fills = {"{root}": "$TMP/tasks", "{agent}": "$TMP/mine.toml", "{run}": "$TMP/run", "{tmp}": "$TMP"}
    words = [_fill(a, fills) for a in probe.args]
    return "gauntlet " + " ".join(w if w and " " not in w else repr(w) for w in words)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")[:220]


def provenance() -> str:
    """When, on which commit (and whether the tree had changes) and on which machine the probes ran."""
    import datetime
    import platform

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True, cwd=REPO).stdout.strip()
    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = " plus uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.node()}, {platform.system()} {platform.release()} {platform.machine()}, " \
              f"{os.cpu_count()} CPUs, Python {platform.python_version()}"
    return f"Run {when} on commit {commit}{dirty}; machine: {machine}."


def render(outcomes: list[Outcome], ran: str) -> str:
    bad = [o for o in outcomes if not o.ok]
    lines = [
        "# Reliability: bad inputs",
        "",
        "Written by `python scripts/probe_inputs.py` (the table: do not edit it by hand; the notes at the end are kept). Each row runs the real",
        "`gauntlet` CLI in a subprocess with one thing wrong: a broken copy of the fixture task",
        "`triton2triton/scale`, a broken agent file, a broken run dir, or a bad option. A row passes",
        "when the CLI exits non-zero with a message and no traceback; a row marked *accepted* is an input",
        "the CLI rightly runs (the reason is given) and passes when it exits 0. `$TMP` is the probe's scratch folder.",
        "",
        ran,
        "",
        f"**{len(outcomes)} probes, {len(outcomes) - len(bad)} pass, {len(bad)} fail"
        f" ({sum(o.traceback for o in outcomes)} with a traceback).**",
        "",
        "| # | input | command | exit | message (first line) | ok |",
        "|---|---|---|---|---|---|",
    ]
    for i, o in enumerate(outcomes, 1):
        flag = "ok" if o.ok else ("**TRACEBACK**" if o.traceback else "**FAIL**")
        name = o.probe.name + (f" (*accepted*: {o.probe.accepted})" if o.probe.accepted else "")
        lines.append(f"| {i} | {_cell(name)} | {_cell(_command(o.probe))} | {o.exit_code} | {_cell(o.message)} | {flag} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "reliability.md")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="", help="run only probes whose name contains this")
    args = parser.parse_args()
    chosen = [p for p in probes() if args.only in p.name]
    ran = provenance()   # before the probes: the commit they ran on
    scratch = Path(tempfile.mkdtemp(prefix="gauntlet-probe-"))
    try:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            outcomes = list(pool.map(lambda p: run_probe(p, scratch), chosen))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    # hand-written notes below NOTES_MARKER survive a re-run; the table above it is regenerated
    notes = ""
    if args.out.is_file() and NOTES_MARKER in args.out.read_text():
        notes = args.out.read_text().split(NOTES_MARKER, 1)[1]
    args.out.write_text(render(outcomes, ran) + "\n" + NOTES_MARKER + notes)
    bad = [o for o in outcomes if not o.ok]
    for o in bad:
        print(f"FAIL {o.probe.name}: exit {o.exit_code}: {o.message}", file=sys.stderr)
    print(f"{len(outcomes)} probes, {len(bad)} failed; wrote {args.out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
