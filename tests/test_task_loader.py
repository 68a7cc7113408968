"""The loader names the file and the field of every problem, in one line."""
import re

import pytest

from runner.tasks.task import TaskError, load_task, select

from .conftest import REPO, SCALE, edit, gauntlet, load_error



def test_fixture_loads(tasks_root):
    task = load_task(tasks_root / SCALE, tasks_root)
    assert task.language == "triton" and not task.baseline_is_reference
    assert [c.name for c in task.configs("seen")] == ["small", "odd"]
    assert {c.split for c in task.configs("unseen")} == {"unseen"}
    assert set(task.solution_files()) == {"kernel.py"}


@pytest.mark.parametrize("old,new,field,words", [
    ('symbol = "forward"', 'symbol = "forward"\nspeed = 3', "candidate.speed", "unknown key"),
    ('description =', 'colour = "red"\ndescription =', "colour", "unknown key"),
    ('editable = ["kernel.py"]', 'editable = ["reference.py"]', "workspace.editable[0]", "protected"),
    ('editable = ["kernel.py"]', 'editable = ["kernel.py", "hidden/x.py"]', "workspace.editable[1]", "protected folder"),
    ('editable = ["kernel.py"]', 'editable = ["kernel.py", "configs.toml"]', "workspace.editable[1]", "protected"),
    ('"reference.py", "configs.toml"]', '"reference.py", "configs.toml", "../../x.py"]', "workspace.files[3]", "escapes"),
    ('"reference.py", "configs.toml"]', '"reference.py", "configs.toml", "nope.py"]', "workspace.files[3]", "not found"),
    ('"reference.py", "configs.toml"]', '"reference.py", "configs.toml", "hidden/configs.toml"]', "workspace.files", "hidden"),
    ('module = "reference.py"', 'module = "/etc/passwd"', "reference.module", "escapes"),
    ('category = "triton2triton"', 'category = "triton2rust"', "category", "not one of"),
    ('platforms = ["cuda", "rocm", "cpu"]', 'platforms = ["tpu"]', "platforms", "not one of"),
    ('id = "triton2triton/scale"', 'id = "triton2triton/other"', "id", "must be"),
    ('hidden = "hidden/configs.toml"\n', '', "configs.hidden", "missing"),
    ('dir = "solution"', 'dir = "nowhere"', "solution.dir", "not found"),
    ('dir = "solution"', 'dir = "solution"\n[performance]\nmax_speedup = 1', "performance.max_speedup", "> 1"),
    ('dir = "solution"', 'dir = "solution"\n[performance]\nmax_speedup = "lots"', "performance.max_speedup", "> 1"),
    ('dir = "solution"', 'dir = "solution"\n[performance]\ncap = 3', "performance.cap", "unknown key"),
])
def test_loader_errors_name_file_and_field(tasks_root, old, new, field, words):
    path = edit(tasks_root, SCALE, old, new)
    error = load_error(tasks_root)
    assert str(error).startswith(f"{path}: {field}: "), str(error)
    assert words in str(error)


def test_bad_toml_and_bad_configs(tasks_root):
    (tasks_root / SCALE / "task.toml").write_text("id = [")
    assert "not valid TOML" in str(load_error(tasks_root))


def test_duplicate_config_name_across_splits(tasks_root):
    hidden = tasks_root / SCALE / "hidden" / "configs.toml"
    hidden.write_text(hidden.read_text().replace('name = "hidden-tiny"', 'name = "small"'))
    error = load_error(tasks_root)
    assert str(error).startswith(f"{hidden}: config.name: ") and "'small'" in str(error)


def test_config_entries_are_validated(tasks_root):
    seen = tasks_root / SCALE / "configs.toml"
    seen.write_text('[[config]]\nn = 3\n')
    assert str(load_error(tasks_root)).startswith(f"{seen}: config[0].name: ")


def test_extends_reuses_base_files_without_copies(tasks_root):
    twin = tasks_root / "torch2triton" / "scale"
    twin.mkdir(parents=True)
    (twin / "task.toml").write_text('id = "torch2triton/scale"\ncategory = "torch2triton"\n'
                                    'extends = "triton2triton/scale"\n')
    task = load_task(twin, tasks_root)
    assert task.baseline_is_reference
    assert task.reference == tasks_root / SCALE / "reference.py"
    assert task.hidden_file == tasks_root / SCALE / "hidden" / "configs.toml"
    assert sorted(p.name for p in twin.iterdir()) == ["task.toml"]


def test_a_vetted_speedup_cap_is_inherited_only_with_the_same_kind_of_baseline(tasks_root):
    """The cap is measured against one baseline: a PyTorch->X twin of an X->X task (or the reverse)
    must not inherit it, a task with the same kind of baseline does; the run's higher limit wins."""
    edit(tasks_root, SCALE, 'dir = "solution"', 'dir = "solution"\n[performance]\nmax_speedup = 500')
    base = load_task(tasks_root / SCALE, tasks_root)
    assert base.max_speedup == 500 and base.speedup_limit(10.0) == 500 and base.speedup_limit(900.0) == 900
    for category, inherits in (("torch2triton", False), ("triton2triton", True)):
        twin = tasks_root / category / "twin"
        twin.mkdir(parents=True)
        (twin / "task.toml").write_text(f'id = "{category}/twin"\ncategory = "{category}"\nextends = "{SCALE}"\n')
        task = load_task(twin, tasks_root)
        assert task.max_speedup == (500 if inherits else None), category
        assert task.speedup_limit(10.0) == (500 if inherits else 10.0)


def test_selectors(tasks_root):
    assert [t.id for t in select(["triton2triton"], tasks_root)] == [SCALE]
    assert [t.id for t in select([SCALE], tasks_root)] == [SCALE]
    with pytest.raises(TaskError, match="matches no task"):
        select(["cuda2cuda/nothing"], tasks_root)


def test_validate_command_reports_one_line_per_bad_task(tasks_root):
    ok = gauntlet("tasks", "validate", "--tasks-root", tasks_root)
    assert "1 valid, 0 invalid" in ok.stdout
    edit(tasks_root, SCALE, 'symbol = "forward"', 'symbol = "forward"\nspeed = 3')
    bad = gauntlet("tasks", "validate", "--tasks-root", tasks_root, check=False)
    assert bad.returncode == 1
    assert re.search(r"task\.toml: candidate\.speed: unknown key", bad.stderr)


def test_validate_refuses_a_hidden_config_with_the_shapes_of_a_seen_one(tasks_root):
    # Same n as the seen config "small", another alpha: a candidate hard-coded to n = 1000 passes it,
    # so it tests nothing the seen configs did not.
    hidden = tasks_root / SCALE / "hidden" / "configs.toml"
    hidden.write_text(hidden.read_text().replace("n = 10007", "n = 1000"))
    bad = gauntlet("tasks", "validate", "--tasks-root", tasks_root, check=False)
    assert bad.returncode == 1
    assert re.search(r"hidden/configs\.toml: config hidden-prime: its inputs have the shapes and sizes of seen "
                     r"config small", bad.stderr + bad.stdout)


def test_validate_with_a_relative_tasks_root_from_another_folder_still_runs_the_reference(tasks_root):
    """The reference check's child runs in the repo: a relative --tasks-root given from elsewhere must
    still reach it, and a task it cannot load there is a problem, never skipped as valid."""
    reference = tasks_root / SCALE / "reference.py"
    reference.write_text(reference.read_text() + "\nraise RuntimeError('broken reference')\n")
    bad = gauntlet("tasks", "validate", "--tasks-root", tasks_root.name, check=False, cwd=tasks_root.parent)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "0 valid, 1 invalid" in bad.stdout and "broken reference" in bad.stderr


def test_shipped_suite_is_valid():
    proc = gauntlet("tasks", "validate", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    counts = {}
    for line in gauntlet("tasks", "list").stdout.splitlines():
        category = line.split("/")[0]
        counts[category] = counts.get(category, 0) + 1
    assert set(counts) == {"hip2hip", "torch2hip", "cuda2cuda", "torch2cuda", "triton2triton", "torch2triton"}
    assert all(n >= 2 for n in counts.values()), counts


def test_shipped_tasks_have_enough_configs_and_solutions():
    for task in select([], REPO / "tasks"):
        assert len(task.configs("seen")) >= 3, task.id
        assert len(task.configs("unseen")) >= 3, task.id
        assert task.solution_files(), task.id
        assert task.hidden_file.relative_to(task.hidden_file.parents[1]).parts[0] == "hidden", task.id
