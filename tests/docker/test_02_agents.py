"""noop, oracle and command agents through `gauntlet run --backend docker --device cpu`."""
from __future__ import annotations

import json

RESULTS = {}  # first oracle result, compared again after the hostile tests (test_zz_after)


def test_noop(run_agent):
    a = run_agent("noop")
    r = a.result
    assert r["status"] == "ok", r
    assert r["compiled"] and r["correct_seen"] and r["correct_unseen"], r
    assert r["changed_files"] == [] and a.diff.strip() == ""
    assert not r["flags"], r["flags"]          # nothing of the judge's (its process watch included) on an honest run


def test_oracle(run_agent):
    a = run_agent("oracle")
    r = a.result
    assert r["status"] == "ok", r
    assert r["compiled"] and r["correct_seen"] and r["correct_unseen"], r
    assert r["changed_files"] == ["kernel.py"] and r["violations"] == []
    RESULTS["oracle"] = {k: r[k] for k in ("status", "compiled", "correct_seen", "correct_unseen",
                                            "changed_files", "violations")}
    ev = json.loads((a.dir / "evaluation.json").read_text())
    assert ev  # written by the evaluator inside the eval container, read back by the host
    # the run records which image it ran in, by content id (docker's own id of the tag it used)
    import docker
    from runner.sandbox.images import image_ref
    image = json.loads((a.run_dir / "manifest.json").read_text())["image"]
    assert image["ref"] == image_ref("cpu") and image["id"] == docker.from_env().images.get(image["ref"]).id
    assert image["id"].startswith("sha256:") and image["contents"]["agent_clis"] is not None, image


def test_command_agent_edits_and_self_checks(run_agent):
    # The agent runs the self-check from its prompt (runner is mounted read-only), then edits.
    command = ("cd {workspace} && python3 -m runner.evaluator {workspace} --workspace --device cpu "
               "--split seen --no-timing > check.json && "
               "echo '# edited by the agent' >> kernel.py && id -un > whoami.txt && cat {prompt_file} > /dev/null")
    a = run_agent("command", command)
    r = a.result
    assert r["status"] == "ok", (r, a.log("stderr.log"))
    assert r["agent_exit_code"] == 0
    check = json.loads(a.workspace("check.json").read_text())
    assert check["compiled"] and check["configs"] and all(c["correct"] for c in check["configs"]), check
    assert a.workspace("whoami.txt").read_text().strip() == "agent"
    assert "+# edited by the agent" in a.diff
    assert set(r["changed_files"]) == {"kernel.py", "check.json", "whoami.txt"}
    assert set(r["violations"]) == {"check.json", "whoami.txt"}
    assert r["compiled"] and r["correct_seen"] and r["correct_unseen"], r
