"""The documentation site, looked at in a real browser (headless Chromium).

The built site is opened from disk, as a reader with no network opens it: screenshots of the
landing page, the "For R users" page, a family page and an API page must show content (not
a blank or an error page), and the maths must have been typeset by the local MathJax (no raw
``\\(`` left in the page the browser built). Skipped where Chromium is not installed
(``.ci/run`` installs it: ``apt-get install -y chromium``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

BROWSER = next(
    (
        shutil.which(name)
        for name in ("chromium", "chromium-browser", "google-chrome")
        if shutil.which(name)
    ),
    None,
)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="Chromium is not installed")

#: Flags for a headless run with no network, no first-run work and a throwaway profile.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--virtual-time-budget=10000",  # lets MathJax finish before the capture
]

PAGES = {
    "landing": "index.html",
    "R users": "r_users.html",
    "family": "methods/moment.html",
    "API": "api/generated/sdrstats.sir.html",
}


def _chromium(*arguments: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [BROWSER, *FLAGS, f"--user-data-dir={profile}", *arguments],
            capture_output=True,
            text=True,
            timeout=120,
        )


@pytest.mark.parametrize("name", list(PAGES))
def test_pages_render_with_content_in_chromium(docs_site, tmp_path, name):
    page = docs_site / PAGES[name]
    shot = tmp_path / "page.png"
    done = _chromium("--window-size=1280,1600", f"--screenshot={shot}", page.as_uri())
    assert shot.is_file(), done.stderr[-2000:]
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (1600, 1280)
    flat = (pixels * 255).astype(np.uint8).reshape(-1, 3)
    colours, counts = np.unique(flat, axis=0, return_counts=True)
    background = counts.max() / counts.sum()
    # a blank or error page is one colour (or nearly); a page of text, code and a sidebar is
    # not: at least 5 % of it differs from the background, in many shades (anti-aliased text)
    assert background < 0.95, f"{name}: {background:.1%} of the screenshot is one colour"
    assert len(colours) > 200, f"{name}: only {len(colours)} colours"
    # the page's own content sits right of the sidebar: not blank either
    content = (pixels[:, 400:] * 255).astype(np.uint8).reshape(-1, 3)
    assert (content != content[0]).any(axis=1).mean() > 0.05, f"{name}: empty content column"


def test_maths_is_typeset_by_the_local_mathjax(docs_site):
    done = _chromium("--dump-dom", (docs_site / "methods" / "moment.html").as_uri())
    dom = done.stdout
    assert "<mjx-container" in dom, "MathJax did not typeset the page"
    text = re.sub(r"<(script|style)\b.*?</\1>", "", dom, flags=re.S)
    assert "\\(" not in re.sub(r"<[^>]+>", "", text), "raw \\( left after MathJax ran"
