"""Results of LSCE and LSMI: the criterion, tuning, CV table and the conditional density."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.tables import Block
from ..density import ConditionalDensity, Features, MixtureWeightsLSCDE
from ..results.fitted import DimensionTest, Results


class DensityReductionResults(Results):
    """A fitted LSCE or LSMI model.

    Besides the common contract it holds the chosen Gaussian width ``sigma`` and penalty
    ``lambda_``, the final criterion (SCE^ for LSCE, SMI^ for LSMI), the per-restart record and,
    when ``d`` was chosen by cross-validation, the CV table.

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; the method's formula function builds it.

    See Also
    --------
    lsce, lsmi : The methods that return it.
    ConditionalDensity : Its fitted density.

    References
    ----------
    :cite:t:`tangkaratt2015`; :cite:t:`suzuki2013`.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.standard_normal((80, 3)), columns=["x1", "x2", "x3"])
    >>> df["y"] = df.x1 + 0.2 * rng.standard_normal(80)
    >>> fit = sdr.lsce("y ~ .", df, d=1, n_restarts=2, random_state=0, progress=False)
    >>> type(fit).__name__, fit.d
    ('DensityReductionResults', 1)
    """

    @property
    def sigma(self) -> float:
        return float(self.extras["sigma"])

    @property
    def lambda_(self) -> float:
        return float(self.extras["lambda"])

    @property
    def cv_table(self) -> pd.DataFrame:
        """The dimension rule's table: for each ``d`` it scored, LSCDE's held-out criterion
        (``cv_score``), its fall from the ``d`` before (``gain``) with that fall's standard
        error over the folds (``gain_se``), the widths, λ and the candidate's criterion; for
        a fit given ``d``, that fit's own held-out score."""
        table = pd.DataFrame(self.extras["cv_table"]).set_index("d")
        return table.rename(columns={"criterion": self.criterion_name})

    @property
    def restarts(self) -> pd.DataFrame:
        """Final criterion, iterations and convergence of every restart."""
        return pd.DataFrame(self.extras["restarts"]).rename(
            columns={"criterion": self.criterion_name}
        )

    @property
    def criterion_name(self) -> str:
        return "SCE^" if self.estimator.criterion == "sce" else "SMI^"

    # -- densities ---------------------------------------------------------------------------
    def conditional_density(
        self, estimator: str | None = None, **options: Any
    ) -> ConditionalDensity:
        """``p(y | x)`` on the reduced predictors.

        By default (``estimator=None`` or ``"lscde"``) the density layer's default model on
        ``transform()``, as for every fit: the LSCDE model chosen by held-out log-likelihood
        among separate widths for ``z`` and ``y`` and the location-scale form, whose spread
        may also follow directions of the predictors beyond the fit's
        (:func:`sdrstats.density.conditional_density_for`). ``"lsce"`` gives LSCE's own
        density, the single-width LSCDE solution at the final projection (Tangkaratt et al.
        2015, eq. 10; LSCE fits only); ``"eps_kde"`` the ε-neighbour KDE.

        Parameters
        ----------
        estimator : {None, "lscde", "lsce", "eps_kde"}, default None
            Which density, as above.
        **options
            Options of a refitted estimator (``model``, ``random_state``, grids...; none for
            LSCE's own density); see :func:`sdrstats.density.conditional_density_for`.

        Returns
        -------
        ConditionalDensity

        References
        ----------
        Tangkaratt, V., Xie, N. and Sugiyama, M. Conditional density estimation with
        dimensionality reduction via squared-loss conditional entropy minimization. Neural
        Computation 27(1), 2015.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> df = pd.DataFrame(rng.standard_normal((80, 3)), columns=["x1", "x2", "x3"])
        >>> df["y"] = df.x1 + 0.2 * rng.standard_normal(80)
        >>> fit = sdr.lsce("y ~ .", df, d=1, n_restarts=2, random_state=0, progress=False)
        >>> fit.conditional_density(random_state=0).method
        'lsce/lscde'
        >>> fit.conditional_density("lsce").method
        'LSCE'
        """
        if estimator == "lsce":
            if self.estimator.criterion != "sce":
                raise ValueError(
                    "estimator='lsce' is LSCE's own density; an LSMI fit has none. Use "
                    "estimator='lscde'."
                )
            if options:
                raise TypeError("LSCE's own density takes no options; use estimator='lscde'.")
            return self._own_density()
        return super().conditional_density(estimator or "lscde", **options)

    def _own_density(self) -> ConditionalDensity:
        ex = self.extras
        # transform() gives (x - x̄)·basis_j; LSCE's z_j is that times z_scale_j.
        features = Features(
            self.spec, np.zeros(self.d), 1.0 / ex["z_scale"], results=self, d=self.d
        )
        sigma_y = ex.get("sigma_y", ex["sigma"])
        tuning = (
            {"sigma": ex["sigma"], "lambda": ex["lambda"], "cv_score": ex["cv_score"]}
            if ex.get("widths", "single") == "single"
            else {
                "sigma_z": ex["sigma"],
                "sigma_y": sigma_y,
                "lambda": ex["lambda"],
                "cv_score": ex["cv_score"],
            }
        )
        density = MixtureWeightsLSCDE(
            features,
            ex["centres_z"],
            ex["alpha"],
            ex["sigma"],
            means=ex["y_mean"] + ex["centres_y"] * ex["y_scale"],
            sd=sigma_y * ex["y_scale"],
            y_names=self.spec.y_names,
            method=self.method.upper(),
            tuning=tuning,
        )
        density.model = "lsce"
        density.n_folds = self.options["n_folds"]
        return density

    # -- presentation ------------------------------------------------------------------------
    def _method_line(self) -> str:
        return f"{self.method}, n = {self.n}, p = {self.p}."

    @staticmethod
    def _starts_text(runs: pd.DataFrame) -> str:
        first = runs[runs["d"] == runs["d"].iloc[0]]["start"]
        warm = [s for s in first if s != "random"]
        random = int((first == "random").sum())
        parts = ([", ".join(warm) + " directions"] if warm else []) + (
            [f"{random} random"] if random else []
        )
        return "starts: " + " + ".join(parts)

    def _summary_blocks(self) -> list[Block]:
        ex = self.extras
        runs = self.restarts
        widths = (
            f"sigma = {self.sigma:.4g}"
            if ex.get("widths", "single") == "single"
            else f"sigma_z = {self.sigma:.4g}, sigma_y = {ex['sigma_y']:.4g}"
        )
        fit_text = (
            f"{widths}, lambda = {self.lambda_:.4g} (by {self.options['n_folds']}"
            f"-fold CV, re-selected every {self.options['cv_every']} updates)\n"
            f"{self.criterion_name} = {self.criterion:.6g}, held-out CV score = "
            f"{ex['cv_score']:.6g}\n"
            f"{self.options['n_restarts']} restarts"
            f"{f' for each of {runs.d.nunique()} candidate d' if runs.d.nunique() > 1 else ''}"
            f" ({self._starts_text(runs)}; {int(runs['n_iter'].sum())} iterations in all); "
            f"kept by {'held-out CV' if self.options['select_by'] == 'cv' else 'smallest ' + self.criterion_name}"
            f" (start: {ex.get('start', '?')}): "
            f"{ex['n_iter']} iterations, "
            f"{'converged' if ex['converged'] else 'stopped at max_iter'}; "
            f"{int((~runs['converged'].astype(bool)).sum())} restarts stopped at max_iter"
        )
        blocks = [
            Block("Call", text=self.call),
            Block("Method", text=self._method_line()),
            Block("Fit", text=fit_text),
        ]
        if len(ex["cv_table"]) > 1:
            blocks.append(
                Block("Cross-validation over d (smaller is better)", table=self.cv_table.T)
            )
        blocks.append(Block("Estimated Basis Vectors for Central Subspace", table=self.directions))
        return blocks

    def plot(self, kind: str = "summary", **options: Any) -> Any:
        """Plots; with one direction by default ``y`` against it with the fitted density.

        Parameters
        ----------
        kind : str, default "summary"
            ``"summary"``: with one direction, ``y`` against it with the conditional mean and
            a 10-90 % band of the fitted density; with two or more, the scatterplot matrix of
            every fit (:meth:`sdrstats.Results.plot`). ``"density"``: the fitted density
            over one direction (the band) or two (a 3-D surface of the conditional mean).
            Other kinds go to the common plots (:meth:`sdrstats.Results.plot`).
        **options
            Passed to the plot (``ax``, ``figsize``, ``band``...).

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> df = pd.DataFrame(rng.standard_normal((80, 3)), columns=["x1", "x2", "x3"])
        >>> df["y"] = df.x1 + 0.2 * rng.standard_normal(80)
        >>> fit = sdr.lsce("y ~ .", df, d=1, n_restarts=2, random_state=0, progress=False)
        >>> fig = fit.plot()
        """
        if kind not in ("summary", "density") or (kind == "summary" and self.d > 1):
            return super().plot(kind=kind, **options)
        from ..plotting.density import plot_density_fit

        return plot_density_fit(self, **options)


def cv_dimension_test(
    results: DensityReductionResults, d_max: int | None = None, progress: bool = False
) -> DimensionTest:
    """The fit's ``d_rule="cv"`` table and choice (the nested search over ``d = 1..d_max``
    with its one-standard-error stop; see ``d_rule``); run afresh if ``d`` was given or
    another ``d_max`` is asked for."""
    options = results.options
    computed = options["d"] is None and options["d_rule"] == "cv"  # the fit ran the rule
    if computed and (d_max is None or d_max == options["d_max"]):
        table, chosen = results.extras["cv_table"], int(results.extras["cv_choice"])
    else:
        est = results.estimator.clone(d=None, d_rule="cv", d_max=d_max, progress=progress)
        chosen, table = est.dimension_choice(results.spec, random_state=results.random_state)
    frame = pd.DataFrame(table).set_index("d").rename(columns={"criterion": results.criterion_name})
    frame.index = [f"d = {k}" for k in frame.index]
    return DimensionTest(
        frame,
        chosen,
        "cv",
        results.method,
        level=None,
        random_state=results.random_state,
        title=f"Cross-validated dimension choice for {results.method}",
        note=(
            "cv_score: held-out squared-loss criterion (smaller is better); gain: its fall "
            "from the d before, gain_se: the standard error of that fall over the folds."
        ),
    )


__all__ = ["DensityReductionResults", "cv_dimension_test"]
