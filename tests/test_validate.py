"""`gauntlet tasks validate` (issue 33): a reference shared through `extends` is checked once, a
check that runs out of time names its own task (never the next one, never a healthy one whose batch
was slow), and [work] is checked against the reference. Real CLI subprocesses and child processes."""
import shutil

from .conftest import SCALE, gauntlet

SLOW = "import time\ntime.sleep({seconds})\n"


def _copy(tasks_root, name: str, prefix: str = "") -> str:
    """A copy of the fixture task under another name (its own reference file), no solution."""
    task = f"triton2triton/{name}"
    shutil.copytree(tasks_root / SCALE, tasks_root / task)
    toml = tasks_root / task / "task.toml"
    toml.write_text(toml.read_text().replace(SCALE, task).replace('[solution]\ndir = "solution"\n', ""))
    shutil.rmtree(tasks_root / task / "solution")
    reference = tasks_root / task / "reference.py"
    reference.write_text(prefix + reference.read_text())
    return task


def test_a_check_that_runs_out_of_time_names_its_own_task_and_slow_healthy_ones_pass(tasks_root):
    # three healthy tasks whose checks take 8 s each (24 s together, past the 20 s bound of one check),
    # checked first, then one that hangs: only the hanging one fails, by name (a bound on the batch
    # would blame c_slow, running when 20 s were up)
    for name in ("a_slow", "b_slow", "c_slow"):
        _copy(tasks_root, name, SLOW.format(seconds=8))
    _copy(tasks_root, "d_hangs", SLOW.format(seconds=600))
    shutil.rmtree(tasks_root / SCALE)
    proc = gauntlet("tasks", "validate", "--tasks-root", tasks_root, "--check-timeout", "20", check=False)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert "triton2triton/d_hangs/reference.py: reference: checking its reference took more than 20 s" in lines[0]
    assert "3 valid, 1 invalid" in proc.stdout


def test_a_reference_shared_through_extends_is_checked_once(tasks_root, tmp_path):
    counter = tmp_path / "imports"
    reference = tasks_root / SCALE / "reference.py"
    reference.write_text(f"open({str(counter)!r}, 'a').write('x')\n" + reference.read_text())
    for twin in ("scale_b", "scale_c"):
        (tasks_root / "triton2triton" / twin).mkdir()
        (tasks_root / "triton2triton" / twin / "task.toml").write_text(
            f'id = "triton2triton/{twin}"\ncategory = "triton2triton"\nextends = "triton2triton/scale"\n')
    proc = gauntlet("tasks", "validate", "--tasks-root", tasks_root)
    assert "3 valid, 0 invalid" in proc.stdout
    # one import by the reference check; the solution checks import the solutions only
    assert counter.read_text() == "x"


def test_a_broken_shared_reference_fails_every_twin_said_once(tasks_root):
    (tasks_root / SCALE / "reference.py").write_text("raise ImportError('broken on purpose')\n")
    (tasks_root / "triton2triton" / "scale_b").mkdir()
    (tasks_root / "triton2triton" / "scale_b" / "task.toml").write_text(
        'id = "triton2triton/scale_b"\ncategory = "triton2triton"\nextends = "triton2triton/scale"\n')
    proc = gauntlet("tasks", "validate", "--tasks-root", tasks_root, check=False)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and "0 valid, 2 invalid" in proc.stdout
    assert sum("broken on purpose" in line for line in lines) == 1, lines
    assert any("scale_b/task.toml: reference: shares the one that failed for triton2triton/scale" in line
               for line in lines), lines


WORK = {
    "honest": ('bytes = "8*n"\nflops = "n"\ndtype = "float32"', None),
    "bytes-inflated": ('bytes = "80*n"\nflops = "n"\ndtype = "float32"', "more than the reference's inputs and outputs"),
    "bytes-below-outputs": ('bytes = "2*n"\nflops = "n"\ndtype = "float32"', "less than its outputs"),
    "flops-inflated": ('bytes = "8*n"\nflops = "100*n"\ndtype = "float32"', "work.flops"),
    "dtype-absent": ('bytes = "8*n"\nflops = "n"\ndtype = "bfloat16"', "no tensor of the call"),
}


def test_work_is_checked_against_the_reference(tasks_root):
    toml = tasks_root / SCALE / "task.toml"
    original = toml.read_text()
    for case, (work, words) in WORK.items():
        toml.write_text(original.replace("[space]\n", f"[work]\n{work}\n\n[space]\n", 1))
        proc = gauntlet("tasks", "validate", "--tasks-root", tasks_root, check=False)
        if words is None:
            assert proc.returncode == 0, (case, proc.stderr)
        else:
            assert proc.returncode == 1 and words in proc.stderr and "task.toml: work." in proc.stderr, (case, proc.stderr)


def _validate_with_work(tasks_root, toml, original: str, nbytes: str, flops: str):
    """`tasks validate` over the fixture suite, its task.toml `original` given this float32 [work]."""
    toml.write_text(original.replace(
        "[space]\n", f'[work]\nbytes = "{nbytes}"\nflops = "{flops}"\ndtype = "float32"\n\n[space]\n', 1))
    return gauntlet("tasks", "validate", "--tasks-root", tasks_root, check=False)


def _without_solution(task):
    """The task's task.toml and its text without [solution] (a reference rewritten by a test has no
    solution to match it), the solution folder gone."""
    toml = task / "task.toml"
    original = toml.read_text().replace('[solution]\ndir = "solution"\n', "")
    shutil.rmtree(task / "solution")
    return toml, original


def test_a_matmul_s_flops_are_checked_against_torch_s_count(tasks_root):
    """FlopCounterMode counts 2 m n k for a matmul: a declared m n k (half) passes the 0.5 floor only
    just; a declared 4 m n k is refused."""
    task = tasks_root / SCALE
    (task / "reference.py").write_text(
        "import torch\n\ndef make_inputs(config, generator, device):\n"
        "    n = config['n']\n    return [torch.randn(n, 64, generator=generator), torch.randn(64, 32, generator=generator),"
        " float(config['alpha'])]\n\ndef reference(a, b, alpha):\n    return (a @ b) * alpha\n")
    toml, original = _without_solution(task)
    for flops, ok in (("2*n*64*32", True), ("4*n*64*32", False), ("n*64*32 - 1", False)):
        proc = _validate_with_work(tasks_root, toml, original, "4*(n*64 + 64*32 + n*32)", flops)
        assert (proc.returncode == 0) == ok, (flops, proc.stderr)
        if not ok:
            assert "work.flops" in proc.stderr and "torch counts" in proc.stderr


def test_a_scatter_s_bytes_are_checked_against_what_canonical_compares(tasks_root):
    """A KV-cache write (tasks/torch2cuda/rotary_kv_write) is handed a whole cache and writes only its
    slots; canonical() compares those. Its bytes may then lie below the raw outputs (here 8 n floats)
    but never below canonical()'s outputs (n floats)."""
    task = tasks_root / SCALE
    (task / "reference.py").write_text(
        "import torch\n\ndef make_inputs(config, generator, device):\n"
        "    n = config['n']\n    slots = torch.randperm(8 * n, generator=generator)[:n]\n"
        "    return [torch.randn(n, generator=generator), slots, float(config['alpha'])]\n\n"
        "def reference(x, slots, alpha):\n    out = torch.zeros(8 * x.numel())\n    out[slots] = x * alpha\n    return out\n\n"
        "def canonical(outputs, x, slots, alpha):\n    return (outputs[0][slots],)\n")
    toml, original = _without_solution(task)
    for nbytes, ok in (("4*n + 8*n + 4*n", True), ("2*n", False)):
        proc = _validate_with_work(tasks_root, toml, original, nbytes, "n")
        assert (proc.returncode == 0) == ok, (nbytes, proc.stderr)
        if not ok:
            assert "less than its outputs" in proc.stderr and "as canonical() compares them" in proc.stderr, proc.stderr


def test_a_failing_reference_is_reported_under_the_path_it_was_asked_by(tasks_root, monkeypatch):
    """The AKA importer asked with folders under a relative --out: the problems came back keyed by
    absolute paths, matched none, and every task whose reference failed was imported."""
    from pathlib import Path

    from runner.tasks.refcheck import check_references
    (tasks_root / SCALE / "reference.py").write_text("raise ImportError('broken on purpose')\n")
    monkeypatch.chdir(tasks_root.parent)
    relative = Path(tasks_root.name)
    problems = check_references([relative / SCALE], relative)
    assert list(problems) == [relative / SCALE] and "broken on purpose" in problems[relative / SCALE], problems


def test_a_reference_that_is_the_baseline_must_return_new_tensors(tmp_path):
    """A PyTorch->X task's baseline is its reference, run in a kernel runner that refuses an output
    aliasing an input (protocol.output_problem). torch2cuda/permute's `.contiguous()` returned x
    itself on decode's seq 1 (a hidden config): the baseline failed that config in every evaluation,
    which left it untimed and put every attempt outside the hidden split's quadrants (red team,
    session 23). Validate refuses such a reference, naming the config."""
    from pathlib import Path

    from runner.tasks.refcheck import check_references
    shipped = Path(__file__).resolve().parent.parent / "tasks" / "torch2cuda" / "permute"
    task = tmp_path / "tasks" / "torch2cuda" / "permute"
    shutil.copytree(shipped, task)
    assert check_references([task], tmp_path / "tasks") == {}
    reference = task / "reference.py"
    reference.write_text(reference.read_text().replace(
        "x.permute(0, 2, 1, 3).clone(memory_format=torch.contiguous_format)", "x.permute(0, 2, 1, 3).contiguous()"))
    problems = check_references([task], tmp_path / "tasks")
    assert "breaks the outputs' contract: output 0 is (a view of) an input" in problems[task], problems
    assert "batch1-seq1-heads40-dim128" in problems[task], problems
