"""--unseen N --seed S: the [space] loader, the drawing (real tasks, pure Python) and, end to end on
the CPU, the baseline filter and the manifest record."""
import json
import math

import pytest

from runner.tasks import configspace
from runner.tasks.configspace import TAGS, draw
from runner.tasks.task import TaskError, load_configs, load_task, select

from .conftest import REPO, SCALE, edit, gauntlet, load_error

ATTEMPT = "triton2triton__scale"
SHIPPED = select([], REPO / "tasks")


def _size(task, params) -> int:
    return math.prod(params[name] for name in task.space.shape)


def _known(task):
    return [c.params for c in (*task.configs("seen"), *task.configs("unseen"))]


def _edge_taken(task) -> bool:
    """A seen or hidden config already sits at the minimum of some dimension."""
    return any(p[n] == max(d.min, d.multiple_of) for p in _known(task) for n, d in task.space.shape.items())


# -- the loader -------------------------------------------------------------------------------------
def test_every_shipped_task_declares_a_space():
    assert len(SHIPPED) >= 12   # the suite grows (issue 12); every task in it must declare a space
    for task in SHIPPED:
        assert task.space is not None, task.id
        assert set(task.space.shape) | set(task.space.fixed) == set(task.configs("seen")[0].params), task.id
    by_id = {t.id: t for t in SHIPPED}
    hip = by_id["torch2hip/rmsnorm"]
    assert hip.space == by_id["torch2cuda/rmsnorm"].space  # inherited via extends
    # Across categories too: one reference per kernel, the Triton task overriding one key only.
    tri, cuda = by_id["torch2triton/gelu"], by_id["torch2cuda/gelu"]
    assert tri.reference == cuda.reference and tri.space.shape == cuda.space.shape
    assert tri.space.max_elements == cuda.space.max_elements


def test_fixture_space_loads(tasks_root):
    space = load_task(tasks_root / SCALE, tasks_root).space
    assert space.max_elements == 1_000_000 and space.bound("cpu") == 200_000 and space.bound("cuda") == 1_000_000
    assert space.shape["n"].min == 1 and space.shape["n"].production == (4096, 65536)
    assert space.fixed == {"alpha": (2.0, -0.5, 0.25)}


@pytest.mark.parametrize("old,new,field,words", [
    ("max_elements = 1_000_000\n", "", "space.max_elements", "missing"),
    ("max_elements = 1_000_000", "max_elements = 0", "space.max_elements", ">= 1"),
    ("max_elements = 1_000_000", "max_elements = 1_000_000\ncolour = 3", "space.colour", "unknown key"),
    ("cpu_max_elements = 200_000", "cpu_max_elements = 2_000_000", "space.cpu_max_elements", "exceeds"),
    ("min = 1\n", "min = 1\nstep = 2\n", "space.shape.n.step", "unknown key"),
    ("min = 1\n", "min = 1.5\n", "space.shape.n.min", "integer"),
    ("max = 1_000_000\n", "max = 0\n", "space.shape.n.max", ">= 1"),
    ("min = 1\n", "min = 2_000_000\n", "space.shape.n.max", "below min"),
    ("min = 1\n", "min = 1\nmultiple_of = 0\n", "space.shape.n.multiple_of", ">= 1"),
    ("production = [4096, 65536]", "production = [4096, 3_000_000]", "space.shape.n.production[1]", "outside"),
    ("production = [4096, 65536]", "production = [4096, 65536]\nmultiple_of = 1000",
     "space.shape.n.production[0]", "multiple of 1000"),
    ("production = [4096, 65536]", 'production = "big"', "space.shape.n.production", "list"),
    ("alpha = [2.0, -0.5, 0.25]", "alpha = []", "space.fixed.alpha", "non-empty list"),
    ("alpha = [2.0, -0.5, 0.25]", "alpha = [2.0]\nbeta = [1]", "space", "seen config"),
    ("[space.fixed]\nalpha = [2.0, -0.5, 0.25]", "", "space", "seen config"),
    ("alpha = [2.0, -0.5, 0.25]", "alpha = [2.0]\n[space.shape.m]\nmax = 3", "space.shape.m.min", "missing"),
    ("alpha = [2.0, -0.5, 0.25]", "n = [2.0]", "space.fixed.n", "also a shape parameter"),
    ("min = 1\nmax = 1_000_000\nproduction = [4096, 65536]", "min = 300_000\nmax = 1_000_000",
     "space.cpu_max_elements", "below the smallest shape"),
    # a seen config outside the space it claims to describe (hidden ones may probe beyond its ranges)
    ("alpha = [2.0, -0.5, 0.25]", "alpha = [-0.5, 0.25]", "space.fixed.alpha", "seen config 'small' sets it to 2.0"),
    ("min = 1\nmax = 1_000_000\nproduction = [4096, 65536]", "min = 2000\nmax = 1_000_000",
     "space.shape.n", "seen config 'small' sets it to 1000, outside [2000, 1000000]"),
    # constraints: parsed, checked against every seen and hidden config
    ("max_elements = 1_000_000\n", 'constraints = ["n % 7 == 0 or n < 5000"]\nmax_elements = 1_000_000\n',
     "space.constraints[0]", "does not hold for unseen config 'hidden-prime'"),
    ("max_elements = 1_000_000\n", 'constraints = ["n > 1", "m > 1"]\nmax_elements = 1_000_000\n',
     "space.constraints[1]", "'m', not a parameter"),
    ("max_elements = 1_000_000\n", 'constraints = ["__import__(\'os\').system(\'x\')"]\nmax_elements = 1_000_000\n',
     "space.constraints[0]", "uses Call"),
    ("max_elements = 1_000_000\n", 'constraints = ["n >"]\nmax_elements = 1_000_000\n',
     "space.constraints[0]", "not an expression"),
    ("max_elements = 1_000_000\n", 'constraints = "n > 1"\nmax_elements = 1_000_000\n',
     "space.constraints", "list of strings"),
])
def test_space_errors_name_file_and_field(tasks_root, old, new, field, words):
    path = edit(tasks_root, SCALE, old, new)
    message = str(load_error(tasks_root))
    assert message.startswith(f"{path}: {field}: "), message
    assert words in message, message


def test_space_shape_must_be_a_table(tasks_root):
    path = tasks_root / SCALE / "task.toml"
    text = path.read_text()
    head = text[:text.index("[space]")]
    path.write_text(head + "[space]\nmax_elements = 10\nshape = 3\n")
    with pytest.raises(TaskError, match=r"task\.toml: space\.shape: needs at least one"):
        load_task(tasks_root / SCALE, tasks_root)


# -- drawing ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("task", SHIPPED, ids=lambda t: t.id)
def test_six_configs_cover_the_six_tags(task):
    configs = draw(task, 6, seed=1, device="cuda")
    assert [c.tag for c in configs] == list(TAGS)
    assert [c.name for c in configs] == [f"drawn-{t}-0" for t in TAGS]
    assert {c.split for c in configs} == {"drawn"}


@pytest.mark.parametrize("task", SHIPPED, ids=lambda t: t.id)
def test_draw_is_deterministic_per_seed(task):
    first = draw(task, 12, seed=7, device="cuda")
    assert [(c.name, c.params) for c in first] == [(c.name, c.params) for c in draw(task, 12, seed=7, device="cuda")]
    assert [c.params for c in first] != [c.params for c in draw(task, 12, seed=8, device="cuda")]
    assert [c.params for c in draw(task, 6, seed=7, device="cuda")] == [c.params for c in first[:6]]


@pytest.mark.parametrize("device", ["cuda", "cpu"])
@pytest.mark.parametrize("task", SHIPPED, ids=lambda t: t.id)
def test_drawn_configs_respect_the_space_and_are_new(task, device):
    space = task.space
    known = _known(task)
    sizes = [_size(task, p) for p in known]
    for seed in range(4):
        configs = draw(task, 30, seed=seed, device=device)
        assert len(configs) == 30
        assert len({c.name for c in configs}) == 30
        params = [c.params for c in configs]
        assert all(p not in known for p in params), task.id
        assert all(params.count(p) == 1 for p in params), task.id
        for c in configs:
            assert set(c.params) == set(space.shape) | set(space.fixed)
            for name, dim in space.shape.items():
                v = c.params[name]
                assert isinstance(v, int) and dim.min <= v <= dim.max and v % dim.multiple_of == 0, (c, name)
            for name, choices in space.fixed.items():
                assert c.params[name] in choices
            assert space.violated(c.params) is None, (c, space.constraints)
            size = _size(task, c.params)
            assert size <= space.bound(device), c
            values = [c.params[n] for n in space.shape]
            near_min = [v <= max(d.min, d.multiple_of) + configspace._NUDGE_STEPS * d.multiple_of
                        for v, d in zip(values, space.shape.values())]
            smallest_known = min(sizes) == math.prod(max(d.min, d.multiple_of) for d in space.shape.values())
            if c.tag == "edge":  # at the minimum; a few steps up where that shape is already taken
                exact = any(v == max(d.min, d.multiple_of) for v, d in zip(values, space.shape.values()))
                assert exact or (any(near_min) and _edge_taken(task)), c
            elif c.tag == "scale-up":
                assert size > max(sizes) or size >= space.bound(device) / 2, c
            elif c.tag == "scale-down":  # below every known size, unless one is the smallest legal
                assert size < min(sizes) or (smallest_known and any(near_min)), c
            elif c.tag == "skewed" and len(values) > 1:  # one dimension: just a large size
                assert max(values) >= 64 * min(values), c
            elif c.tag == "production":
                for name, dim in space.shape.items():
                    assert c.params[name] in dim.production, c
            elif c.tag == "alignment-stress":
                for name, dim in space.shape.items():
                    q = c.params[name] // dim.multiple_of
                    assert q % 2 == 1 or q == 1, c  # never a multiple of 2 * multiple_of


def test_drawn_configs_satisfy_the_constraints(tasks_root):
    """A relation the ranges cannot express (here: n a multiple of 3 below 4000, or odd above) holds
    for every drawn config: the draw rejects what breaks it. Without the rejection about two thirds
    of these draws break it."""
    edit(tasks_root, SCALE, "max_elements = 1_000_000\n",
         'constraints = ["(n < 4000 and n % 3 == 0) or (n >= 4000 and n % 2 == 1) or n == 1000 or n == 7"]\n'
         "max_elements = 1_000_000\n")
    task = load_task(tasks_root / SCALE, tasks_root)
    configs = draw(task, 30, seed=3, device="cuda")
    assert len(configs) == 30
    assert all(task.space.violated(c.params) is None for c in configs), [c.params for c in configs]


def test_constraint_arithmetic():
    from runner.tasks.task import _holds
    assert _holds("channels % groups == 0", {"channels": 64, "groups": 8})
    assert not _holds("channels % groups == 0", {"channels": 30, "groups": 4})
    assert not _holds("channels % groups == 0", {"channels": 30, "groups": 0})      # no ZeroDivisionError
    assert _holds("1 <= k <= cols and not (k > 16)", {"k": 5, "cols": 9})
    assert not _holds("height >= kernel", {"height": 2})                            # a missing name: false
    assert _holds("-a + b * 2 // 3 == 1", {"a": 1, "b": 3})


def test_alignment_stress_avoids_power_of_two_multiples():
    task = {t.id: t for t in SHIPPED}["triton2triton/matmul"]
    configs = [c for c in draw(task, 60, seed=3) if c.tag == "alignment-stress"]
    assert configs
    for c in configs:
        assert c.params["n"] % 32 and c.params["k"] % 32   # multiples of 16 (the contract), of nothing more
        assert c.params["m"] % 8 or c.params["m"] == 1


def test_toml_round_trip(tmp_path):
    task = {t.id: t for t in SHIPPED}["torch2triton/rmsnorm"]
    configs = draw(task, 6, seed=2)
    path = tmp_path / "drawn.toml"
    path.write_text(configspace.to_toml(configs))
    back = load_configs(path, "drawn")
    assert [(c.name, c.params) for c in back] == [(c.name, c.params) for c in configs]
    assert [configspace.from_record(configspace.to_record(c)) for c in configs] == configs


def test_select_keeps_round_robin_over_passing_tags():
    task = {t.id: t for t in SHIPPED}["triton2triton/softmax"]
    candidates = draw(task, 12, seed=1)
    passed = {c.name: c.tag != "scale-up" for c in candidates}
    kept = configspace.select(candidates, passed, 6)
    assert len(kept) == 6 and all(c.tag != "scale-up" for c in kept)
    assert {c.tag for c in kept} == set(TAGS) - {"scale-up"}
    assert configspace.select(candidates, {c.name: False for c in candidates}, 6) == []


# -- end to end: the baseline filter, the manifest, eval and resume (CPU, Triton interpreter) ---------
# The fixture's own kernel with a bug: only the first 5000 elements are scaled.
BROKEN_BASELINE = (REPO / "tests" / "fixtures" / "tasks" / SCALE / "kernel.py").read_text().replace(
    "    y = torch.empty_like(x)\n    n = x.numel()\n",
    "    y = torch.zeros_like(x)\n    n = min(x.numel(), 5000)  # a bug: the rest stays zero\n")
assert "min(x.numel(), 5000)" in BROKEN_BASELINE


@pytest.mark.slow      # end to end: runs and re-evaluates (not in the quick tier)
def test_unseen_run_filters_by_baseline_records_and_reuses(tasks_root, tmp_path):
    (tasks_root / SCALE / "kernel.py").write_text(BROKEN_BASELINE)
    out = tmp_path / "run"
    args = ("run", "--agent", "oracle", "--tasks", "triton2triton", "--tasks-root", tasks_root,
            "--device", "cpu", "--out", out)
    gauntlet(*args, "--unseen", "2", "--seed", "1")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["options"]["unseen"] == 2 and manifest["options"]["seed"] == 1
    record = manifest["drawn_configs"][SCALE]
    assert record["n"] == 2 and record["seed"] == 1 and record["device"] == "cpu" and record["candidates"] == 4
    kept, rejected = record["configs"], record["rejected"]
    assert len(kept) == 2 and all(c["params"]["n"] <= 5000 for c in kept)
    assert rejected and all(c["params"]["n"] > 5000 for c in rejected)
    assert "scale-up" in {c["tag"] for c in rejected} and "baseline" in rejected[0]["reason"]
    assert all(c["name"] == f"drawn-{c['tag']}-0" for c in kept)
    task = load_task(tasks_root / SCALE, tasks_root)
    assert [c["name"] for c in kept] == [c.name for c in configspace.select(
        draw(task, 4, 1, "cpu"), {c.name: c.params["n"] <= 5000 for c in draw(task, 4, 1, "cpu")}, 2)]

    result = json.loads((out / "attempts" / ATTEMPT / "result.json").read_text())
    drawn_rows = [c for c in result["configs"] if c["split"] == "drawn"]
    assert [c["config"] for c in drawn_rows] == [c["name"] for c in kept]
    assert all(c["correct"] and c["baseline_correct"] for c in drawn_rows)
    assert result["correct_drawn"] is True and result["speedup_drawn"] > 0
    assert result["correct_seen"] and result["correct_unseen"]   # the hidden split keeps its meaning
    assert {c["split"] for c in result["configs"]} == {"seen", "unseen", "drawn"}
    # never in the agent's workspace: no file, no [space] in its task.toml
    workspace = out / "attempts" / ATTEMPT / "workspace"
    assert "[space" not in (workspace / "task.toml").read_text()
    assert not any("drawn" in p.name for p in workspace.rglob("*"))

    # a resume with another seed is refused; `gauntlet eval` reuses the recorded configs
    other = gauntlet(*args, "--unseen", "2", "--seed", "2", "--resume", check=False)
    assert other.returncode != 0 and "manifest.json: options:" in other.stderr
    gauntlet("eval", out, "--device", "cpu", "--tasks-root", tasks_root)
    again = json.loads((out / "attempts" / ATTEMPT / "result.json").read_text())
    assert [c["config"] for c in again["configs"] if c["split"] == "drawn"] == [c["name"] for c in kept]
    assert again["correct_drawn"] is True

    report = json.loads(gauntlet("report", out, "--format", "json").stdout)
    assert report[0]["correct_drawn_pct"] == 100.0


def test_unseen_needs_a_space(tasks_root, tmp_path):
    path = tasks_root / SCALE / "task.toml"
    text = path.read_text()
    path.write_text(text[:text.index("[space]")])
    proc = gauntlet("run", "--agent", "oracle", "--tasks", "triton2triton", "--tasks-root", tasks_root,
                    "--device", "cpu", "--out", tmp_path / "run", "--unseen", "2", check=False)
    errors = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode != 0 and len(errors) == 1 and "--unseen: triton2triton/scale" in errors[0], proc.stderr


@pytest.mark.slow
def test_unseen_on_a_shipped_task(tmp_path):
    """The shipped triton2triton/softmax: its CPU bound keeps drawn configs runnable in the interpreter."""
    out = tmp_path / "run"
    gauntlet("run", "--agent", "oracle", "--tasks", "triton2triton/softmax", "--device", "cpu",
             "--unseen", "2", "--seed", "1", "--out", out)
    record = json.loads((out / "manifest.json").read_text())["drawn_configs"]["triton2triton/softmax"]
    assert len(record["configs"]) == 2 and record["rejected"] == []
    result = json.loads((out / "attempts" / "triton2triton__softmax" / "result.json").read_text())
    drawn_rows = [c for c in result["configs"] if c["split"] == "drawn"]
    assert [c["config"] for c in drawn_rows] == [c["name"] for c in record["configs"]]
    assert result["correct_drawn"] and result["correct_seen"] and result["correct_unseen"]


def test_evaluator_split_drawn_needs_configs(tasks_root, capsys):
    from runner.evaluator.__main__ import main
    with pytest.raises(SystemExit) as info:
        main([str(tasks_root / SCALE), "--tasks-root", str(tasks_root), "--device", "cpu", "--split", "drawn"])
    assert info.value.code == 2 and "--split drawn needs --configs FILE" in capsys.readouterr().err


def test_evaluator_refuses_drawn_names_of_task_configs(tasks_root, tmp_path, capsys):
    from runner.evaluator.__main__ import main
    bad = tmp_path / "drawn.toml"
    bad.write_text('[[config]]\nname = "small"\nn = 3\nalpha = 1.0\n')
    assert main([str(tasks_root / SCALE), "--tasks-root", str(tasks_root), "--device", "cpu",
                 "--configs", str(bad)]) == 2
    assert "'small' is also a task config name" in capsys.readouterr().err


def test_tasks_show_prints_the_space_and_never_the_hidden_configs(tasks_root):
    out = gauntlet("tasks", "show", SCALE, "--tasks-root", tasks_root).stdout
    assert "config space (--unseen): product of shape params <= 1,000,000 (cpu: 200,000)" in out
    assert "production 4096, 65536" in out and "alpha" in out
    hidden = load_configs(tasks_root / SCALE / "hidden" / "configs.toml", "unseen")
    assert all(c.name not in out for c in hidden)
