"""The documentation site builds with no warnings and holds what it promises.

One Sphinx build (``python -m sphinx -W``, the README's docs command) runs in a subprocess with
the vignettes in their quick mode (``SDRSTATS_QUICK=1``), into a temporary folder; the tests
below read the HTML it wrote. Nothing is cached between runs: every build executes the vignettes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sdrstats as sdr
from sdrstats import vignettes

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs")
    env = {**os.environ, "SDRSTATS_QUICK": "1"}
    env["PYTHONPATH"] = str(ROOT) + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
    )
    env.pop("MPLBACKEND", None)
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-q",
        "-b",
        "html",
        "-d",
        str(out / "doctrees"),
        str(DOCS),
        str(out / "html"),
    ]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    # -W turns every Sphinx warning into a failure; print them all when it fails.
    warnings = [
        line for line in done.stderr.splitlines() if "WARNING" in line and "IPKernelApp" not in line
    ]  # the kernel's own log line, not Sphinx's
    assert done.returncode == 0 and not warnings, f"sphinx exited {done.returncode}:\n" + "\n".join(
        warnings or done.stderr.splitlines()[-40:]
    )
    return out / "html"


def _page(site: Path, name: str) -> str:
    path = site / name
    assert path.is_file(), f"{name} was not built"
    return path.read_text(encoding="utf-8")


def test_every_vignette_is_rendered_with_output_and_figures(site):
    for path in vignettes.available():
        html = _page(site, f"vignettes/{path.stem}.html")
        figures = re.findall(r'<img[^>]+src="([^"]+\.png)"', html)
        assert figures, f"{path.stem}: no figure on the page"
        for figure in figures:
            assert (site / "vignettes" / figure).resolve().stat().st_size > 1000, figure
        assert 'class="output' in html, f"{path.stem}: no cell output on the page"
    classic = _page(site, "vignettes/01_classic_sdr_ais.html")
    # The SIR summary printed by the first vignette, as R dr's summary.dr prints it.
    assert "Large-sample Marginal Dimension Tests" in classic


def test_every_exported_name_has_an_api_page(site):
    missing = []
    for name in sdr.__all__:
        if name in ("datasets", "distances"):  # modules: their functions have pages
            continue
        if not (site / "api" / "generated" / f"sdrstats.{name}.html").is_file():
            missing.append(name)
    assert not missing, f"no API page for {missing}: add them to docs/api/index.rst"
    sir = _page(site, "api/generated/sdrstats.sir.html")
    assert "Parameters" in sir and "nslices" in sir


def test_benchmark_results_are_pages(site):
    results = _page(site, "benchmarks/generated/results.html")
    assert "statsmodels" in results
    for source in (ROOT / "benchmarks").glob("bench_*.md"):
        _page(site, f"benchmarks/generated/speed_{source.stem}.html")
    for source in (ROOT / "benchmarks" / "papers").glob("*.md"):
        _page(site, f"benchmarks/generated/paper_{source.stem}.html")
