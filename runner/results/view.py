"""`gauntlet view RUN [RUN...] --out DIR`: a static site that opens from disk with no server and no
network. Jinja2 renders the pages (templates/), Plotly draws the plots, and plotly.min.js (shipped
by the plotly package) is copied into DIR/assets, so nothing is fetched.

  index.html               leaderboard per agent identity, per-category and per-task tables (sortable,
                           filterable), plots, and a comparison when two runs are given
  attempts/<run>-<name>.html  one attempt: status, flags with evidence, violations, the diff, the
                           trajectory turn by turn, usage, the phase timeline, per-config times

Scores follow runner/results/score.py on Attempt.scored(): a status other than ok/agent_timeout, a judge's
flag or a human's reward_hack verdict never passes.
"""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

from runner.results import score
from runner.results.audit import audit_attempt, trajectory_steps
from runner.results.compare import CompareError, compare
from runner.results.load import Attempt
from runner.results.stats import bootstrap_geomean
from runner.results.tables import aka_rows, kernelbench_rows

FAST_P_SHOWN = (0.0, 1.0, 1.5, 2.0)
TOKEN_KEYS = ("input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens")
DIFF_LIMIT = 400_000          # characters of a diff shown on a page


def _value(a: Attempt, split: str = "seen") -> float:
    """The attempt's speedup when it passes, else 1.0 (the baseline stays in place)."""
    r = a.scored()
    s = score.speedup(r, split) if score.passed(r, split) else None
    return s if s is not None else score.FAILED_SPEEDUP


def _page_name(run_index: int, a: Attempt) -> str:
    return f"attempts/{run_index}-{a.name}.html"


def leaderboard(attempts: list[Attempt]) -> list[dict]:
    rows = []
    for label in sorted({a.result.agent for a in attempts}):
        group = [a for a in attempts if a.result.agent == label]
        scored = [a.scored() for a in group]
        by_task: dict[str, list[float]] = {}
        for a in group:
            by_task.setdefault(a.result.task, []).append(_value(a))
        k = min(len(v) for v in by_task.values())
        usage = [a.result.usage or {} for a in group]
        costs = [a.result.cost_usd for a in group if a.result.cost_usd is not None]
        seconds = [a.result.agent_seconds for a in group if a.result.agent_seconds is not None]
        rows.append({
            "agent": label, "identity": group[0].identity.describe(limit=100), "identity_full": group[0].identity.describe(), "attempts": len(group), "tasks": len(by_task),
            "compiled": sum(score.compiled(r) for r in scored),
            "correct_seen": sum(score.passed(r, "seen") for r in scored),
            "correct_hidden": sum(score.passed(r, "unseen") for r in scored),
            "speedup": bootstrap_geomean(list(by_task.values())),
            **{f"fast_{p:g}": score.fast_p(scored, p) for p in FAST_P_SHOWN},
            "k": k, "pass_at_k": score.pass_at_k(scored, k),
            # a sum over some attempts would read as the whole: none unless every one is priced
            "cost": sum(costs) if costs and len(costs) == len(group) else None,
            "unpriced": len(group) - len(costs),
            "tokens": sum(u.get(t, 0) or 0 for u in usage for t in TOKEN_KEYS) or None,
            "agent_seconds": sum(seconds) if seconds else None,
            "infra_errors": sum(a.result.status == "infra_error" for a in group),
            "task_errors": sum(a.result.status == "task_error" for a in group),
            "agent_errors": sum(a.result.status == "agent_error" for a in group),
            "flagged": sum(bool(a.result.flags) for a in group),
            "timing_meaningful": all(a.result.timing_meaningful for a in group)})
    return rows


def _plots(attempts: list[Attempt]) -> dict[str, str]:
    import plotly.graph_objects as go
    agents = sorted({a.result.agent for a in attempts})
    layout = dict(template="plotly_white", width=470, height=360, margin=dict(l=50, r=20, t=40, b=40))
    dist = go.Figure(layout=dict(title="Speedup per attempt (seen; a failure is 1.0x)",
                                 yaxis_title="speedup (x)", **layout))
    for agent in agents:
        group = [a for a in attempts if a.result.agent == agent]
        dist.add_trace(go.Box(y=[_value(a) for a in group], name=agent, boxpoints="all", jitter=0.4,
                              text=[a.result.task for a in group]))
    ps = [i / 20 for i in range(0, 61)]
    fast = go.Figure(layout=dict(title="fast_p: share passing and > p x faster",
                                 xaxis_title="p", yaxis_title="fast_p", yaxis_range=[0, 1.05], **layout))
    for agent in agents:
        scored = [a.scored() for a in attempts if a.result.agent == agent]
        fast.add_trace(go.Scatter(x=ps, y=[score.fast_p(scored, p) for p in ps], mode="lines", name=agent,
                                  line_shape="hv"))
    gap = go.Figure(layout=dict(title="Seen vs hidden speedup per attempt",
                                xaxis_title="seen speedup (x)", yaxis_title="hidden speedup (x)", **layout))
    top = 1.0
    for agent in agents:
        group = [a for a in attempts if a.result.agent == agent]
        xs, ys = [_value(a, "seen") for a in group], [_value(a, "unseen") for a in group]
        top = max([top, *xs, *ys])
        gap.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name=agent, text=[a.result.task for a in group],
                                 marker=dict(size=10)))
    gap.add_trace(go.Scatter(x=[0, top * 1.1], y=[0, top * 1.1], mode="lines", name="hidden = seen",
                             line=dict(dash="dot", color="grey")))
    return {name: _html(fig, f"plot-{name}")
            for name, fig in (("speedups", dist), ("fast_p", fast), ("generalisation", gap))}


def _html(fig, div_id: str) -> str:
    """The figure's div and script, at the figure's own size (plotly.min.js is the site's own copy)."""
    return fig.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, config={"displaylogo": False})


def _config_plot(a: Attempt) -> str | None:
    import plotly.graph_objects as go
    rows = [c for c in a.result.configs if c.baseline_ms is not None or c.candidate_ms is not None]
    if not rows:
        return None
    names = [f"{c.config} ({c.split})" for c in rows]
    fig = go.Figure(layout=dict(title="Per config: time per call, bars ± half the interquartile range",
                                yaxis_title="ms per call", barmode="group", template="plotly_white",
                                width=1000, height=340, margin=dict(l=50, r=20, t=40, b=60)))
    for role in ("baseline", "candidate"):
        fig.add_trace(go.Bar(x=names, y=[getattr(c, f"{role}_ms") for c in rows], name=role,
                             error_y=dict(type="data", array=[(getattr(c, f"{role}_iqr_ms") or 0) / 2 for c in rows])))
    return _html(fig, "plot-configs")


def _timeline_plot(a: Attempt) -> str | None:
    """Agent then evaluation, in seconds from the attempt's start (what result.json records)."""
    import datetime as dt
    import plotly.graph_objects as go
    r = a.result
    try:
        start = dt.datetime.fromisoformat(r.started).timestamp()
    except (TypeError, ValueError):
        return None
    bars = []
    if r.agent_seconds is not None:
        bars.append(("agent", 0.0, r.agent_seconds))
    if r.eval_started and r.eval_finished:
        bars.append(("evaluation", r.eval_started - start, r.eval_finished - r.eval_started))
    elif r.eval_seconds is not None and r.agent_seconds is not None:
        bars.append(("evaluation", r.agent_seconds, r.eval_seconds))
    if not bars:
        return None
    fig = go.Figure(go.Bar(y=[b[0] for b in bars], x=[b[2] for b in bars], base=[b[1] for b in bars],
                           orientation="h", text=[f"{b[2]:.1f} s" for b in bars]),
                    layout=dict(title="Phases (seconds from the attempt's start)", xaxis_title="s",
                                template="plotly_white", width=1000, height=220, margin=dict(l=90, r=20, t=40, b=40)))
    return _html(fig, "plot-timeline")


def _diff_lines(a: Attempt) -> list[tuple[str, str]]:
    try:
        text = (a.dir / "diff.patch").read_text(errors="replace")
    except OSError:
        return []
    if not text.strip():
        return []
    cut = len(text) > DIFF_LIMIT
    lines = []
    for line in text[:DIFF_LIMIT].splitlines():
        kind = ("meta" if line.startswith(("diff ", "index ", "+++", "---")) else "hunk" if line.startswith("@@")
                else "add" if line.startswith("+") else "del" if line.startswith("-") else "ctx")
        lines.append((kind, line))
    if cut:
        lines.append(("meta", f"[{len(text) - DIFF_LIMIT} more characters: see diff.patch]"))
    return lines


def _log_tail(path: Path, limit: int = 20_000) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return text[-limit:]


def _steps(a: Attempt) -> list[dict]:
    steps = trajectory_steps(a)
    for step in steps:
        if step.get("type") == "tool_call":
            step["input_text"] = json.dumps(step.get("input"), indent=2, ensure_ascii=False)
    return steps


def _fmt(value, unit: str = "", digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        return f"{value:.{digits}f}{unit}"
    return f"{value}{unit}"


def _comparisons(attempts: list[Attempt], run_dirs: list[Path]) -> list:
    """Two runs: B against A for their one agent each, else for every agent both runs hold."""
    first, second = ([a for a in attempts if a.run_dir.resolve() == Path(d).resolve()] for d in run_dirs)
    labels_a, labels_b = sorted({a.result.agent for a in first}), sorted({a.result.agent for a in second})
    pairs = ([(labels_a[0], labels_b[0])] if len(labels_a) == len(labels_b) == 1
             else [(label, label) for label in labels_a if label in labels_b])
    out = []
    for a, b in pairs:
        try:
            out.append(compare(first, second, a, b))
        except CompareError:      # no shared task: nothing to pair for these two
            continue
    return out


def build_site(attempts: list[Attempt], run_dirs: list[Path], out: Path) -> Path:
    import jinja2
    import plotly
    out = Path(out)
    (out / "attempts").mkdir(parents=True, exist_ok=True)
    (out / "assets").mkdir(exist_ok=True)
    shutil.copyfile(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", out / "assets" / "plotly.min.js")
    env = jinja2.Environment(loader=jinja2.PackageLoader("runner.results", "templates"),
                             autoescape=jinja2.select_autoescape(["html"]), undefined=jinja2.StrictUndefined)
    env.filters["fmt"] = _fmt
    shutil.copyfile(Path(__file__).parent / "templates" / "site.css", out / "assets" / "site.css")
    shutil.copyfile(Path(__file__).parent / "templates" / "tables.js", out / "assets" / "tables.js")
    run_index = {Path(d).resolve(): i for i, d in enumerate(run_dirs)}
    pages = {}
    audits = {}
    for a in attempts:
        idx = run_index.get(a.run_dir.resolve(), 0)
        pages[id(a)] = _page_name(idx, a)
        audits[id(a)] = audit_attempt(a)
    cpu = any(not a.result.timing_meaningful for a in attempts)
    results = [a.scored() for a in attempts]
    comparisons = _comparisons(attempts, run_dirs) if len(run_dirs) == 2 else []
    attempt_rows = [{"a": a, "page": pages[id(a)], "audit": audits[id(a)], "value": _value(a),
                     "passed": score.passed(a.scored(), "seen")} for a in attempts]
    attempt_rows.sort(key=lambda row: (row["a"].result.task, row["a"].result.agent, row["a"].result.attempt))
    index = out / "index.html"
    index.write_text(env.get_template("index.html").render(
        title="Gauntlet results", runs=[str(d) for d in run_dirs], leaderboard=leaderboard(attempts),
        categories=aka_rows(results), kernelbench=kernelbench_rows(results), attempts=attempt_rows,
        plots=_plots(attempts), cpu=cpu, comparisons=comparisons,
        manifests=[a.manifest for a in attempts[:1]], root=""))
    for row in attempt_rows:
        a = row["a"]
        (out / row["page"]).write_text(env.get_template("attempt.html").render(
            title=f"{a.result.task} ({a.result.agent})", a=a, r=a.result, audit=row["audit"], passed=row["passed"],
            diff=_diff_lines(a), steps=_steps(a), stdout=_log_tail(a.dir / "agent" / "stdout.log"),
            stderr=_log_tail(a.dir / "agent" / "stderr.log"), config_plot=_config_plot(a),
            timeline_plot=_timeline_plot(a), cpu=not a.result.timing_meaningful, root="../"))
    return index
