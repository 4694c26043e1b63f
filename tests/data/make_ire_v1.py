"""Write ``ire_v1.npz`` and ``pire_v1.npz``: an IRE and a partial IRE fit saved in the results
file format 1, which kept the final ``Γ_ζ`` Cholesky factor(s) in the fit's extras
(``gamma_factor``, ``gamma_factors``); format 2 leaves them out and recomputes them from the
fit's rows.

Run from the repository root with the sdrstats to record on the path::

    PYTHONPATH=<checkout> python tests/data/make_ire_v1.py

``tests/test_ire_size.py`` loads both files and compares their summaries and coordinate tests
with fresh fits of the same rows.
"""

from pathlib import Path

import sdrstats as sdr

HERE = Path(__file__).resolve().parent
#: The fits the files hold (``tests/test_ire_size.py`` refits them).
FORMULA = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)"
OPTIONS = {"nslices": 8, "d_max": 2, "random_state": 7}
PARTIAL = {"group": "sex", "nslices": 5, "d_max": 2, "random_state": 7}

if __name__ == "__main__":
    ais = sdr.datasets.load("ais")
    fit = sdr.ire(FORMULA, ais, **OPTIONS)
    partial = sdr.ire(FORMULA, ais, **PARTIAL)
    print(sorted(fit.output.extras), sdr.__file__)
    fit.save(HERE / "ire_v1.npz")
    partial.save(HERE / "pire_v1.npz")
