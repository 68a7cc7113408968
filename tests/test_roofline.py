"""Graded against the hardware (issue 33): [work] over a timed call against cached ceilings, the fields
result.json, scores and the report carry, and twins grouped per suite. The ceilings are measured on
a GPU (bench/ceilings.py); here they come from the cache file the judge would have written."""
import json

import pytest

from runner.evaluator.judge import roofline
from runner.results.result import AttemptResult, ConfigResult, Evaluation

from .conftest import SCALE

CEILINGS = {"gpu": "Test GPU", "driver": "1.0", "bandwidth_gbps": 1000.0,
            "tflops": {"float32": 50.0, "float16": 500.0}, "measured": "2026-11-28T00:00:00Z", "method": "test",
            "notes": []}


@pytest.fixture
def cached(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = roofline.cache_path("Test GPU", "1.0")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"version": roofline.CACHE_VERSION, **CEILINGS}))
    monkeypatch.setattr(roofline, "measure", lambda *a: pytest.fail("measured although cached"))
    return path


def _task(tasks_root, work='bytes = "8*n"\nflops = "2*n"\ndtype = "float32"'):
    from runner.tasks.task import load_task
    toml = tasks_root / SCALE / "task.toml"
    toml.write_text(toml.read_text().replace("[space]\n", f"[work]\n{work}\n\n[space]\n", 1))
    return load_task(tasks_root / SCALE, tasks_root)


def _evaluation(rows):
    return Evaluation(device="cuda", compiled=True, configs=rows, environment={"gpu": "Test GPU", "driver": "1.0"})


def test_a_memory_bound_call_is_graded_by_bandwidth():
    ceil = roofline.Ceilings(**CEILINGS)
    fig = roofline.figures(8e6, 2e6, 0.016, ceil, "float32")      # 8 MB in 16 us = 500 GB/s
    assert fig == {"achieved_gbps": 500.0, "achieved_tflops": 0.125, "roofline_fraction": 0.5, "bound": "memory"}


def test_a_compute_bound_call_is_graded_by_its_dtypes_gemm_peak():
    ceil = roofline.Ceilings(**CEILINGS)
    fig = roofline.figures(1e6, 1e12, 4.0, ceil, "float16")        # 1 TFLOP in 4 ms = 250 TFLOP/s of 500
    assert fig["bound"] == "compute" and fig["roofline_fraction"] == 0.5 and fig["achieved_tflops"] == 250.0
    # a dtype whose peak was not measured gives no fraction rather than another dtype's
    assert roofline.figures(1e6, 1e12, 4.0, ceil, "bfloat16")["roofline_fraction"] is None


def test_the_judge_annotates_each_timed_config_from_the_cached_ceilings(tasks_root, cached):
    task = _task(tasks_root)
    ok = ConfigResult(config="small", split="seen", params={"n": 1_000_000, "alpha": 2.0}, correct=True,
                      baseline_ms=0.032, candidate_ms=0.016, speedup=2.0)
    wrong = ConfigResult(config="odd", split="seen", params={"n": 4099, "alpha": -0.5}, correct=False,
                         baseline_ms=0.01, candidate_ms=0.001)
    evaluation = _evaluation([ok, wrong])
    assert roofline.annotate(evaluation, task, "cuda") == []
    assert ok.work_bytes == 8e6 and ok.achieved_gbps == 500.0 and ok.roofline_fraction == 0.5
    assert ok.bound == "memory" and ok.baseline_roofline_fraction == 0.25
    assert wrong.roofline_fraction is None and wrong.baseline_roofline_fraction is not None   # no credit for a wrong output
    assert evaluation.ceilings["bandwidth_gbps"] == 1000.0
    result = AttemptResult(task=task.id, category=task.category, agent="x", device="cuda", status="ok")
    evaluation.configs = [ok]
    result.apply(evaluation)
    again = AttemptResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.roofline_seen == 0.5 and again.configs[0].achieved_gbps == 500.0 and again.ceilings["tflops"]


def test_no_roofline_on_the_cpu_or_without_work(tasks_root, cached):
    task = _task(tasks_root)
    row = ConfigResult(config="small", split="seen", params={"n": 1000, "alpha": 2.0}, correct=True,
                       baseline_ms=1.0, candidate_ms=1.0)
    cpu = Evaluation(device="cpu", compiled=True, configs=[row], timing_meaningful=False)
    roofline.annotate(cpu, task, "cpu")
    assert row.roofline_fraction is None and cpu.ceilings == {}
    from runner.tasks.task import load_task
    plain = load_task(tasks_root / "triton2triton" / "scale", tasks_root)
    object.__setattr__(plain, "work", None)
    roofline.annotate(_evaluation([row]), plain, "cuda")
    assert row.roofline_fraction is None


def test_a_damaged_cache_is_measured_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = roofline.cache_path("G", "D")
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    calls = []
    monkeypatch.setattr(roofline, "measure", lambda gpu, driver: calls.append(gpu) or roofline.Ceilings(
        gpu=gpu, driver=driver, bandwidth_gbps=1.0))
    assert roofline.ceilings("G", "D").bandwidth_gbps == 1.0 and calls == ["G"]
    assert json.loads(path.read_text())["bandwidth_gbps"] == 1.0       # cached for the next evaluation
    assert roofline.ceilings("G", "D").bandwidth_gbps == 1.0 and calls == ["G"]


def _attempt(task, suites, speedup, roof):
    row = ConfigResult(config="c", split="seen", params={}, correct=True, speedup=speedup, roofline_fraction=roof)
    r = AttemptResult(task=task, category=task.split("/")[0], agent="a", device="cuda", status="ok", suites=suites)
    r.apply(Evaluation(device="cuda", compiled=True, configs=[row]))
    return r


def test_the_report_counts_twins_of_a_kernel_once_per_suite_and_language():
    from runner.results.report import aggregate, render, render_suites, suite_rows
    results = [_attempt("torch2cuda/softmax", ["headline"], 4.0, 0.8),
               _attempt("cuda2cuda/softmax", ["headline"], 1.0, 0.2),      # a twin: the same kernel in CUDA
               _attempt("torch2triton/softmax", ["headline"], 2.0, 0.5),
               _attempt("torch2cuda/gelu", ["smoke"], 1.0, 0.9)]
    rows = {r.suite: r for r in suite_rows(results)}
    assert rows["headline"].kernels == 2 and rows["headline"].tasks == 3 and rows["smoke"].kernels == 1
    # softmax in CUDA counts once (geomean 2.0 of its two twins), Triton once: geomean(2, 2) = 2
    assert rows["headline"].geomean_speedup_seen == pytest.approx(2.0)
    assert rows["headline"].roofline_seen == pytest.approx((0.8 * 0.2) ** 0.25 * 0.5 ** 0.5)
    text = render_suites(list(rows.values()))
    assert "headline" in text and "smoke" in text and "once per language" in text
    table = render(aggregate(results), "table")
    assert "roofline" in table
