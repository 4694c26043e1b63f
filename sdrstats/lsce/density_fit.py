"""The fitted result of :func:`sdrstats.lscde` and :func:`sdrstats.eps_kde`.

A :class:`DensityFit` keeps what was fitted and how (the call, n, the predictors, the tuning
chosen by cross-validation and the whole CV table) and hands out the fitted
:class:`~sdrstats.ConditionalDensity` through :meth:`DensityFit.conditional_density`. Until
version 0.1 these functions returned the density itself, so every attribute of the density
(``pdf``, ``mean``, ``quantile``, ``tuning``, ...) is still reachable on the result.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..core.results_io import SaveLoadMixin
from ..core.summary import Block, Summary
from ..density import ConditionalDensity

LABELS = {"lscde": "LSCDE", "eps_kde": "eps-KDE"}
TUNING = {"lscde": ("sigma", "lambda"), "eps_kde": ("eps", "bandwidth")}


class DensityFit(SaveLoadMixin):
    """A conditional density fitted by LSCDE or ε-KDE, with its tuning and CV table.

    Parameters
    ----------
    density : ConditionalDensity
        The fitted density.
    method : {"lscde", "eps_kde"}
    call : str
        The call that made it.
    n : int
        Rows used.
    predictors : list of str
        The predictors the density conditions on (the formula's, or a fit's directions).
    reduction : str, optional
        The SDR method whose directions are the predictors (``None``: no reduction).
    options : dict
        The estimator's options.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.lscde("lbm ~ ht + wt", ais, random_state=0)
    >>> fit
    <DensityFit: LSCDE of lbm given ht, wt (no reduction), n = 202; sigma = 0.1778, lambda = 0.003162>
    >>> fit.conditional_density().method
    'LSCDE'
    """

    def __init__(
        self,
        density: ConditionalDensity,
        *,
        method: str,
        call: str,
        n: int,
        predictors: list[str],
        reduction: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        self._density = density
        self.method = method
        self.call = call
        self.n = int(n)
        self.predictors = list(predictors)
        self.reduction = reduction
        self.options = dict(options or {})

    def conditional_density(self) -> ConditionalDensity:
        """The fitted ``p(y | x)`` (pdf, cdf, mean, quantiles, sampling, plots).

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> dens = sdr.eps_kde("lbm ~ ht + wt", ais).conditional_density()
        >>> isinstance(dens, sdr.ConditionalDensity)
        True
        """
        return self._density

    @property
    def cv_table(self) -> pd.DataFrame:
        """Held-out squared loss over the tuning grid (rows σ or ε, columns λ or bandwidth;
        standardised units; smaller is better)."""
        return self._density.cv_grid

    @property
    def tuning(self) -> dict[str, Any]:
        """The chosen tuning parameters and their CV score."""
        return self._density.tuning

    def __getattr__(self, name: str) -> Any:
        # The functions returned the density itself before; keep its attributes working.
        if name.startswith("__") or name == "_density":
            raise AttributeError(name)
        return getattr(self._density, name)

    def _conditioning(self) -> str:
        if self.reduction is None:
            return f"{', '.join(self.predictors)} (no reduction)"
        return f"{', '.join(self.predictors)} of {self.reduction}"

    def summary(self) -> Summary:
        """Call, method, chosen tuning and the CV table (text, HTML, LaTeX).

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> print(sdr.lscde("lbm ~ ht + wt", ais, random_state=0).summary())  # doctest: +ELLIPSIS
        <BLANKLINE>
        Call:
        lscde('lbm ~ ht + wt', data, random_state=0)
        <BLANKLINE>
        Method:
        LSCDE of lbm given ht, wt (no reduction), n = 202.
        ...
        """
        first, second = TUNING[self.method]
        t = self.tuning
        folds = "leave-one-out" if self.method == "eps_kde" else f"{self.options['n_folds']}-fold"
        grid = self.cv_table
        text = (
            f"{first} = {t[first]:.4g}, {second} = {t[second]:.4g} (by {folds} cross-validation "
            f"over a {grid.shape[0]} x {grid.shape[1]} grid; standardised units)\n"
            f"held-out CV score = {t['cv_score']:.6g}; {len(self._density.means)} mixture "
            "components"
        )
        return Summary(
            [
                Block("Call", text=self.call),
                Block(
                    "Method",
                    text=f"{LABELS[self.method]} of {', '.join(self._density.y_names)} given "
                    f"{self._conditioning()}, n = {self.n}.",
                ),
                Block("Tuning", text=text),
                Block(
                    f"Cross-validation score ({first} x {second}; smaller is better)",
                    table=grid.rename(index=lambda v: f"{v:.4g}", columns=lambda v: f"{v:.3g}"),
                ),
            ]
        )

    def __str__(self) -> str:
        return str(self.summary())

    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()

    def __repr__(self) -> str:
        first, second = TUNING[self.method]
        t = self.tuning
        return (
            f"<DensityFit: {LABELS[self.method]} of {', '.join(self._density.y_names)} given "
            f"{self._conditioning()}, n = {self.n}; {first} = {t[first]:.4g}, "
            f"{second} = {t[second]:.4g}>"
        )

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


__all__ = ["DensityFit"]
