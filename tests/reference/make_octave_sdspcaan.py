"""Reference numbers for SDSPCA and SDSPCAAN from the authors' own MATLAB code, run under Octave.

Shi, Wu, Huang, Wang & Lin published ``SDSPCA.m`` and ``SDSPCAAN.m`` at
https://github.com/ZhenhuaShi/SDSPCAAN (commit e71876d, December 2020). This script does not
contain or copy that code: it takes the path of a checkout, writes three small synthetic class
problems, runs the authors' functions on them under GNU Octave and writes what they return
to ``tests/reference/octave_sdspcaan.json`` (read by ``tests/test_sdspcaan_authors.py``).

Run from the repository root::

    git clone https://github.com/ZhenhuaShi/SDSPCAAN /tmp/SDSPCAAN
    apt-get install -y octave octave-statistics      # Octave 7.3, statistics 1.5.3 here
    python tests/reference/make_octave_sdspcaan.py /tmp/SDSPCAAN

Two things stand between the published code and Octave 7.3, and the script supplies them
without touching the authors' files:

* ``pdist`` and ``squareform`` come from Octave Forge's ``statistics`` package
  (``pkg load statistics``).
* Octave's ``eigs`` does not know MATLAB's ``'smallestreal'``. A function ``eigs`` written
  into a temporary folder in front of the path answers that call with the ``k`` smallest
  eigenpairs of ``(A + A')/2`` from the dense ``eig`` (the matrices are at most 60 x 60; the
  symmetrisation removes rounding asymmetry of ``XX'LXX'``, which MATLAB would otherwise send
  to its non-symmetric solver) and hands every other call (``svds`` inside ``vPCA``) to
  Octave's own ``eigs``.

For every case the authors' function is run with its defaults (``T = 100``, ``tol = 1e-3``,
``m = min(15, n - 2)``, λ starting at 10) and then with ``T = 1, 2, ...`` until the output equals
the default run's: those are the iterates the authors' loop went through, and the first ``T``
that reproduces the default output is the number of Q-steps it took. ("Equals" means the
spans of ``Q`` agree to 1e-9: ``vPCA``'s ``svds`` starts ARPACK at a random vector, so the
starting ``Q0`` of two runs differs in its columns' signs and by rounding.) The predictors are rounded to
4 decimals before anything is fitted and written as rounded; Octave z-scores them
(``zscore``, divisor n - 1) as the authors' ``demo.m`` does, and the package z-scores the same
numbers itself.

SDSPCA's own stopping rule compares raw eigenvectors, ``norm(Q - Q0) < tol``: a sign flip of
an eigenvector (the eigensolver's choice) makes that norm about 2 and delays the stop by an
iteration. The script records, for each step, the norm the authors' loop saw and the norm
with the signs matched, and flags a case whose stop was delayed that way.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

EIGS_ADAPTER = r"""function varargout = eigs(A, k, sigma, varargin)
  % MATLAB's eigs(A, k, 'smallestreal') for a real symmetric A, by the dense eig;
  % any other call goes to Octave's own eigs.
  if ~(ischar(sigma) && strcmp(sigma, 'smallestreal'))
    here = fileparts(mfilename('fullpath'));
    rmpath(here);
    unwind_protect
      [varargout{1:max(nargout, 1)}] = eigs(A, k, sigma, varargin{:});
    unwind_protect_cleanup
      addpath(here, '-begin');
    end_unwind_protect
    return
  end
  A = full(A);
  A = (A + A') / 2;
  [V, D] = eig(A);
  [d, order] = sort(diag(D), 'ascend');
  d = d(1:k);
  V = V(:, order(1:k));
  if nargout <= 1
    varargout = {d};
  else
    varargout = {V, diag(d), 0};
  end
end
"""

DRIVER = r"""warning('off', 'all');
pkg load statistics
addpath('{adapter}', '-begin');
addpath('{authors}');
function out = run_method(name, X, Y, k, params, T)
  if strcmp(name, 'sdspca')
    [W, Q] = SDSPCA(X, Y, k, params, T);
  else
    [W, Q] = SDSPCAAN(X, Y, k, params, min(15, size(X, 1) - 2), 1e-3, T);
  end
  out = [W; Q];
end
cases = strsplit(fileread('{folder}/fits.txt'), "\n");
for i = 1:numel(cases)
  line = strtrim(cases{{i}});
  if isempty(line), continue; end
  parts = strsplit(line, ' ');
  label = parts{{1}}; data = parts{{2}}; name = parts{{3}}; k = str2double(parts{{4}});
  params = str2double(parts(5:end));
  X = zscore(csvread(sprintf('{folder}/%s_x.csv', data)));
  Y = csvread(sprintf('{folder}/%s_y.csv', data));
  final = run_method(name, X, Y, k, params, 100);
  dlmwrite(sprintf('{folder}/%s_final.csv', label), final, 'precision', 17);
  for T = 1:100
    out = run_method(name, X, Y, k, params, T);
    dlmwrite(sprintf('{folder}/%s_T%d.csv', label, T), out, 'precision', 17);
    % svds (inside vPCA) starts ARPACK at a random vector, so Q0 differs between runs
    % in its signs and by rounding; compare the spans of Q
    Qa = out(size(X, 2) + 1:end, :); Qb = final(size(X, 2) + 1:end, :);
    if norm(Qa * Qa' - Qb * Qb', 'fro') < 1e-9, break; end
  end
end
s = pkg('list', 'statistics');
disp([version() ' ' s{{1}}.version]);
"""


def class_problems() -> dict[str, dict]:
    """Three small class problems, predictors rounded to 4 decimals."""
    out = {}
    # three Gaussian classes separated in two coordinates; eight high-variance noise columns
    rng = np.random.default_rng(20240601)
    angles = 2 * np.pi * np.arange(3) / 3
    means = np.zeros((3, 10))
    means[:, 0], means[:, 1] = 2.5 * np.cos(angles), 2.5 * np.sin(angles)
    y = np.repeat(np.arange(3), 20)
    x = means[y] + rng.standard_normal((60, 10)) * np.r_[1.0, 1.0, [3.0] * 8]
    out["three_gaussians"] = {
        "note": "3 classes of 20, p = 10: means on a circle of radius 2.5 in x1, x2 "
        "(sd 1); x3..x10 noise with sd 3",
        "x": x,
        "y": y,
    }
    # two classes, p close to n: the class shift is spread over five columns
    rng = np.random.default_rng(20240602)
    y = np.repeat(np.arange(2), 25)
    x = rng.standard_normal((50, 30))
    x[:, :5] += 0.8 * (2 * y[:, None] - 1)
    x[:, 5:] *= 1.5
    out["two_classes_wide"] = {
        "note": "2 classes of 25, p = 30: x1..x5 shifted by +-0.8 (sd 1); x6..x30 noise "
        "with sd 1.5",
        "x": x,
        "y": y,
    }
    # four classes on concentric rings (not linearly separable) plus correlated noise
    rng = np.random.default_rng(20240603)
    y = np.repeat(np.arange(4), 12)
    theta = rng.uniform(0, 2 * np.pi, 48)
    radius = 1.0 + y + 0.15 * rng.standard_normal(48)
    noise = rng.standard_normal((48, 6)) @ rng.standard_normal((6, 6)) * 0.7
    x = np.column_stack([radius * np.cos(theta), radius * np.sin(theta), noise])
    out["four_rings"] = {
        "note": "4 classes of 12 on rings of radius 1..4 (sd 0.15) in x1, x2; x3..x8 "
        "correlated Gaussian noise",
        "x": x,
        "y": y,
    }
    for case in out.values():
        case["x"] = np.round(case["x"], 4)
    return out


#: (label, data set, method, k, weights): SDSPCA's weights are (alpha, beta), SDSPCAAN's
#: (alpha, beta, delta), each multiplying its trace scale as in the authors' code.
FITS = [
    ("three_gaussians_sdspca", "three_gaussians", "sdspca", 3, (1.0, 1.0)),
    ("three_gaussians_sdspcaan", "three_gaussians", "sdspcaan", 3, (1.0, 1.0, 1.0)),
    ("three_gaussians_sdspcaan_delta10", "three_gaussians", "sdspcaan", 2, (10.0, 0.1, 10.0)),
    ("two_classes_wide_sdspca", "two_classes_wide", "sdspca", 2, (1.0, 1.0)),
    ("two_classes_wide_sdspcaan", "two_classes_wide", "sdspcaan", 2, (1.0, 1.0, 1.0)),
    ("two_classes_wide_sdspcaan_delta01", "two_classes_wide", "sdspcaan", 4, (1.0, 1.0, 0.1)),
    ("four_rings_sdspca", "four_rings", "sdspca", 4, (10.0, 0.1)),
    ("four_rings_sdspcaan", "four_rings", "sdspcaan", 4, (1.0, 1.0, 1.0)),
    ("four_rings_sdspcaan_delta10", "four_rings", "sdspcaan", 3, (1.0, 10.0, 10.0)),
]


def _read(path: Path, p: int) -> tuple[np.ndarray, np.ndarray]:
    with path.open() as handle:
        rows = np.array([[float(v) for v in row] for row in csv.reader(handle)])
    return rows[:p], rows[p:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("authors", help="folder holding the authors' SDSPCA.m, SDSPCAAN.m, vPCA.m")
    parser.add_argument("--octave", default="octave")
    parser.add_argument("--out", default=str(HERE / "octave_sdspcaan.json"))
    args = parser.parse_args()
    authors = Path(args.authors).resolve()
    for name in ("SDSPCA.m", "SDSPCAAN.m", "vPCA.m"):
        if not (authors / name).exists():
            sys.exit(f"{authors} has no {name}: pass a checkout of ZhenhuaShi/SDSPCAAN")
    commit = subprocess.run(
        ["git", "-C", str(authors), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()

    problems = class_problems()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        adapter = folder / "adapter"
        adapter.mkdir()
        (adapter / "eigs.m").write_text(EIGS_ADAPTER)
        for name, case in problems.items():
            np.savetxt(folder / f"{name}_x.csv", case["x"], delimiter=",", fmt="%.4f")
            np.savetxt(folder / f"{name}_y.csv", case["y"] + 1, fmt="%d")
        lines = [
            f"{label} {data} {method} {k} " + " ".join(repr(w) for w in weights)
            for label, data, method, k, weights in FITS
        ]
        (folder / "fits.txt").write_text("\n".join(lines) + "\n")
        driver = DRIVER.format(adapter=adapter, authors=authors, folder=folder)
        (folder / "driver.m").write_text(driver)
        done = subprocess.run(
            [args.octave, "--no-gui", "--quiet", str(folder / "driver.m")],
            capture_output=True,
            text=True,
            cwd=folder,
        )
        if done.returncode != 0:
            sys.exit(f"Octave failed:\n{done.stdout}\n{done.stderr}")
        octave_version, statistics_version = done.stdout.strip().splitlines()[-1].split()

        fits = {}
        for label, data, method, k, weights in FITS:
            p = problems[data]["x"].shape[1]
            final_W, final_Q = _read(folder / f"{label}_final.csv", p)
            iterates = []
            T = 1
            while (folder / f"{label}_T{T}.csv").exists():
                W, Q = _read(folder / f"{label}_T{T}.csv", p)
                iterates.append({"T": T, "W": W, "Q": Q})
                T += 1
            # what the authors' SDSPCA loop compared (raw), and the same with signs matched
            raw, matched, previous = [], [], None
            for it in iterates:
                if previous is not None:
                    raw.append(float(np.linalg.norm(it["Q"] - previous, 2)))
                    signs = np.where(np.sum(it["Q"] * previous, axis=0) < 0, -1.0, 1.0)
                    matched.append(float(np.linalg.norm(it["Q"] * signs - previous, 2)))
                previous = it["Q"]
            stop_matched = next((i + 2 for i, v in enumerate(matched) if v < 1e-3), None)
            fits[label] = {
                "data": data,
                "method": method,
                "k": k,
                "weights": list(weights),
                "n_q_steps": len(iterates),
                "W": final_W.tolist(),
                "Q": final_Q.tolist(),
                "iterates": [{"T": it["T"], "W": it["W"].tolist()} for it in iterates],
                "change_of_Q": raw,
                "change_of_Q_signs_matched": matched,
                "stop_delayed_by_a_sign_flip": bool(
                    method == "sdspca" and stop_matched is not None and stop_matched < len(iterates)
                ),
            }
    out = {
        "source": "https://github.com/ZhenhuaShi/SDSPCAAN",
        "commit": commit,
        "octave": octave_version,
        "octave_statistics": statistics_version,
        "script": "tests/reference/make_octave_sdspcaan.py",
        "cases": {
            name: {"note": case["note"], "x": case["x"].tolist(), "y": case["y"].tolist()}
            for name, case in problems.items()
        },
        "fits": fits,
    }
    Path(args.out).write_text(json.dumps(out) + "\n")
    for label, fit in fits.items():
        print(
            f"{label}: {fit['n_q_steps']} Q-steps; sign-delayed stop: "
            f"{fit['stop_delayed_by_a_sign_flip']}"
        )


if __name__ == "__main__":
    main()
