"""The documentation site builds with no warnings and holds what it promises.

One Sphinx build (``python -m sphinx -W``, the README's docs command) runs in a subprocess with
the vignettes in their quick mode (``SDRSTATS_QUICK=1``), into a temporary folder (the
``docs_site`` fixture of ``tests/conftest.py``, shared by the workers of a parallel run); the
tests below read the HTML it wrote. Nothing is cached between runs: every build executes the
vignettes, the "For R users" page and the figures.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import sdrstats as sdr
from sdrstats import vignettes

ROOT = Path(__file__).resolve().parents[1]
FAMILY_PAGES = ["moment", "mave", "lsce", "spca", "sdspcaan", "online"]


@pytest.fixture(scope="module")
def site(docs_site) -> Path:
    return docs_site


def _page(site: Path, name: str) -> str:
    path = site / name
    assert path.is_file(), f"{name} was not built"
    return path.read_text(encoding="utf-8")


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)


def _text(html: str) -> str:
    """What a reader sees of a page: no scripts, styles or tags."""
    html = re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S)
    return re.sub(r"<[^>]+>", "", html)


def test_every_vignette_is_rendered_with_output_and_figures(site):
    for path in vignettes.available():
        html = _page(site, f"vignettes/{path.stem}.html")
        figures = re.findall(r'<img[^>]+src="([^"]+\.png)"', html)
        assert figures, f"{path.stem}: no figure on the page"
        for figure in figures:
            assert (site / "vignettes" / figure).resolve().stat().st_size > 1000, figure
        assert 'class="output' in html, f"{path.stem}: no cell output on the page"
        # no build plumbing on the page: figures are shown, never saved by the vignette, and
        # the quick-mode settings sit in a collapsed cell
        assert "savefig" not in html and "SDRSTATS_FIGURES" not in html, path.stem
        if "SDRSTATS_QUICK" in html:
            quick = html.index("SDRSTATS_QUICK")
            assert "tag_hide-input" in html[max(0, quick - 3000) : quick], path.stem
    classic = _page(site, "vignettes/01_classic_sdr_ais.html")
    # The SIR summary printed by the first vignette, as R dr's summary.dr prints it.
    assert "Large-sample Marginal Dimension Tests" in classic


def test_long_output_wraps_instead_of_running_off_the_page(site):
    css = (site / "_static" / "sdrstats.css").read_text(encoding="utf-8")
    assert "pre-wrap" in css
    assert "_static/sdrstats.css" in _page(site, "vignettes/01_classic_sdr_ais.html")


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


def test_the_api_index_is_grouped_by_family(site):
    html = _page(site, "api/index.html")
    index = _text(html[html.index("<article") :])  # the page, not the sidebar
    headings = [
        "R’s front door",
        "Moment methods",
        "MAVE",
        "Information-theoretic methods",
        "Supervised PCA and kernel methods",
        "Sparse discriminative PCA",
        "Sparse and streaming SIR",
        "What every fit shares",
        "Plots",
    ]
    positions = [index.find(h) for h in headings]
    assert -1 not in positions, dict(zip(headings, positions))
    assert positions == sorted(positions)


def test_types_are_rendered_as_names_not_as_intersphinx_targets(site):
    pattern = re.compile(r"python:(int|float|str|bool|None|True|False|dict|list|tuple|callable)")
    shown = {
        p.name: sorted(set(pattern.findall(_text(p.read_text(encoding="utf-8")))))
        for p in (site / "api" / "generated").glob("*.html")
    }
    shown = {name: found for name, found in shown.items() if found}
    assert not shown, f"pages print 'python:<type>': {shown}"


def test_maths_is_rendered_offline_by_a_local_mathjax(site):
    mathjax = site / "_static" / "mathjax" / "tex-chtml.js"
    assert mathjax.is_file() and mathjax.stat().st_size > 100_000
    with_maths = 0
    for path in _pages(site):
        html = path.read_text(encoding="utf-8")
        if 'class="math' not in html:
            continue
        with_maths += 1
        scripts = re.findall(r'<script[^>]+src="([^"]*mathjax[^"]*)"', html, flags=re.I)
        assert scripts, f"{path.name} has maths but loads no MathJax"
        for src in scripts:
            assert not src.startswith(("http:", "https:", "//")), f"{path.name}: {src}"
            assert (path.parent / src.split("?")[0]).resolve() == mathjax.resolve(), src
        # every \( ... \) is inside an element MathJax typesets; none is left in the prose
        prose = re.sub(r'<(span|div) class="math[^"]*">.*?</\1>', "", html, flags=re.S)
        assert "\\(" not in _text(prose), f"raw \\( on {path.relative_to(site)}"
    assert with_maths >= 8  # the family pages and the docstrings with maths


def test_papers_are_cited_by_authors_and_year_never_as_seeds(site):
    seed = re.compile(r"\b[Ss]eed (?:0\d\d|eq)|\bthe seed's|\bseed paper", flags=re.I)
    pages = [site / "index.html", *sorted((site / "api" / "generated").glob("*.html"))]
    found = {p.name: seed.findall(_text(p.read_text(encoding="utf-8"))) for p in pages}
    found = {name: hits for name, hits in found.items() if hits}
    assert not found, found  # the sidebar is on every page, index.html included
    bibliography = _page(site, "bibliography.html")
    assert bibliography.count("doi.org/10.") >= 25


def test_the_r_users_page_maps_every_r_call_with_its_printed_output(site):
    page = _text(_page(site, "r_users.html"))
    for call in (
        "dr(",
        "dr.coordinate.test",
        "drop1",
        "dr.step",
        "dr.permutation.test",
        "plot(m)",
        "mark.by.y",
        "MAVE::mave",
        "mave.dim",
        "LassoSIR",
        "DAAG",
    ):
        assert call in page, call
    # this package's printed output, computed by the build
    for printed in (
        "dr(formula = lbm ~ log(ssf)",
        "Large-sample Marginal Dimension Tests",
        "Coordinate test (sir, marginal): drop log(hg)",
        "Backward elimination",
        "Permutation dimension tests",
        "Cross-validation dimension choice for mave",
        "Selected predictors",
    ):
        assert printed in page, printed
    assert re.search(r'<img[^>]+src="[^"]+\.png"', _page(site, "r_users.html"))


@pytest.mark.parametrize("family", FAMILY_PAGES)
def test_each_family_has_a_page_with_model_maths_assumptions_tuning_checks_and_dois(site, family):
    html = _page(site, f"methods/{family}.html")
    text = _text(html)
    for section in (
        "Model",
        "What is estimated",
        "Assumptions",
        "Tuning and default rules",
        "What it is checked against",
        "References",
    ):
        assert section in text, f"{family}: no {section!r} section"
    assert 'class="math' in html, f"{family}: no maths"
    assert "doi.org/10." in html or "jmlr.org" in html, f"{family}: no DOI"


def test_the_gallery_shows_every_plot_with_its_code(site):
    html = _page(site, "gallery.html")
    figures = re.findall(r'<img[^>]+src="([^"]+\.png)"', html)
    assert len(figures) >= 15
    # every figure its own picture: one file each, no two files alike
    contents = {(site / figure).resolve().read_bytes() for figure in set(figures)}
    assert len(set(figures)) == len(figures) == len(contents), "gallery figures repeat"
    for call in (
        'plot("3d")',
        'plot("scree")',
        "test_dimension",
        "bootstrap(",
        "calibration(",
        "mark_by_y",
        'plot("objective")',
        "stream.results().plot()",
    ):
        assert call in _text(html).replace("&quot;", '"'), call


def test_plotting_docstrings_show_their_figure(site):
    for name in (
        "sufficient_summary_plot",
        "plot_3d",
        "scree_plot",
        "plot_dimension_test",
        "plot_bootstrap",
        "plot_projection",
        "plot_stream",
    ):
        html = _page(site, f"api/generated/sdrstats.plotting.{name}.html")
        assert re.search(r'<img[^>]+src="[^"]+\.png"', html), name


def test_the_landing_page_has_the_install_line_the_methods_and_a_figure(site):
    html = _page(site, "index.html")
    text = _text(html)
    assert "pip install" in text
    for method in ("sir", "mave", "lsce", "spca", "sdspcaan", "online_sir"):
        assert f">{method}<" in html or method in text, method
    assert re.search(r'<img[^>]+src="[^"]+\.png"', html)
    for link in ("r_users.html", "gallery.html", "methods/index.html", "bibliography.html"):
        assert link in html, link


def test_benchmark_results_are_pages(site):
    results = _page(site, "benchmarks/generated/results.html")
    assert "statsmodels" in results
    for source in (ROOT / "benchmarks").glob("bench_*.md"):
        _page(site, f"benchmarks/generated/speed_{source.stem}.html")
    for source in (ROOT / "benchmarks" / "papers").glob("*.md"):
        _page(site, f"benchmarks/generated/paper_{source.stem}.html")
