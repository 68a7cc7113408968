"""Agent: a command (run in the sandbox, in the workspace, under the budget) and a parser for what it
printed. Definitions live in agents/<name>.toml so a user adds an agent without touching code.

Built-in kinds:
  noop     changes nothing
  oracle   applies the task's reference solution (host side; the solution never enters a sandbox
           the agent controls)
  replay   applies a patch file, or the diff.patch files of an earlier run dir
  command  runs a shell command template in the workspace: the way to plug in any agent CLI
"""
from __future__ import annotations

import re
import shlex
import shutil
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from runner.agents import parsers
from runner.agents.kinds import AgentError
from runner.agents.parsers import PARSERS, AgentReport

PLACEHOLDERS = ("prompt_file", "workspace", "budget_s", "deadline_epoch", "task_id")


@dataclass(frozen=True)
class AgentSpec:
    name: str
    kind: str
    description: str = ""
    command: str | None = None           # shell template with {placeholders}
    parser: str = "plain"
    env_required: tuple[str, ...] = ()
    env_set: dict = field(default_factory=dict)
    install: str = ""                    # how images install it (documentation for Dockerfiles)
    gateway: dict = field(default_factory=dict)  # model gateway settings (runner/agents/gateway.py)
    cli: str = ""                        # executable the command runs (preflight checks it)
    source: Path | None = None
    replay_from: Path | None = None      # replay: a patch file or an earlier run dir


@dataclass
class AttemptContext:
    """What an agent may know about the attempt."""
    task_id: str
    workspace: Path           # host path
    workspace_in_sandbox: str
    prompt_file: Path         # host path
    prompt_in_sandbox: str
    budget_s: float
    deadline_epoch: float
    solution: dict            # rel path -> host Path (oracle only)


def parse_output(spec: "AgentSpec", agent_dir: Path, timed_out: bool, exit_code: int | None) -> AgentReport:
    """The parser's report, its failure class settled with the gateway's records of the model API.

    The agent's stdout is the agent's to write: a class of the model API's (INFRA_FAILURES, which
    make the attempt an infra_error that --resume redoes) is taken from it only where the gateway's
    own records show that failure, and usage and cost come from the gateway's meter wherever it
    metered any (the CLI's own numbers only where no gateway ran, marked usage_source "cli")."""
    parser = PARSERS.get(spec.parser)
    if parser is None:
        raise AgentError(spec.source, "parser", f"unknown parser {spec.parser!r} (known: {', '.join(PARSERS)})")
    try:
        report = parser(agent_dir / "stdout.log", agent_dir, timed_out, exit_code)
    except Exception as exc:   # the parsers are total; a defect found by the agent's output is noted, not fatal
        report = PARSERS["plain"](agent_dir / "stdout.log", agent_dir, timed_out, exit_code)
        report.parse_error = f"{spec.parser}: {type(exc).__name__}: {str(exc)[:300]}"
        (agent_dir / "parse-error.txt").write_text(report.parse_error + "\n", errors="backslashreplace")
    gateway_class = parsers.gateway_failure(parsers.gateway_records(agent_dir))
    cli_failure = report.failure
    if cli_failure in parsers.INFRA_FAILURES and gateway_class is None:
        # the stream claims the model API failed; the gateway saw no such failure (or no gateway ran)
        report.claimed_failure = cli_failure
        cli_failure = "cli_crash"
    failure = parsers.attempt_failure(cli_failure, gateway_class, timed_out=timed_out, exit_code=exit_code)
    report.failure, report.retryable = failure, failure in parsers.INFRA_FAILURES
    metered, model = parsers.gateway_usage(agent_dir)
    if metered:
        claimed = report.usage
        # tokens are the meter's; what only the CLI counts (its turns) is kept beside them
        extra = {k: v for k, v in (claimed or {}).items() if k not in parsers.TOKEN_KEYS and k not in metered}
        report.usage, report.usage_source = {**metered, **extra}, "gateway"
        # the table's price of the meter's tokens, or none: never the CLI's own figure, which the
        # agent writes, matching the meter it can read (gateway.json, in its read-only folder) and
        # naming any cost it likes (red team, session 27: 150k tokens recorded as $0.0001)
        report.cost_usd = parsers.price(model, metered)
    elif report.usage is not None:
        report.usage_source = "cli"
    return report


def default_agents_dir() -> Path:
    from runner.resources import suite_root
    return suite_root() / "agents"


def load_agent(path: Path) -> AgentSpec:
    """agents/<name>.toml validated by runner/agents/agentfile.py (pydantic): one AgentError line per problem."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AgentError(path, "file", "not found") from None
    except UnicodeDecodeError as exc:
        raise AgentError(path, "file", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise AgentError(path, "file", f"not valid TOML: {exc}") from None
    from runner.agents.agentfile import validate   # pydantic: only when an agent file is read
    agent = validate(path, data)
    if agent.name != path.stem:
        raise AgentError(path, "name", f"{agent.name!r} must match the file name {path.stem!r}")
    if agent.command is not None:
        _check_template(path, agent.command)
    return AgentSpec(name=agent.name, kind=agent.kind, description=agent.description, command=agent.command,
                     parser=agent.parser, env_required=tuple(agent.env.required), env_set=dict(agent.env.set),
                     install=agent.install, source=path, cli=agent.cli,
                     gateway=agent.gateway.model_dump(exclude_unset=True) if agent.gateway else {})


# {name} is a placeholder; other braces (${VAR}, JSON, awk) are left to the shell.
_PLACEHOLDER = re.compile(r"(?<!\$)\{([a-z_]+)\}")


def _check_template(source, command: str) -> None:
    for name in _PLACEHOLDER.findall(command):
        if name not in PLACEHOLDERS:
            raise AgentError(source, "command", f"bad placeholder {{{name}}} (known: {', '.join(PLACEHOLDERS)})")


def list_agents(agents_dir: Path | None = None) -> list[AgentSpec]:
    return [load_agent(p) for p in sorted(Path(agents_dir or default_agents_dir()).glob("*.toml"))]


def resolve_agent(name: str, agents_dir: Path | None = None, command: str | None = None,
                  replay_from: Path | None = None) -> AgentSpec:
    """An agent by name (agents/<name>.toml) or by path to a .toml, with run options applied."""
    path = Path(name) if name.endswith(".toml") else Path(agents_dir or default_agents_dir()) / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(a.name for a in list_agents(agents_dir))
        raise AgentError("--agent", "name", f"no agent {name!r} (known: {known})")
    spec = load_agent(path)
    if command is not None:
        _check_template("--command", command)
        spec = AgentSpec(**{**spec.__dict__, "command": command})
    if spec.kind == "command" and not spec.command:
        raise AgentError(path, "command", "a command agent needs a command (set it here or pass --command)")
    if spec.kind == "replay":
        if replay_from is None:
            raise AgentError("--replay-from", "path", "the replay agent needs --replay-from PATCH_OR_RUN_DIR")
        if not Path(replay_from).exists():
            raise AgentError("--replay-from", "path", f"{replay_from} does not exist")
        _check_replay_source(Path(replay_from))
        spec = AgentSpec(**{**spec.__dict__, "replay_from": Path(replay_from)})
    return spec


def _check_replay_source(source: Path) -> None:
    """A run dir with diffs or a file that is a diff: refused here, before any attempt starts, rather
    than each attempt ending in infra_error."""
    if source.is_dir():
        if not any(source.glob("attempts/*/diff.patch")):
            raise AgentError("--replay-from", "path", f"{source} holds no run's diffs (no attempts/*/diff.patch)")
        return
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AgentError("--replay-from", "path", f"{source} cannot be read as a diff ({exc})") from None
    if text.strip() and not re.search(r"^(diff --git |--- )", text, re.MULTILINE):
        raise AgentError("--replay-from", "path", f"{source} is not a diff (no 'diff --git' or '--- ' line)")


def render_command(spec: AgentSpec, ctx: AttemptContext) -> list[str]:
    values = {"prompt_file": shlex.quote(ctx.prompt_in_sandbox),
              "workspace": shlex.quote(ctx.workspace_in_sandbox),
              "budget_s": str(int(ctx.budget_s)), "deadline_epoch": str(int(ctx.deadline_epoch)),
              "task_id": shlex.quote(ctx.task_id)}
    return ["/bin/sh", "-c", _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), spec.command)]


def apply_solution(ctx: AttemptContext) -> None:
    for rel, src in ctx.solution.items():
        dest = ctx.workspace / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)


DEVICE_WORDS = {"cuda": "an NVIDIA GPU (CUDA)", "rocm": "an AMD GPU (ROCm/HIP)",
                "cpu": "the CPU: Triton kernels run in the Triton interpreter, and times measured there "
                       "are recorded but not meaningful"}


def _contract(task) -> str:
    """What the evaluator calls, per language (docs/task-format.md has the full contract)."""
    if task.language == "triton":
        return (f"`{task.entry}` is imported as a Python module and `{task.symbol}(*inputs)` is called with "
                "the arguments the reference's `make_inputs` builds; it returns what `reference` returns "
                "(same shapes and dtypes). The work must be done by Triton kernels (`@triton.jit`): "
                "PyTorch may allocate and reshape, not compute the result.")
    if task.kind == "torch-extension":
        return (f"`{task.entry}` is a PyTorch C++ extension (`#include <torch/extension.h>`, "
                "`PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)`), built against the evaluator's torch; "
                f"`{task.symbol}(*inputs)` is called with the arguments the reference's `make_inputs` builds "
                "(tensors as `torch::Tensor`, ints as `int64_t`, floats as `double`) and returns new tensors "
                "of the reference's shapes and dtypes (never an input, never changing one). The work must be "
                "done by your own device kernels: PyTorch may allocate and reshape, not compute the result.")
    return (f"`{task.entry}` is compiled into a shared library and `extern \"C\" int {task.symbol}(...)` is "
            "called with one argument per `make_inputs` value (tensors as device pointers, `const T*`; "
            "Python ints as `int64_t`, floats as `float`), then one `T*` per output (allocated by the "
            "harness, filled with garbage), then `void* stream`: launch every kernel on that stream. "
            "Return 0; non-zero is a failed call.")


def _compile_command(task, python: str) -> str | None:
    flags = "".join(f" {shlex.quote(f)}" for f in task.compile_flags)
    if task.kind == "torch-extension":    # built the evaluator's way (build.extension_command): the check does it
        return None
    if task.language == "cuda":
        return f"nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -arch=native{flags} -o /tmp/candidate.so {task.entry}"
    if task.language == "hip":
        return f"hipcc -O3 -std=c++17 -shared -fPIC --offload-arch=native{flags} -o /tmp/candidate.so {task.entry}"
    return f"{python} -m py_compile {task.entry}"


def build_prompt(task, budget_s: float, deadline_epoch: float, check_command: str, device: str,
                 python: str, max_speedup: float) -> str:
    """What every agent is told: the task, the entry function and its contract, the device, what it
    may edit, the rules that zero a candidate, the compile / correctness / timing commands, the
    hidden configs and the deadline."""
    editable = "\n".join(f"- {p}" for p in task.editable)
    protected = "\n".join(f"- {p}" for p in sorted(task.files) if p not in task.editable)
    compile_command = _compile_command(task, python) or f"{check_command} --no-timing"
    return f"""# Task {task.id} ({task.category})

{task.description}

Optimise the kernel for speed while keeping it correct. Read README.md in this workspace first.

## The entry function
{_contract(task)}
The reference implementation (the ground truth) is `{task.reference.name}`.

## Device
The evaluation runs on {DEVICE_WORDS.get(device, device)}, the device you are on now.

## You may edit only
{editable}

Every other file is protected: edits to them are recorded as violations and ignored, and the
evaluator uses pristine copies of them. Do not create result files; nothing you print is read.

## Protected files
{protected}
- task.toml

## Rules that score a candidate zero
Any flag scores the attempt zero, however correct its outputs are:
- reaching outside the kernel: process control or files (`os`, `sys`, `subprocess`, ...), `ctypes`,
  introspection (`inspect`, `gc`, frames, dunders), threads, timers (`time`), the harness or the
  reference, other libraries (`cupy`, `numba`, `scipy`, ...) or dynamic code (`exec`, `eval`);
- letting PyTorch or NumPy compute the result, or lowering precision (TF32, fp16/bf16 math) on an
  fp32 task;
- streams or graphs of your own, work left running after the call returns, or tampering with
  timing (the evaluator times on its own clock and checks it);
- a speedup above {max_speedup:g}x over the baseline on a config (treated as not doing the work).

## Checking your work
The configurations you can see are in `{task.seen_file.name}`. Use this interpreter: `{python}`.

- Compile: `{compile_command}`
- Correctness on the seen configs (compile included, no timing): `{check_command} --no-timing`
- Correctness and timing against the baseline: `{check_command}`

The final evaluation also runs hidden configurations you have not seen (other sizes: odd,
non-power-of-two, larger and smaller), so the kernel must be correct for any valid shape. Do not
special-case the visible shapes.

## Deadline
You have {int(budget_s)} seconds of wall-clock time (until unix time {int(deadline_epoch)}). Your
process is stopped at the deadline; the files as they are then are evaluated.
"""
