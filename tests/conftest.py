"""Shared fixtures: bundled data and the R reference numbers."""

import json
from pathlib import Path

import matplotlib
import pytest
from threadpoolctl import threadpool_limits

import sdrstats as sdr

matplotlib.use("Agg")

# One BLAS thread per test process: CI runs two pytest workers on two cores, and two
# multi-threaded BLAS pools per core make small factorisations stall for milliseconds each.
_BLAS_LIMIT = threadpool_limits(limits=1, user_api="blas")

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "dr_daag_ais.json"

AIS_FORMULA = (
    "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(wcc) + log(rcc) + log(hc) + log(ferr)"
)


@pytest.fixture(scope="session")
def ais():
    return sdr.datasets.load("ais")


@pytest.fixture(scope="session")
def r_reference():
    """R dr 3.0.11 output on DAAG ais (see shared/reference/README.md)."""
    if not REFERENCE.exists():  # pragma: no cover - the tests below embed the numbers too
        pytest.skip("shared/reference is not beside this checkout")
    return json.loads(REFERENCE.read_text())
