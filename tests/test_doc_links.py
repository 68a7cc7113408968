"""The docs a reader follows stay followable (issue 35): every relative markdown link in README.md,
docs/, results/ and bench/ points at a file or folder that exists; docs/ holds prose (and the
images a page shows), not run records; every run record in results/ has its page, which links it."""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "results").glob("*.md")),
            *sorted((REPO / "bench").rglob("*.md"))]


def broken_links(page: Path) -> list[str]:
    broken = []
    for match in LINK.finditer(page.read_text()):
        target = match.group(1).split("#")[0]
        if target and not re.match(r"[a-z]+:", target) and not (page.parent / target).exists():
            broken.append(f"{page.relative_to(REPO)}: ({match.group(1)})")
    return broken


def test_relative_links_resolve():
    assert [b for page in pages() for b in broken_links(page)] == []


def test_docs_hold_prose_only():
    docs = REPO / "docs"
    stray = [p.relative_to(REPO) for p in docs.rglob("*") if p.is_file()
             and not (p.parent == docs and p.suffix == ".md") and p.parent != docs / "images"]
    assert stray == [], "run records belong in results/, not docs/"


def test_every_run_record_has_a_page_that_links_it():
    results = REPO / "results"
    for folder in sorted(p for p in results.iterdir() if p.is_dir()):
        page = folder.with_suffix(".md")
        assert page.is_file(), f"results/{folder.name}/ has no results/{folder.name}.md"
        links = {m.group(1).rstrip("/") for m in LINK.finditer(page.read_text())}
        assert folder.name in links, f"results/{page.name} does not link its record ({folder.name}/)"
