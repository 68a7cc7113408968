"""Suites and the [work] table (issue 33): the headline suite counts a kernel once per language, no
task repeats a twin's file, suites select runs, and task.toml's new keys fail as one line."""
import hashlib
from collections import defaultdict
from pathlib import Path

import pytest

from .conftest import REPO, SCALE, edit, gauntlet, load_error

TASKS = REPO / "tasks"


def _suite_tasks():
    from runner.tasks.task import select
    return select([], TASKS)


def test_the_headline_suite_counts_each_kernel_once_per_language():
    seen = defaultdict(list)
    for task in _suite_tasks():
        if "headline" in task.suites:
            seen[(task.kernel, task.language)].append(task.id)
    twice = {key: ids for key, ids in seen.items() if len(ids) > 1}
    assert not twice, twice
    languages = {lang for _, lang in seen}
    assert languages == {"cuda", "hip", "triton"}, languages
    # every kernel with a PyTorch->X task is in it for that language, unless the kernel is smoke-only
    for task in _suite_tasks():
        if task.source == "torch" and "smoke" not in task.suites:
            assert (task.kernel, task.language) in seen, task.id


def test_smoke_only_tasks_are_not_in_the_headline():
    smoke = [t for t in _suite_tasks() if "smoke" in t.suites]
    assert smoke and not any("headline" in t.suites for t in smoke)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_no_task_holds_a_byte_identical_copy_of_another_tasks_file():
    """A twin's file that equals its sibling's comes from the sibling through `extends`. Two different
    kernels may share a list of shapes (configs.toml); that is the only exception."""
    by_digest = defaultdict(list)
    for path in sorted(TASKS.glob("*/*/**/*")):
        if path.is_file() and "__pycache__" not in path.parts and path.name != "task.toml":
            task = path.relative_to(TASKS).parts[:2]
            by_digest[_digest(path)].append((task, path.relative_to(TASKS)))
    repeated = []
    for copies in by_digest.values():
        tasks = {task for task, _ in copies}
        if len(tasks) < 2:
            continue
        kernels = [kernel for _, kernel in tasks]
        configs_only = all(p.name == "configs.toml" for _, p in copies)
        if configs_only and len(set(kernels)) == len(kernels):
            continue        # different kernels that happen to share shapes
        repeated.append(sorted(str(p) for _, p in copies))
    assert not repeated, repeated


def test_suites_are_not_inherited_through_extends(tasks_root):
    from runner.tasks.task import load_task
    base = tasks_root / SCALE
    edit(tasks_root, SCALE, 'category = "triton2triton"', 'category = "triton2triton"\nsuites = ["headline"]')
    twin = tasks_root / "triton2triton" / "scale_twin"
    twin.mkdir()
    (twin / "task.toml").write_text('id = "triton2triton/scale_twin"\ncategory = "triton2triton"\n'
                                    'extends = "triton2triton/scale"\n')
    assert load_task(base, tasks_root).suites == ("headline",)
    assert load_task(twin, tasks_root).suites == ()


def test_run_and_list_select_a_suite(tasks_root, tmp_path):
    edit(tasks_root, SCALE, 'category = "triton2triton"', 'category = "triton2triton"\nsuites = ["smoke"]')
    listed = gauntlet("tasks", "list", "--suite", "smoke", "--tasks-root", tasks_root).stdout
    assert SCALE in listed
    proc = gauntlet("tasks", "list", "--suite", "headline", "--tasks-root", tasks_root, check=False)
    assert proc.returncode != 0 and "--suite: no selected task is in suite 'headline' (suites there: smoke)" in proc.stderr
    proc = gauntlet("run", "--agent", "noop", "--suite", "headline", "--device", "cpu", "--tasks-root", tasks_root,
                    "--out", tmp_path / "run", check=False)
    assert proc.returncode != 0 and "no selected task is in suite 'headline'" in proc.stderr
    assert not (tmp_path / "run").exists()


def test_the_shipped_suites_list():
    headline = gauntlet("tasks", "list", "--suite", "headline").stdout.splitlines()
    assert headline and all("headline" in line for line in headline)
    assert not any(line.startswith(("torch2cuda/gelu ", "cuda2cuda/")) for line in headline)


BAD_TOML = {
    "suite-name": ('suites = ["Head Line"]', "suites[0]", "is not a suite name"),
    "suites-not-a-list": ('suites = "headline"', "suites", "must be a list of strings"),
    "work-missing-dtype": ('[work]\nbytes = "8*n"\nflops = "n"', "work.dtype", "required key is missing"),
    "work-dtype": ('[work]\nbytes = "8*n"\nflops = "n"\ndtype = "float64"', "work.dtype", "is not one of"),
    "work-attribute": ('[work]\nbytes = "n.bit_length()"\nflops = "n"\ndtype = "float32"', "work.bytes",
                       "calls something other than min(...) or max(...)"),
    "work-import": ('[work]\nbytes = "__import__(\'os\')"\nflops = "n"\ndtype = "float32"', "work.bytes",
                    "calls something other than"),
    "work-subscript": ('[work]\nbytes = "n[0]"\nflops = "n"\ndtype = "float32"', "work.bytes", "uses Subscript"),
    "work-unknown-name": ('[work]\nbytes = "8*rows"\nflops = "n"\ndtype = "float32"', "work.bytes",
                          "names 'rows', not a parameter of the config on seen config 'small'"),
    "work-negative": ('[work]\nbytes = "8*n"\nflops = "n - 10**6"\ndtype = "float32"', "work.flops",
                      "must be a finite number >= 0"),
    "work-unknown-key": ('[work]\nbytes = "8*n"\nflops = "n"\ndtype = "float32"\nfma = "n"', "work.fma", "unknown key"),
}


@pytest.mark.parametrize("case", sorted(BAD_TOML))
def test_a_bad_suites_or_work_key_is_one_line_naming_the_field(tasks_root, case):
    text, field, words = BAD_TOML[case]
    toml = tasks_root / SCALE / "task.toml"
    if text.startswith("["):
        toml.write_text(toml.read_text().replace("[space]\n", text + "\n\n[space]\n", 1))
    else:
        edit(tasks_root, SCALE, 'category = "triton2triton"', 'category = "triton2triton"\n' + text)
    error = load_error(tasks_root)
    assert error.file.endswith("task.toml") and error.key == field and words in str(error), str(error)


def test_work_expressions_evaluate_with_min_max_and_floor_division():
    from runner.tasks.work import Work
    work = Work(bytes="4*(rows*cols + min(rows, 7)) + (length + 2*p - k)//s", flops="2**3 * max(rows, cols)",
                dtype="float32")
    assert work.of({"rows": 3, "cols": 5, "length": 10, "p": 1, "k": 3, "s": 2}) == (4 * 18 + 9 // 2, 40.0)


def test_every_shipped_task_declares_its_work():
    assert [t.id for t in _suite_tasks() if t.work is None] == []
