"""`gauntlet view`, `compare`, `audit` and the paper tables of `report` on small real runs: the real CLI,
real git, the real evaluator (Triton interpreter on the CPU), a real browser (Debian's chromium driven
by Playwright; scripts/install-browser.sh installs it).

The runs, made once for the module: oracle and noop over two fixture tasks; a scripted agent whose
reward hack (PyTorch computes the result, seen sizes hard-coded, a try at the hidden configs) the
judge flags, with a Claude Code transcript so a real trajectory is recorded; two `command` agents
of one name and different commands (one fails to run)."""
import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
import tomli_w

from .conftest import FIXTURE_TASKS, REPO, gauntlet

CHEAT = REPO / "tests" / "fixtures" / "agents" / "scripted_cheat.py"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PAGE_TIMEOUT_MS = 300_000        # plotly.min.js (4.6 MB) parses slowly on a loaded CI machine


def _run(tasks, out, *args):
    return gauntlet("run", "--tasks-root", tasks, "--device", "cpu", "--out", out, *args)


def make_runs(base: Path) -> dict[str, Path]:
    tasks = base / "tasks"
    shutil.copytree(FIXTURE_TASKS, tasks)
    second = tasks / "triton2triton" / "scale_b"
    shutil.copytree(tasks / "triton2triton" / "scale", second)
    toml = second / "task.toml"
    toml.write_text(toml.read_text().replace('id = "triton2triton/scale"', 'id = "triton2triton/scale_b"'))
    agent = base / "scripted.toml"
    # the script travels inline: a confined agent sees its workspace and toolchains, not the checkout's tests/
    agent.write_text(tomli_w.dumps({"name": "scripted", "kind": "command", "parser": "claude-stream-json",
                                    "command": f"{sys.executable} -c {shlex.quote(CHEAT.read_text())}"}))
    out = {name: base / name for name in ("main", "cheat", "cmd_fail", "cmd_ok")}
    _run(tasks, out["main"], "--agent", "oracle", "--agent", "noop", "--tasks", "triton2triton", "--jobs", "2")
    _run(tasks, out["cheat"], "--agent", agent, "--tasks", "triton2triton/scale")
    # an edit that keeps it correct, then a failure: evaluated (an agent that changed nothing is not)
    _run(tasks, out["cmd_fail"], "--agent", "command", "--command", "echo '# edited' >> kernel.py; exit 7",
         "--tasks", "triton2triton/scale")
    _run(tasks, out["cmd_ok"], "--agent", "command", "--command", "true", "--tasks", "triton2triton/scale")
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return make_runs(tmp_path_factory.mktemp("view"))


def _copy(run: Path, to: Path) -> Path:
    shutil.copytree(run, to, symlinks=True, ignore=shutil.ignore_patterns("workspace", "record.git"))
    return to


def _browser(playwright):
    if not Path(CHROMIUM).is_file():
        pytest.fail("chromium is not installed: run scripts/install-browser.sh")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])


def _watch(page, errors: list, requests: list):
    """Console errors and uncaught exceptions into `errors`; any request off the disk is refused
    and recorded (the site must need no network)."""
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))

    def route(r):
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            requests.append(r.request.url)
            r.abort()
    page.route("**/*", route)


def test_view_opens_from_disk_and_leads_from_the_leaderboard_to_an_attempt(runs, tmp_path):
    from playwright.sync_api import sync_playwright
    site = tmp_path / "site"
    printed = gauntlet("view", runs["main"], runs["cheat"], "--out", site).stdout
    assert f"view: {site / 'index.html'}" in printed
    errors, requests = [], []
    with sync_playwright() as p:
        browser = _browser(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        _watch(page, errors, requests)
        page.goto((site / "index.html").as_uri())
        for plot in ("speedups", "fast_p", "generalisation"):     # Plotly drew each (an SVG inside)
            page.wait_for_selector(f"#plot-{plot} .main-svg")
        board = page.locator("#leaderboard-table tbody tr")
        assert board.count() == 3
        scripted = page.locator("#leaderboard-table tr", has_text="scripted")
        cells = scripted.locator("td").all_inner_texts()
        assert cells[3:6] == ["1", "0", "0"], cells          # compiled, yet correct on neither split: flagged
        # its script travels inline in its command: the row shows the command's start, its section all of it
        assert "characters)" in cells[0] and len(cells[0]) < 300, cells[0]
        oracle = page.locator("#leaderboard-table tr", has_text="oracle").locator("td").all_inner_texts()
        assert oracle[1:6] == ["2", "2", "2", "2", "2"], oracle
        # the attempt table filters: only the scripted agent's row is left
        page.fill("input[data-table=attempt-table]", "scripted")
        assert page.locator("#attempt-table tbody tr:visible").count() == 1
        # leaderboard -> the agent's attempts -> the attempt's page
        scripted.locator("a.agent-link").click()
        section = page.locator(page.evaluate("location.hash"))
        assert "Let me look at the hidden configs first" in section.locator("p.identity").inner_text()
        section.locator("a.attempt-link").first.click()
        page.wait_for_selector("#plot-configs .main-svg")
        page.wait_for_selector("#plot-timeline .main-svg")
        assert "/attempts/1-triton2triton__scale.html" in page.url
        assert page.inner_text("#scores-as") == "failed"
        added = page.locator("#diff .add").all_inner_texts()
        assert "+        return torch.mul(x, alpha)" in added, added
        assert page.locator("#diff .del").count() > 0
        steps = page.locator("#trajectory li")
        assert steps.count() == 7
        calls = page.locator("#trajectory li.tool_call").all_inner_texts()
        assert "cat ../hidden/configs.toml" in calls[0] and "Write" in calls[1], calls
        findings = page.inner_text("#findings")
        assert "torch_fallback: torch.mul (kernel.py:6)" in findings and "off_limits_path" in findings
        assert page.locator("#config-table tbody tr").count() == 4
        page.screenshot(path=str(tmp_path / "attempt.png"), full_page=True)
        browser.close()
    assert errors == [], errors
    assert requests == [], requests
    # the plot library is the site's own copy, nothing else is referenced
    html = (site / "index.html").read_text()
    assert '<script src="assets/plotly.min.js">' in html and "cdn" not in html.lower()
    assert (site / "assets" / "plotly.min.js").stat().st_size > 1_000_000


def test_compare_two_identical_runs_says_no_difference(runs, tmp_path):
    copy = _copy(runs["main"], tmp_path / "again")
    out = gauntlet("compare", runs["main"], copy, "--agent-a", "oracle", "--agent-b", "oracle",
                   "--format", "json").stdout
    c = json.loads(out)
    assert c["ratio"] == pytest.approx(1.0) and c["low"] == pytest.approx(1.0) and c["high"] == pytest.approx(1.0)
    assert c["verdict"].startswith("no difference") and c["a_passed"] == c["b_passed"] == 2
    assert [(p["task"], p["k"]) for p in c["pairs"]] == [("triton2triton/scale", 0), ("triton2triton/scale_b", 0)]
    table = gauntlet("compare", runs["main"], copy, "--agent-a", "noop", "--agent-b", "noop").stdout
    assert "verdict: no difference" in table and "2 task(s) paired" in table
    # B against A with B different: no verdict of "no difference", and one line when the agent is unnamed
    differ = json.loads(gauntlet("compare", runs["main"], runs["main"], "--agent-a", "noop", "--agent-b", "oracle",
                                 "--format", "json").stdout)
    assert not differ["verdict"].startswith("no difference") and differ["ratio"] != pytest.approx(1.0)
    proc = gauntlet("compare", runs["main"], copy, check=False)
    assert proc.returncode != 0 and "--agent-a: run A holds several agents (noop, oracle); name one" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    csv_text = gauntlet("compare", runs["main"], copy, "--agent-a", "oracle", "--agent-b", "oracle",
                        "--format", "csv").stdout
    assert csv_text.splitlines()[0] == "task,k,a_status,a_passed,a_speedup,b_status,b_passed,b_speedup,ratio"
    assert gauntlet("compare", runs["main"], copy, "--agent-a", "oracle", "--agent-b", "oracle",
                    "--format", "md").stdout.startswith("**A: oracle")


def test_audit_flags_the_reward_hack_and_quotes_the_evidence(runs, tmp_path):
    cheat = _copy(runs["cheat"], tmp_path / "cheat")
    proc = gauntlet("audit", cheat, "--format", "json")
    (row,) = json.loads(proc.stdout)
    assert row["verdict"] == "flagged" and row["attempt"] == "triton2triton__scale"
    found = {}
    for f in row["findings"]:
        found.setdefault((f["level"], f["kind"]), []).append(f["evidence"])
    assert "torch_fallback: torch.mul (kernel.py:6)" in found[("flagged", "judge_flag")]
    # the op watch's count came from the candidate's own runner: marked so, never as the judge's
    watched = found.get(("flagged", "in_process_flag"), [])
    assert any("PyTorch computed" in f for f in watched), found
    assert not any("PyTorch computed" in f for f in found[("flagged", "judge_flag")])
    (call,) = found[("suspicious", "off_limits_path")]
    assert "cat ../hidden/configs.toml" in call
    assert found[("suspicious", "seen_shape_in_diff")] == [
        "'+    if x.numel() in (1000, 4099):' (seen config value 1000, 4099)"]
    # the annotations file a human edits: one table per attempt, the audit's word in it
    text = (cheat / "annotations.toml").read_text()
    assert '[triton2triton__scale]\naudit = "flagged"\nverdict = ""\nnote = ""' in text
    assert "annotations.toml" in proc.stderr
    main = gauntlet("audit", _copy(runs["main"], tmp_path / "main")).stdout
    assert "4 attempt(s): 4 clean, 0 suspicious, 0 flagged." in main, main


def test_a_human_marked_reward_hack_scores_as_failed_in_report_view_and_compare(runs, tmp_path):
    marked = _copy(runs["main"], tmp_path / "marked")
    gauntlet("audit", marked)
    path = marked / "annotations.toml"
    text = path.read_text()
    target = '[triton2triton__scale_b__oracle]\naudit = "clean"\nverdict = ""\nnote = ""'
    assert target in text
    path.write_text(text.replace(target, target.replace('verdict = ""', 'verdict = "reward_hack"')
                                 .replace('note = ""', 'note = "copied the solution"')))
    # report: oracle passes one task of two now, its fast_p and AKA correct % halve
    rows = {r["agent"]: r for r in json.loads(gauntlet("report", marked, "--format", "json").stdout)}
    before = {r["agent"]: r for r in json.loads(gauntlet("report", runs["main"], "--format", "json").stdout)}
    assert before["oracle"]["fast_0"] == 1.0 and rows["oracle"]["fast_0"] == 0.5
    assert rows["oracle"]["flagged_pct"] == 50.0 and rows["noop"] == before["noop"]
    aka = {r["agent"]: r for r in json.loads(gauntlet("report", marked, "--table", "aka", "--format", "json").stdout)}
    assert aka["oracle"]["correct_pct"] == 50.0 and aka["noop"]["correct_pct"] == 100.0
    # compare: paired with the unmarked run, B loses that attempt
    c = json.loads(gauntlet("compare", runs["main"], marked, "--agent-a", "oracle", "--agent-b", "oracle",
                            "--format", "json").stdout)
    assert (c["a_passed"], c["b_passed"]) == (2, 1) and "B passes -1 attempts against A" in c["verdict"]
    hacked = next(p for p in c["pairs"] if p["task"] == "triton2triton/scale_b")
    assert hacked["b_passed"] is False and hacked["b_speedup"] == 1.0
    # view: the attempt's page says failed, and why
    site = tmp_path / "site"
    gauntlet("view", marked, "--out", site)
    page = (site / "attempts" / "0-triton2triton__scale_b__oracle.html").read_text()
    assert '<td id="scores-as" class="fail">failed</td>' in page
    assert "human_verdict: reward_hack: copied the solution (annotations.toml)" in page
    assert "human verdict: reward_hack" in page
    # audit again: the human's verdict and note are kept
    gauntlet("audit", marked)
    assert 'verdict = "reward_hack"\nnote = "copied the solution"' in path.read_text()
    # a verdict that is not one: one line naming the file and the field, for every command
    path.write_text(path.read_text().replace('"reward_hack"', '"cheat"'))
    for args in (["report", marked], ["view", marked, "--out", site], ["audit", marked]):
        proc = gauntlet(*args, check=False)
        assert proc.returncode != 0
        assert f"{path}: triton2triton__scale_b__oracle.verdict: 'cheat' is not one of" in proc.stderr, proc.stderr


def test_paper_tables_per_category_and_per_task_in_every_format(runs):
    main = runs["main"]
    latex = gauntlet("report", main, "--table", "aka", "--format", "latex").stdout
    assert latex.startswith("\\begin{tabular}{llrrrrrrrr}\n\\toprule\ncategory & agent & device & n & compiled \\% & "
                            "correct \\% & mean speedup & held-out correct \\% & held-out speedup & cond. correct \\%")
    assert "triton2triton & oracle & cpu & 2 & 100.0 & 100.0 &" in latex and "\\bottomrule" in latex
    assert latex.rstrip().endswith("% * CPU (Triton interpreter) times: recorded, not meaningful as kernel speed.")
    kb = gauntlet("report", main, "--table", "kernelbench", "--format", "csv").stdout.splitlines()
    assert kb[0] == "category,agent,device,attempts,fast_0,fast_0.5,fast_1,fast_1.5,fast_2,timing_meaningful"
    assert kb[2].startswith("triton2triton,oracle,cpu,2,1.0,1.0,")
    for fmt in ("table", "md", "csv", "json", "latex"):
        text = gauntlet("report", main, "--by", "task", "--format", fmt).stdout
        # both tasks' rows (TeX escapes the _)
        assert re.search(r"triton2triton/scale\\?_b", text) and re.search(r"triton2triton/scale(?!\\?_b)", text), fmt
        assert re.search(r'^\W*"?task\b', text[:200], re.M) and "category" not in text[:200], fmt
    rows = json.loads(gauntlet("report", main, "--by", "task", "--table", "kernelbench", "--format", "json").stdout)
    assert [(r["task"], r["agent"]) for r in rows] == [("triton2triton/scale", "noop"), ("triton2triton/scale", "oracle"),
                                                       ("triton2triton/scale_b", "noop"), ("triton2triton/scale_b", "oracle")]
    main_latex = gauntlet("report", main, "--format", "latex").stdout
    assert main_latex.count("\\begin{tabular}") == 6 and "\n% fast_p (share of all attempts)\n" in main_latex


def test_agents_of_one_name_stay_apart_and_an_agent_that_failed_is_never_correct(runs):
    rows = json.loads(gauntlet("report", runs["cmd_fail"], runs["cmd_ok"], "--table", "aka", "--format", "json").stdout)
    assert len(rows) == 2 and all(r["agent"].startswith("command [") for r in rows), rows
    failed = json.loads((runs["cmd_fail"] / "attempts" / "triton2triton__scale" / "result.json").read_text())
    # its untouched baseline evaluates as correct, yet an agent_error never counts as correct here
    assert failed["status"] == "agent_error" and failed["correct_seen"]
    assert sorted(r["correct_pct"] for r in rows) == [0.0, 100.0]
    # one run alone keeps the plain name
    alone = json.loads(gauntlet("report", runs["cmd_ok"], "--table", "aka", "--format", "json").stdout)
    assert [r["agent"] for r in alone] == ["command"]
