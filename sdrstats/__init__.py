"""sdrstats: sufficient dimension reduction with formulas, summaries, tests and densities.

A formula and a data frame in, a fitted result out::

    import sdrstats as sdr
    ais = sdr.datasets.load("ais")
    fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    print(fit.summary())
"""

import importlib as _importlib
import sys as _sys
import types as _types

from .base import persistence as _persistence
from .base.budget import config_context, set_config
from .base.warnings import (
    CalibrationWarning,
    CollinearityWarning,
    ConvergenceWarning,
    MissingValueWarning,
    SDRWarning,
    SlowFitWarning,
    TuningWarning,
)

__version__ = "0.1.0"

__all__ = [
    "read_csv_chunks",
    "read_parquet_chunks",
    "chunks_from",
    "datasets",
    "distances",
    "SDRWarning",
    "CalibrationWarning",
    "ConvergenceWarning",
    "MissingValueWarning",
    "CollinearityWarning",
    "TuningWarning",
    "SlowFitWarning",
    "set_config",
    "config_context",
    "projection_distance",
    "det_distance",
    "trace_correlation",
    "subspace_distance",
    "Results",
    "load",
    "DimensionTest",
    "BootstrapResult",
    "permutation_test",
    "ladle",
    "bootstrap_dimension",
    "SIR",
    "SAVE",
    "PHD",
    "DirectionalRegression",
    "CUME",
    "sir",
    "save",
    "phd",
    "directional_regression",
    "cume",
    "dr",
    "dr_weights",
    "LSCE",
    "LSMI",
    "ConditionalDensity",
    "DensityFit",
    "lsce",
    "lsmi",
    "lscde",
    "eps_kde",
    "IRE",
    "ire",
    "CORE",
    "core",
    "RegularizedSIR",
    "regularized_sir",
    "BiasCorrectedSAVE",
    "bias_corrected_save",
    "SPCA",
    "KSPCA",
    "BPCA",
    "KDR",
    "MKDR",
    "spca",
    "kspca",
    "bpca",
    "kdr",
    "mkdr",
    "SDSPCAAN",
    "SDSPCA",
    "SDSPCALPP",
    "SPCAN",
    "PCAN",
    "PCA",
    "VPCA",
    "sdspcaan",
    "sdspca",
    "sdspca_lpp",
    "spcan",
    "pcan",
    "pca",
    "vpca",
    "MAVE",
    "mave",
    "LassoSIR",
    "OnlineSIR",
    "lasso_sir",
    "online_sir",
]

#: Where each exported name lives, imported on first use (PEP 562): ``import sdrstats`` then
#: costs little more than numpy and pandas, and a family's dependencies (scipy's solvers,
#: scikit-learn, statsmodels' tables) load when that family is first used.
_HOMES: dict[str, str] = {
    **dict.fromkeys(
        ["BootstrapResult", "bootstrap_dimension", "ladle", "permutation_test"], ".inference"
    ),
    **dict.fromkeys(
        ["LSCE", "LSMI", "ConditionalDensity", "DensityFit", "eps_kde", "lscde", "lsce", "lsmi"],
        ".lsce",
    ),
    **dict.fromkeys(["MAVE", "mave"], ".mave"),
    **dict.fromkeys(
        ["CUME", "PHD", "SAVE", "SIR", "DirectionalRegression", "cume", "directional_regression"],
        ".moment",
    ),
    **dict.fromkeys(["dr", "dr_weights", "phd", "save", "sir"], ".moment"),
    **dict.fromkeys(["IRE", "ire"], ".moment.ire"),
    **dict.fromkeys(["CORE", "core"], ".moment.covariance_reduction"),
    **dict.fromkeys(["RegularizedSIR", "regularized_sir"], ".moment.regularized_sir"),
    **dict.fromkeys(["BiasCorrectedSAVE", "bias_corrected_save"], ".moment.bias_corrected_save"),
    **dict.fromkeys(["LassoSIR", "OnlineSIR", "lasso_sir", "online_sir"], ".online"),
    **dict.fromkeys(["DimensionTest", "Results"], ".results.fitted"),
    "load": ".results.io",
    **dict.fromkeys(["chunks_from", "read_csv_chunks", "read_parquet_chunks"], ".scale"),
    **dict.fromkeys(
        ["PCA", "PCAN", "SDSPCA", "SDSPCAAN", "SDSPCALPP", "SPCAN", "VPCA"], ".sdspcaan"
    ),
    **dict.fromkeys(
        ["pca", "pcan", "sdspca", "sdspca_lpp", "sdspcaan", "spcan", "vpca"], ".sdspcaan"
    ),
    **dict.fromkeys(["BPCA", "KDR", "KSPCA", "MKDR", "SPCA"], ".spca"),
    **dict.fromkeys(["bpca", "kdr", "kspca", "mkdr", "spca"], ".spca"),
    **dict.fromkeys(
        ["det_distance", "projection_distance", "subspace_distance", "trace_correlation"],
        ".stats.distances",
    ),
}
#: Modules reachable as attributes, as after the former eager imports (``sdr.evaluate``,
#: ``sdr.datasets``, ``sdr.distances``, ``sdr.moment``, ...).
_MODULES: dict[str, str] = {
    "datasets": ".datasets",
    "distances": ".stats.distances",
    "evaluate": ".evaluate",
    **{
        name: f".{name}"
        for name in (
            "base",
            "density",
            "design",
            "fitting",
            "inference",
            "lsce",
            "mave",
            "moment",
            "online",
            "plotting",
            "results",
            "scale",
            "sdspcaan",
            "spca",
            "stats",
        )
    },
}
#: Family functions named like their package: ``sdr.mave`` is the function, never the package,
#: even after ``import sdrstats.mave.local`` (which sets the package as an attribute).
_FUNCTIONS_OVER_PACKAGES = frozenset(("lsce", "mave", "sdspcaan", "spca"))


def __getattr__(name: str) -> object:
    """Import an exported name's module on first use and keep the name (PEP 562)."""
    if name in _HOMES:
        value = getattr(_importlib.import_module(_HOMES[name], __name__), name)
    elif name in _MODULES:
        value = _importlib.import_module(_MODULES[name], __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The exported names, the subpackages and the module's dunders, as an eager import gave."""
    own = ("__getattr__", "__dir__", "__annotations__", "__annotate__")
    dunders = {n for n in globals() if n.startswith("__") and n not in own}
    return sorted(dunders | set(__all__) | set(_MODULES))


def _import_all() -> None:
    """Import every module an exported name lives in (so their classes are registered for
    :func:`load`)."""
    for module in sorted(set(_HOMES.values()) | set(_MODULES.values())):
        _importlib.import_module(module, __name__)


class _Package(_types.ModuleType):
    """The package module, whose family functions are not replaced by their packages."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _FUNCTIONS_OVER_PACKAGES and isinstance(value, _types.ModuleType):
            return  # the import system naming a subpackage; the function keeps the name
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package
_persistence.on_first_lookup(_import_all)
