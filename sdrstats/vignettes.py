"""Run and render the vignettes of the repository's ``vignettes/`` folder.

Each vignette is a plain Python script in jupytext's percent format. Two environment
variables steer them:

* ``SDRSTATS_QUICK=1`` — small settings (fewer replicates, smaller samples), used by the tests;
* ``SDRSTATS_FIGURES`` — folder where :func:`run` saves the figures the vignette shows (PNG).

A vignette shows a figure with :func:`show_figure` (or leaves it open at the end of a cell); it
never saves files itself, so its rendered page holds the analysis and nothing of the build.

Commands::

    python -m sdrstats.vignettes list
    python -m sdrstats.vignettes run [--quick] [NAME ...]      # run as scripts, save figures
    python -m sdrstats.vignettes build [--quick] [--out DIR]    # execute and render to HTML

``build`` needs the ``docs`` extra (``pip install -e ".[docs]"``: jupytext, nbconvert,
ipykernel); rendered files go to ``vignettes/_build/`` and are not committed.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def vignette_dir() -> Path:
    """The ``vignettes/`` folder of the source checkout."""
    here = Path(__file__).resolve().parent.parent / "vignettes"
    if here.is_dir():
        return here
    cwd = Path.cwd() / "vignettes"
    if cwd.is_dir():
        return cwd
    raise FileNotFoundError(
        "No vignettes/ folder found: the vignettes ship with the source repository; run this "
        "from a checkout."
    )


def available() -> list[Path]:
    """Vignette scripts, in their numbered order."""
    return sorted(p for p in vignette_dir().glob("[0-9][0-9]_*.py"))


@contextmanager
def _environment(quick: bool, figures: Path, headless: bool = True):
    saved = {k: os.environ.get(k) for k in ("SDRSTATS_QUICK", "SDRSTATS_FIGURES", "MPLBACKEND")}
    os.environ["SDRSTATS_QUICK"] = "1" if quick else "0"
    os.environ["SDRSTATS_FIGURES"] = str(figures)
    if headless:  # scripts draw off-screen; notebooks keep the inline backend for the HTML
        os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run(path: Path, *, quick: bool = False, figures: Path | None = None) -> list[Path]:
    """Run one vignette as a script; return the figures it wrote."""
    figures = Path(figures or vignette_dir() / "_build" / "figures" / path.stem)
    figures.mkdir(parents=True, exist_ok=True)
    before = set(figures.glob("*.png"))
    with _environment(quick, figures):
        import matplotlib

        matplotlib.use("Agg")
        runpy.run_path(str(path), run_name="__main__")
        show_figure("all")  # the figures still open at the end are saved too
    return sorted(set(figures.glob("*.png")) - before) or sorted(figures.glob("*.png"))


def build(
    *, quick: bool = False, out: Path | None = None, names: Sequence[str] | None = None
) -> list[Path]:
    """Execute every vignette as a notebook and render it to HTML with its output."""
    try:
        import jupytext
        import nbformat  # noqa: F401
        from nbconvert import HTMLExporter
        from nbconvert.preprocessors import ExecutePreprocessor
    except ImportError as exc:  # pragma: no cover - depends on the docs extra
        raise SystemExit(
            f"Rendering needs the docs extra ({exc.name} is missing): pip install -e '.[docs]'"
        ) from None
    out = Path(out or vignette_dir() / "_build")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in _select(names):
        notebook = jupytext.read(path)
        with _environment(quick, out / "figures" / path.stem, headless=False):
            (out / "figures" / path.stem).mkdir(parents=True, exist_ok=True)
            ExecutePreprocessor(timeout=1800).preprocess(notebook, {"metadata": {"path": str(out)}})
        body, _ = HTMLExporter().from_notebook_node(notebook)
        target = out / f"{path.stem}.html"
        target.write_text(body, encoding="utf-8")
        written.append(target)
    return written


def show_figure(figure: Any = "all") -> None:
    """Show a figure on the rendered vignette page, then close it.

    In a notebook (the documentation build executes the vignettes as notebooks) the figure is
    displayed as the cell's output before it is closed, so a vignette can free its figures
    cell by cell and still show them. In a script run by :func:`run` it is saved as a PNG
    file in the ``SDRSTATS_FIGURES`` folder, then closed.

    Parameters
    ----------
    figure : matplotlib Figure or "all", default "all"
        The figure to show and close; ``"all"`` shows and closes every open figure.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> show_figure(fig)
    >>> plt.fignum_exists(fig.number)
    False
    """
    import matplotlib.pyplot as plt

    figures = [plt.figure(n) for n in plt.get_fignums()] if isinstance(figure, str) else [figure]
    shell = sys.modules.get("IPython")
    kernel = shell is not None and "ipykernel" in sys.modules and shell.get_ipython() is not None
    folder = os.environ.get("SDRSTATS_FIGURES")
    for fig in figures:
        if kernel:
            from IPython.display import display

            display(fig)
        elif folder:
            _save(fig, Path(folder))
        plt.close(fig)


def _save(fig: Any, folder: Path) -> Path:
    """Save ``fig`` as the next free ``figure_NN.png`` of ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    number = len(list(folder.glob("figure_*.png"))) + 1
    target = folder / f"figure_{number:02d}.png"
    fig.savefig(target, dpi=100, bbox_inches="tight")
    return target


def _select(names: Sequence[str] | None) -> list[Path]:
    paths = available()
    if not names:
        return paths
    chosen = [p for p in paths if any(n in p.stem for n in names)]
    if not chosen:
        raise SystemExit(f"No vignette matches {list(names)}; available: {[p.stem for p in paths]}")
    return chosen


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sdrstats.vignettes", description="List, run or render the vignettes."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the vignettes")
    for name, text in (
        ("run", "run as scripts, saving figures"),
        ("build", "execute and render to HTML (needs the docs extra)"),
    ):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("names", nargs="*", help="vignettes to use (part of the file name)")
        cmd.add_argument("--quick", action="store_true", help="small settings")
        cmd.add_argument("--out", type=Path, default=None, help="output folder")
    args = parser.parse_args(argv)
    if args.command == "list":
        for path in available():
            print(path.stem)
        return 0
    if args.command == "run":
        for path in _select(args.names):
            figures = run(
                path, quick=args.quick, figures=args.out / path.stem if args.out else None
            )
            print(f"{path.stem}: {len(figures)} figure(s)")
        return 0
    for target in build(quick=args.quick, out=args.out, names=args.names):
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
