"""The printed description of a fitted conditional density: its model, tuning and scores."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.tables import Block

MODEL_TEXT = {
    "single": "LSCDE, one Gaussian width for z and y (Sugiyama et al. 2010)",
    "separate": "LSCDE, separate Gaussian widths for z and y",
    "location_scale": (
        "location-scale: y = m(z) + s(x) e, with m local-linear in the reduced predictors z, "
        "log s constant or local-linear (in z and any spread directions of the predictors) "
        "and an LSCDE of e given z (separate widths)"
    ),
    "lsce": "LSCE's own density: the LSCDE solution at the final projection",
    "eps_kde": "eps-neighbour kernel density",
}
#: How many scored tuning points a summary lists for the models tuned by a search.
TOP_POINTS = 8


def _bandwidths(values: Any) -> str:
    rows = values if values and isinstance(values[0], list) else [values]
    return "; ".join("(" + ", ".join(f"{v:.3g}" for v in row) + ")" for row in rows)


def _folds(density: Any) -> str:
    folds = getattr(density, "n_folds", None)
    return f"{folds}-fold" if folds else "K-fold"


def tuning_text(density: Any) -> str:
    """The chosen tuning of ``density`` in words."""
    t, model = density.tuning, density.model
    components = f"{len(density.means)} mixture components"
    if model == "eps_kde":
        grid = density.cv_grid
        shape = "" if grid is None else f" over a {grid.shape[0]} x {grid.shape[1]} grid"
        return (
            f"eps = {t['eps']:.4g}, bandwidth = {t['bandwidth']:.4g} (by leave-one-out "
            f"cross-validation{shape}; standardised units)\nheld-out CV score = "
            f"{t['cv_score']:.6g}; {components}"
        )
    if model == "lsce" and "sigma" not in t:
        return (
            f"sigma_z = {t['sigma_z']:.4g}, sigma_y = {t['sigma_y']:.4g}, lambda = "
            f"{t['lambda']:.4g} (chosen with the projection; standardised units)\n"
            f"held-out CV score = {t['cv_score']:.6g}; {components}"
        )
    if model in ("single", "lsce"):
        grid = density.cv_grid
        how = (
            "chosen with the projection"
            if grid is None
            else f"by {_folds(density)} cross-validation over a {grid.shape[0]} x "
            f"{grid.shape[1]} grid"
        )
        return (
            f"sigma = {t['sigma']:.4g}, lambda = {t['lambda']:.4g} ({how}; standardised "
            f"units)\nheld-out CV score = {t['cv_score']:.6g}; {components}"
        )
    scored = 0 if density.cv_grid is None else len(density.cv_grid)
    widths = (
        f"sigma_z = {t['sigma_z']:.4g}, sigma_y = {t['sigma_y']:.4g}, lambda = "
        f"{t['lambda']:.4g} (by {_folds(density)} cross-validation, coordinate descent on "
        f"the sigma_z x sigma_y x lambda grid: {scored} points scored; standardised units)\n"
        f"held-out CV score = {t['cv_score']:.6g}; {components}"
    )
    widths += width_text(density)
    if model == "separate":
        return widths
    return (
        f"location m(z): local-linear, bandwidths {_bandwidths(t['location_bandwidth'])} "
        "(one per reduced predictor, by leave-one-out cross-validation; inf: linear in that "
        f"predictor)\nlog-scale: {scale_text(density)}\nresidual e given z: {widths}"
    )


def width_text(density: Any) -> str:
    """How the components' width was kept (the held-out log score's one-se rule)."""
    table = getattr(density, "width_choice", None)
    if table is None:
        return ""
    kept = table[table["kept"] == "*"].iloc[0]
    kind = "adaptive (Abramson's square-root law)" if kept["adaptive"] else "one for all"
    return (
        f"\ncomponent widths: {kind}, sigma_y = {kept['sigma_y']:.4g}, the widest within one "
        f"standard error of the best held-out log score of {len(table)} widths scored"
    )


def scale_text(density: Any) -> str:
    """The log-scale kept, the heteroscedasticity test and the spread directions."""
    t = density.tuning
    p = getattr(density, "heteroscedasticity_pvalue", None)
    test = "" if p is None else f"Breusch-Pagan test of the residuals' spread p = {p:.3g}"
    name = t.get("log_scale", "reduced predictors")
    if name == "constant":
        return f"constant ({test}{'; ' if test else ''}chosen by held-out likelihood)"
    where = "the reduced predictors"
    spread = getattr(density, "spread", None)
    if spread is not None and getattr(spread, "alone", False):
        where = f"{spread.k} spread direction(s) of its own, of all the predictors"
    elif spread is not None:
        where += f" and {spread.k} spread direction(s) of all the predictors"
    return (
        f"local-linear in {where}, on log |leave-one-out residual|, bandwidths "
        f"{_bandwidths(t['scale_bandwidth'])} (by held-out Gaussian likelihood); "
        f"{test}{'; ' if test else ''}chosen by held-out likelihood with the one-se rule"
    )


def model_text(density: Any) -> str:
    """Which model, how it was chosen and its held-out log score."""
    text = MODEL_TEXT.get(density.model, density.model)
    choice = density.model_choice
    if choice is not None and len(choice) > 1:
        others = ", ".join(
            f"{name} {row['held-out log score']:.4f}"
            for name, row in choice.iterrows()
            if name != density.model
        )
        text += (
            f".\nChosen by held-out log-likelihood ({_folds(density)}; larger is better): "
            f"mean log density {density.heldout_log_score:.4f} against {others}."
        )
    elif density.heldout_log_score is not None:
        text += (
            f".\nHeld-out ({_folds(density)}) mean log density: {density.heldout_log_score:.4f}."
        )
    else:
        text += "."
    return text


def cv_block(density: Any) -> Block | None:
    """The CV criterion over the grid (one width) or at the best points scored (a search)."""
    grid = density.cv_grid
    if grid is None:
        return None
    if density.model in ("single", "lsce", "eps_kde"):
        first, second = grid.index.name, grid.columns.name
        return Block(
            f"Cross-validation score ({first} x {second}; smaller is better)",
            table=grid.rename(index=lambda v: f"{v:.4g}", columns=lambda v: f"{v:.3g}"),
        )
    top = grid.sort_values("cv_score").head(TOP_POINTS).reset_index(drop=True)
    top.index = pd.RangeIndex(1, len(top) + 1)
    where = " of the residual e" if density.model == "location_scale" else ""
    return Block(
        f"Cross-validation score{where}: the {len(top)} best points scored (smaller is better)",
        table=top,
    )


def directions_text(density: Any) -> str | None:
    """Which directions of the predictors the density uses, when more than the fit's d."""
    spread = getattr(density, "spread", None)
    d = density.features.d
    if spread is None or d is None:
        return None
    if getattr(spread, "alone", False):
        return (
            f"The density uses {d} + {spread.k} directions of the predictors: the fit's d = "
            f"{d} for the location and the mixture weights, and for the spread s(x) "
            f"{spread.k} of its own in their place, found from the residuals (directions of "
            "the variance function in all the predictors, dens.spread_directions)."
        )
    return (
        f"The density uses {d + spread.k} directions of the predictors: the fit's d = {d} "
        f"for the location and the mixture weights, and {spread.k} more for the spread "
        "s(x), found from the residuals (directions of the variance function, "
        "dens.spread_directions): the spread changes along them and the fit's directions "
        "miss them."
    )


def density_blocks(density: Any) -> list[Block]:
    """Model, tuning, model choice and CV blocks of a density's summary."""
    blocks = [
        Block("Model", text=model_text(density)),
        Block("Tuning", text=tuning_text(density)),
    ]
    more = directions_text(density)
    if more is not None:
        blocks.append(Block("Directions", text=more))
        blocks.append(Block("Spread directions", table=density.spread_directions))
    scale = getattr(density, "scale_choice", None)
    if scale is not None and len(scale) > 1:
        blocks.append(Block("Log-scale choice (held-out Gaussian log-likelihood)", table=scale))
    choice = density.model_choice
    if choice is not None and len(choice) > 1:
        table = choice.copy()
        table["chosen"] = np.where(table.index == density.model, "*", "")
        blocks.append(Block("Model choice (held-out mean log density)", table=table))
    cv = cv_block(density)
    if cv is not None:
        blocks.append(cv)
    return blocks


__all__ = [
    "MODEL_TEXT",
    "cv_block",
    "density_blocks",
    "directions_text",
    "model_text",
    "scale_text",
    "tuning_text",
    "width_text",
]
