"""sdrstats: sufficient dimension reduction with formulas, summaries, tests and densities.

A formula and a data frame in, a fitted result out::

    import sdrstats as sdr
    ais = sdr.datasets.load("ais")
    fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    print(fit.summary())
"""

from . import datasets, evaluate  # noqa: F401  (sdr.evaluate: an application over several families)
from .base.budget import config_context, set_config
from .base.warnings import (
    CollinearityWarning,
    ConvergenceWarning,
    MissingValueWarning,
    SDRWarning,
    SlowFitWarning,
    TuningWarning,
)
from .inference import BootstrapResult, bootstrap_dimension, ladle, permutation_test
from .lsce import LSCE, LSMI, ConditionalDensity, DensityFit, eps_kde, lscde, lsce, lsmi
from .mave import MAVE, mave
from .moment import (
    CUME,
    PHD,
    SAVE,
    SIR,
    DirectionalRegression,
    cume,
    directional_regression,
    dr,
    dr_weights,
    phd,
    save,
    sir,
)
from .moment.bias_corrected_save import BiasCorrectedSAVE, bias_corrected_save
from .moment.covariance_reduction import CORE, core
from .moment.ire import IRE, ire
from .moment.regularized_sir import RegularizedSIR, regularized_sir
from .online import LassoSIR, OnlineSIR, lasso_sir, online_sir
from .results.fitted import DimensionTest, Results
from .results.io import load
from .scale import chunks_from, read_csv_chunks, read_parquet_chunks
from .sdspcaan import (
    PCA,
    PCAN,
    SDSPCA,
    SDSPCAAN,
    SDSPCALPP,
    SPCAN,
    VPCA,
    pca,
    pcan,
    sdspca,
    sdspca_lpp,
    sdspcaan,
    spcan,
    vpca,
)
from .spca import BPCA, KDR, KSPCA, MKDR, SPCA, bpca, kdr, kspca, mkdr, spca
from .stats import distances
from .stats.distances import det_distance, projection_distance, subspace_distance, trace_correlation

__version__ = "0.1.0"

__all__ = [
    "read_csv_chunks",
    "read_parquet_chunks",
    "chunks_from",
    "datasets",
    "distances",
    "SDRWarning",
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
    "BiasCorrectedSAVE",
    "bias_corrected_save",
    "RegularizedSIR",
    "regularized_sir",
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
