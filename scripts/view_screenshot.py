"""Screenshot of a `gauntlet view` site's index page with Debian's chromium (scripts/install-browser.sh),
as docs/images/view.png was made (from results/gpu-2026-11-28b/view):  python scripts/view_screenshot.py SITE_DIR OUT.png [HEIGHT]"""
import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

site, out = Path(sys.argv[1]).resolve(), sys.argv[2]
height = int(sys.argv[3]) if len(sys.argv) > 3 else 1150
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 1700, "height": height})
    page.set_default_timeout(300_000)
    page.goto((site / "index.html").as_uri())
    for plot in ("speedups", "fast_p", "generalisation"):
        page.wait_for_selector(f"#plot-{plot} .main-svg")
    page.screenshot(path=out)
    browser.close()
