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

from ..base.tables import Block, Summary
from ..density import ConditionalDensity
from ..results.io import SaveLoadMixin

LABELS = {"lscde": "LSCDE", "eps_kde": "eps-KDE"}
#: The two tuning values the repr shows, for the models tuned over a two-way grid.
TUNING = {"single": ("sigma", "lambda"), "eps_kde": ("eps", "bandwidth")}


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

    See Also
    --------
    lscde : The formula function that returns it.
    ConditionalDensity : The density it holds.

    References
    ----------
    :cite:t:`sugiyama2010`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.lscde("lbm ~ ht + wt", ais, random_state=0)
    >>> fit
    <DensityFit: LSCDE of lbm given ht, wt (no reduction), n = 202; location_scale, held-out log score = -2.773>
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
        """Held-out squared loss: over the tuning grid for single-width LSCDE and ε-KDE
        (rows σ or ε, columns λ or bandwidth), else one row per point of the
        ``(sigma_z, sigma_y, lambda)`` search scored (standardised units; smaller is
        better)."""
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
        """Call, method, the model chosen and its held-out log score, tuning and CV scores.

        As text, HTML and LaTeX.

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
        <BLANKLINE>
        Model:
        ...
        """
        from ..density.describe import density_blocks

        return Summary(
            [
                Block("Call", text=self.call),
                Block(
                    "Method",
                    text=f"{LABELS[self.method]} of {', '.join(self._density.y_names)} given "
                    f"{self._conditioning()}, n = {self.n}.",
                ),
                *density_blocks(self._density),
            ]
        )

    def __str__(self) -> str:
        return str(self.summary())

    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()

    def __repr__(self) -> str:
        t, model = self.tuning, self._density.model
        head = (
            f"<DensityFit: {LABELS[self.method]} of {', '.join(self._density.y_names)} given "
            f"{self._conditioning()}, n = {self.n}"
        )
        if model in TUNING:
            first, second = TUNING[model]
            return f"{head}; {first} = {t[first]:.4g}, {second} = {t[second]:.4g}>"
        return f"{head}; {model}, held-out log score = {self._density.heldout_log_score:.4g}>"

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


__all__ = ["DensityFit"]
