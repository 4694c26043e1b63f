"""Shared fixtures: bundled data, the R reference numbers and the built documentation site."""

import fcntl
import json
import os
import subprocess
import sys
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


def _build_site(out: Path) -> dict:
    """One Sphinx build of ``docs/`` (``-W``, quick vignettes) into ``out``; its outcome."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "SDRSTATS_QUICK": "1"}
    env["PYTHONPATH"] = str(root) + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
    )
    env.pop("MPLBACKEND", None)
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-q",
        "-b",
        "html",
        "-d",
        str(out / "doctrees"),
        str(root / "docs"),
        str(out / "html"),
    ]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=900)
    # -W turns every Sphinx warning into a failure; keep them all to show when it fails.
    warnings = [
        line for line in done.stderr.splitlines() if "WARNING" in line and "IPKernelApp" not in line
    ]  # the kernel's own log line, not Sphinx's
    return {
        "returncode": done.returncode,
        "warnings": warnings,
        "tail": done.stderr.splitlines()[-40:],
    }


@pytest.fixture(scope="session")
def docs_site(tmp_path_factory) -> Path:
    """The documentation site, built once per test run (``python -m sphinx -W``).

    Under pytest-xdist every worker asks for it; the first builds it into a folder all workers
    share while holding a lock, and the others wait and read the same build, so a run with
    ``-n 2`` builds the site once, not once per worker.
    """
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = shared / "docs_site"
    out.mkdir(exist_ok=True)
    with open(shared / "docs_site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        status = out / "status.json"
        if not status.exists():
            status.write_text(json.dumps(_build_site(out)))
        outcome = json.loads(status.read_text())
    assert outcome["returncode"] == 0 and not outcome["warnings"], (
        f"sphinx exited {outcome['returncode']}:\n"
        + "\n".join(outcome["warnings"] or outcome["tail"])
    )
    return out / "html"
