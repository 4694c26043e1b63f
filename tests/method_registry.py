"""Quick fits of every method on small data, shared by the cross-method reliability tests."""

import numpy as np
import pandas as pd

import sdrstats as sdr


def regression_frame(n=80, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, 4)), columns=["x1", "x2", "x3", "x4"])
    frame["y"] = frame.x1 + 0.5 * frame.x2**2 + 0.3 * rng.normal(size=n)
    frame["g"] = np.where(frame.x1 + 0.3 * rng.normal(size=n) > 0, "a", "b")
    return frame


F = "y ~ x1 + x2 + x3 + x4"
G = "g ~ x1 + x2 + x3 + x4"

# name -> function(frame) -> fitted result, with settings small enough for many repetitions
FITS = {
    "sir": lambda d: sdr.sir(F, d, nslices=5),
    "save": lambda d: sdr.save(F, d, nslices=5),
    "phd": lambda d: sdr.phd(F, d),
    "ire": lambda d: sdr.ire(F, d, nslices=5),
    # their default d rule is a permutation test: a seed makes the chosen d repeatable
    "directional_regression": lambda d: sdr.directional_regression(F, d, nslices=5, random_state=0),
    "cume": lambda d: sdr.cume(F, d, random_state=0),
    "mave": lambda d: sdr.mave(F, d, d=1, d_max=2, max_iter=5),
    "lsce": lambda d: sdr.lsce(
        F, d, d=1, n_restarts=2, max_iter=5, n_basis=30, progress=False, random_state=0
    ),
    "lsmi": lambda d: sdr.lsmi(
        F, d, d=1, n_restarts=2, max_iter=5, n_basis=30, progress=False, random_state=0
    ),
    "spca": lambda d: sdr.spca(F, d, d=1),
    "kspca": lambda d: sdr.kspca(F, d, d=1, random_state=0),
    "bpca": lambda d: sdr.bpca(F, d, d=1, random_state=0),
    "kdr": lambda d: sdr.kdr(F, d, d=1, max_iter=5, n_anneal=2, random_state=0),
    "mkdr": lambda d: sdr.mkdr(F, d, d=1, max_iter=5, n_anneal=2, random_state=0),
    "sdspcaan": lambda d: sdr.sdspcaan(G, d, d=2, max_iter=10),
    "sdspca": lambda d: sdr.sdspca(G, d, d=2, max_iter=10),
    "spcan": lambda d: sdr.spcan(G, d, d=2, max_iter=10),
    "pcan": lambda d: sdr.pcan(G, d, d=2, max_iter=10),
    "sdspca_lpp": lambda d: sdr.sdspca_lpp(G, d, d=2, max_iter=10),
    "pca": lambda d: sdr.pca(G, d, d=2),
    "vpca": lambda d: sdr.vpca(G, d, d=2),
    "lasso_sir": lambda d: sdr.lasso_sir(F, d, d=1, nslices=5, n_folds=3, random_state=0),
    "online_sir": lambda d: sdr.online_sir(F, d, chunksize=20, nslices=5, d=1, init_size=20),
}
