"""Sphinx configuration of the sdrstats documentation.

Build it from the repository root::

    pip install -e ".[docs]"
    python -m sphinx -W -b html docs docs/_build/html

and open ``docs/_build/html/index.html`` in a browser: the site needs no server and no network
(MathJax is served from the build's own ``_static`` folder, copied from the
``sphinx-mathjax-offline`` package).

The vignettes (``vignettes/*.py``, jupytext percent format) are copied into
``docs/vignettes/`` and executed by myst-nb during the build, so the pages show their real
output and figures; so are the "For R users" page and the figures of the gallery, the landing
page and the plotting docstrings (matplotlib's ``plot`` directive). ``SDRSTATS_QUICK=1`` runs
the vignettes with their small settings (what the test suite does, ``tests/test_docs.py``);
without it they run with the full settings.

References are cited from the docstrings and pages with ``:cite:t:`key``` and
``:cite:p:`key``` (sphinxcontrib-bibtex); the entries live in ``docs/references.bib`` and
are listed, with their DOIs, on the bibliography page.

Intersphinx and the network
---------------------------
The build never touches the network on its own: builds here and in CI are offline, and a failed
inventory download is a warning, which ``-W`` would turn into an error. So the inventories of
numpy, scipy, pandas, statsmodels, matplotlib and Python are read from files when they are
present, and links to a project are made only when its inventory was found:

1. ``$SDRSTATS_INTERSPHINX_DIR/<project>.inv`` (e.g. ``numpy.inv``), a folder of inventories
   that a builder with internet access downloaded once from each project's ``objects.inv``;
2. the inventory shipped by the Debian documentation package of the project (for example
   ``python-statsmodels-doc`` installs ``/usr/share/doc/python-statsmodels-doc/html/objects.inv``);
3. ``SDRSTATS_INTERSPHINX=online`` adds each project's published ``objects.inv`` as the last
   place to look, for a build on a machine with internet access.

The links always point at the projects' published documentation. A project without an
inventory is left out of ``intersphinx_mapping``: its names render as plain code, with no
warning (the build is not nitpicky), so the build does not depend on the network.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

import sdrstats  # noqa: E402

project = "sdrstats"
author = "the sdrstats developers"
copyright = "2026, the sdrstats developers"
release = version = sdrstats.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 in _static: maths renders with no network
    "sphinxcontrib.bibtex",
    "matplotlib.sphinxext.plot_directive",
    "numpydoc",
    "myst_nb",
]

exclude_patterns = ["_build", "conf.py", "vignettes/figures", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
html_theme = "furo"
html_title = f"sdrstats {release}"
html_static_path = ["_static"]
html_css_files = ["sdrstats.css"]

# -- the bibliography: every paper once, cited by author and year ---------------------------
bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"  # sorted by author


def _author_year_in_round_brackets():
    """Citations read "Li (1991)" and "(Li 1991)", as statisticians write them."""
    import dataclasses

    import sphinxcontrib.bibtex.plugin
    from sphinxcontrib.bibtex.style.referencing import BracketStyle
    from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle

    def round_brackets() -> BracketStyle:
        return BracketStyle(left="(", right=")")

    @dataclasses.dataclass
    class RoundAuthorYear(AuthorYearReferenceStyle):
        bracket_parenthetical: BracketStyle = dataclasses.field(default_factory=round_brackets)
        bracket_textual: BracketStyle = dataclasses.field(default_factory=round_brackets)
        bracket_author: BracketStyle = dataclasses.field(default_factory=round_brackets)
        bracket_label: BracketStyle = dataclasses.field(default_factory=round_brackets)
        bracket_year: BracketStyle = dataclasses.field(default_factory=round_brackets)

    sphinxcontrib.bibtex.plugin.register_plugin(
        "sphinxcontrib.bibtex.style.referencing", "author_year_round", RoundAuthorYear
    )
    return "author_year_round"


bibtex_reference_style = _author_year_in_round_brackets()

# -- figures drawn at build time: the gallery, the landing page, the plotting docstrings ----
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_rcparams = {"savefig.bbox": "tight"}
# The plotting docstrings' examples call the functions of their module unqualified.
plot_pre_code = "import numpy as np\nimport sdrstats as sdr\nfrom sdrstats.plotting import *\n"

# -- API reference: autosummary pages from the package's numpydoc docstrings ----------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "inherited-members": True, "show-inheritance": False}
autodoc_typehints = "none"  # the numpydoc Parameters sections carry the types
numpydoc_show_class_members = False  # the class template lists members through autodoc
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = True
numpydoc_xref_ignore = {"optional", "default", "or", "of", "shape", "like", "array", "None"}

# -- narrative pages and vignettes (MyST markdown, jupytext notebooks) ----------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
nb_custom_formats = {".py": ["jupytext.reads", {"fmt": "py:percent"}]}
nb_execution_mode = "force"  # every build runs the vignettes: no cache to go stale
nb_execution_timeout = 1800
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

# -- intersphinx (see the module docstring) --------------------------------------------------
_INVENTORIES = {
    "python": ("https://docs.python.org/3/", "/usr/share/doc/python3/html/objects.inv"),
    "numpy": ("https://numpy.org/doc/stable/", "/usr/share/doc/python-numpy-doc/html/objects.inv"),
    "scipy": (
        "https://docs.scipy.org/doc/scipy/",
        "/usr/share/doc/python-scipy-doc/html/objects.inv",
    ),
    "pandas": (
        "https://pandas.pydata.org/docs/",
        "/usr/share/doc/python-pandas-doc/html/objects.inv",
    ),
    "statsmodels": (
        "https://www.statsmodels.org/stable/",
        "/usr/share/doc/python-statsmodels-doc/html/objects.inv",
    ),
    "matplotlib": (
        "https://matplotlib.org/stable/",
        "/usr/share/doc/python-matplotlib-doc/html/objects.inv",
    ),
}


def _intersphinx_mapping() -> dict[str, tuple[str, tuple[str, ...]]]:
    folder = os.environ.get("SDRSTATS_INTERSPHINX_DIR")
    online = os.environ.get("SDRSTATS_INTERSPHINX", "").lower() == "online"
    mapping = {}
    for name, (url, debian) in _INVENTORIES.items():
        places = [
            p
            for p in ((Path(folder) / f"{name}.inv") if folder else None, Path(debian))
            if p is not None and p.is_file()
        ]
        locations = tuple(str(p) for p in places) + ((None,) if online else ())
        if locations:
            mapping[name] = (url, locations)
    return mapping


intersphinx_mapping = _intersphinx_mapping()


def _xref_aliases() -> dict[str, str]:
    """numpydoc's type aliases, without glossary/label links into projects we have no inventory of.

    numpydoc links ``array_like`` and ``bool`` with ``:term:``/``:ref:`` roles, which warn when
    unresolved (unlike ``:class:`` links); without the inventory they render as plain names.
    """
    from numpydoc.xref import DEFAULT_LINKS

    aliases = {"DataFrame": "pandas.DataFrame", "Series": "pandas.Series"}
    for name, target in DEFAULT_LINKS.items():
        # a link into a project without an inventory would print as "python:int": name it
        role = re.match(r":(\w+):`(?:[^<`]*<)?(\w+):", target)
        if role and role.group(2) not in intersphinx_mapping:
            aliases[name] = name
    return aliases


numpydoc_xref_aliases = _xref_aliases()


# -- sources copied or generated at build time (ignored by git) ------------------------------
# autosummary writes a page per documented name and never removes one: a renamed or removed
# name would leave a page that fails to import. Start every build from no generated pages.
shutil.rmtree(Path(__file__).resolve().parent / "api" / "generated", ignore_errors=True)


def _copy_if_changed(source: Path, target: Path) -> None:
    if not target.exists() or target.read_bytes() != source.read_bytes():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def _sync_vignettes() -> None:
    """Copy ``vignettes/NN_*.py`` beside ``docs/vignettes/index.md`` for myst-nb to execute."""
    target_dir = DOCS / "vignettes"
    sources = sorted((ROOT / "vignettes").glob("[0-9][0-9]_*.py"))
    for stale in set(target_dir.glob("[0-9][0-9]_*.py")) - {target_dir / s.name for s in sources}:
        stale.unlink()
    for source in sources:
        _copy_if_changed(source, target_dir / source.name)


def _on_builder_inited(app) -> None:
    # The kernels import the sdrstats of this source tree, as autodoc does.
    path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(ROOT) + (os.pathsep + path if path else "")
    # The kernel must draw inline for the figures to reach the page.
    if os.environ.get("MPLBACKEND", "").lower() == "agg":
        del os.environ["MPLBACKEND"]


_HEADING = re.compile(r"^(#{1,6})(\s)", flags=re.MULTILINE)


def _benchmark_page(source: Path, kind: str) -> str:
    """A benchmark's committed markdown as a page: headings shifted so the first is the title."""
    text = source.read_text(encoding="utf-8")
    # Headings inside fenced blocks would be shifted too; the benchmark outputs have none.
    levels = [len(m.group(1)) for m in _HEADING.finditer(text)]
    shift = min(levels) - 1 if levels else 0
    if shift:
        text = _HEADING.sub(lambda m: "#" * (len(m.group(1)) - shift) + m.group(2), text)
    if not levels:
        text = f"# {source.stem}\n\n{text}"
    where = source.relative_to(ROOT).as_posix()
    script = source.with_suffix(".py")
    origin = (
        f"Output of `{script.relative_to(ROOT).as_posix()}`, committed as `{where}`."
        if script.exists()
        else f"From `{where}`."
    )
    title, _, rest = text.partition("\n")
    title = _paper_title(title)
    figures = sorted(source.parent.glob(f"figures/{source.stem}_*.png")) if kind == "paper" else []
    images = "".join(f"\n```{{image}} {_copy_figure(f)}\n:alt: {f.stem}\n```\n" for f in figures)
    return f"{title}\n\n*{origin}*\n{rest}{images}"


#: The papers whose experiments the benchmark pages reproduce, as a reader cites them.
_PAPERS = {
    "000": "Tangkaratt, Xie & Sugiyama (2015)",
    "001": "Shi et al. (2020)",
    "002": "Barshan et al. (2011)",
    "003": "Cheng & Cui (2020)",
}


def _paper_title(title: str) -> str:
    """A benchmark heading that names a paper by its internal number names it by its authors.

    ``# Seed 003, Tables 2-3 (after seed 003): ...`` becomes ``# Cheng & Cui (2020), Tables
    2-3: ...``; the committed benchmark output is left as its script writes it.
    """
    title = re.sub(r"\s*\(after seed (\d{3})\)", "", title)
    title = re.sub(r"\s*\(seed (\d{3})\)", lambda m: f" ({_PAPERS[m.group(1)]})", title)
    return re.sub(r"[Ss]eed (\d{3})", lambda m: _PAPERS[m.group(1)], title)


def _copy_figure(figure: Path) -> str:
    target = DOCS / "benchmarks" / "generated" / "figures" / figure.name
    _copy_if_changed(figure, target)
    return f"figures/{figure.name}"


def _write_if_changed(target: Path, text: str) -> None:
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _sync_benchmarks() -> None:
    """Turn ``benchmarks/*.md`` and ``benchmarks/papers/*.md`` into pages under
    ``docs/benchmarks/generated/`` (RESULTS.md -> results.md, speed_*, check_*, paper_*)."""
    bench = ROOT / "benchmarks"
    pages = {"results.md": (bench / "RESULTS.md", "results")}
    pages.update(
        {
            f"{'speed' if p.stem.startswith('bench_') else 'check'}_{p.stem}.md": (p, "speed")
            for p in bench.glob("*.md")
            if p.name != "RESULTS.md"
        }
    )
    pages.update({f"paper_{p.stem}.md": (p, "paper") for p in (bench / "papers").glob("*.md")})
    out = DOCS / "benchmarks" / "generated"
    for stale in set(out.glob("*.md")) - {out / name for name in pages}:
        stale.unlink()
    for name, (source, kind) in pages.items():
        _write_if_changed(out / name, _benchmark_page(source, kind))


_sync_vignettes()
_sync_benchmarks()


def setup(app):
    app.connect("builder-inited", _on_builder_inited)
