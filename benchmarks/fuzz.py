"""Fuzz the formula front and the methods with random data frames and formulas (hypothesis).

Every call must either return a fitted result or raise the documented ``ValueError`` /
``TypeError``; anything else is a bug and is printed with the example that caused it.

    python benchmarks/fuzz.py [--examples 3000] [--seconds 240] [--out benchmarks/fuzz.md]
"""

from __future__ import annotations

import argparse
import collections
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sdrstats as sdr

METHODS = {
    "sir": lambda f, d, o: sdr.sir(f, d, nslices=o.get("nslices")),
    "save": lambda f, d, o: sdr.save(f, d, nslices=o.get("nslices")),
    "phd": lambda f, d, o: sdr.phd(f, d, residuals=o.get("residuals", True)),
    "ire": lambda f, d, o: sdr.ire(f, d, nslices=o.get("nslices")),
    "directional_regression": lambda f, d, o: sdr.directional_regression(
        f, d, nslices=o.get("nslices")
    ),
    "cume": lambda f, d, o: sdr.cume(f, d),
    "spca": lambda f, d, o: sdr.spca(f, d, d=o.get("d", 1)),
    "kspca": lambda f, d, o: sdr.kspca(f, d, d=o.get("d", 1), gamma=o.get("gamma")),
    "bpca": lambda f, d, o: sdr.bpca(f, d, d=o.get("d", 1), n_folds=3, random_state=0),
    "mave": lambda f, d, o: sdr.mave(f, d, d=o.get("d", 1), d_max=2, max_iter=3),
    "lsce": lambda f, d, o: sdr.lsce(
        f,
        d,
        d=o.get("d", 1),
        n_restarts=1,
        max_iter=2,
        n_basis=10,
        n_folds=2,
        progress=False,
        random_state=0,
    ),
    "sdspcaan": lambda f, d, o: sdr.sdspcaan(f, d, d=o.get("d", 1), max_iter=3),
    "lasso_sir": lambda f, d, o: sdr.lasso_sir(f, d, d=o.get("d"), n_folds=3, random_state=0),
}

# "normal" repeated so that about half of the frames are fit-able and the methods run through
NUMERIC_KINDS = ["normal"] * 12 + [
    "integer",
    "constant",
    "with_nan",
    "with_inf",
    "huge",
    "tiny",
    "duplicate",
]


@st.composite
def frames(draw):
    n = draw(st.sampled_from([0, 3, 12, 30, 40, 60]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    columns: dict[str, object] = {}
    n_numeric = draw(st.integers(1, 5))
    for j in range(n_numeric):
        kind = draw(st.sampled_from(NUMERIC_KINDS))
        values = rng.normal(size=n)
        if kind == "integer":
            values = rng.integers(0, 3, size=n)
        elif kind == "constant":
            values = np.full(n, 2.0)
        elif kind == "with_nan" and n:
            values[rng.integers(0, n)] = np.nan
        elif kind == "with_inf" and n:
            values[rng.integers(0, n)] = np.inf
        elif kind == "huge":
            values = values * 1e300
        elif kind == "tiny":
            values = values * 1e-300
        elif kind == "duplicate" and columns:
            values = np.asarray(next(iter(columns.values())), dtype=float)
        columns[f"x{j + 1}"] = values
    if draw(st.booleans()):
        columns["g"] = rng.choice(["a", "b", "c"], size=n)
    if draw(st.integers(0, 9)) == 0:
        columns["m"] = [[1, "a", 2.5][i % 3] for i in range(n)]
    response = draw(st.sampled_from(["normal"] * 4 + ["binary", "constant", "string", "with_nan"]))
    y = rng.normal(size=n)
    if response == "binary":
        y = (y > 0).astype(float)
    elif response == "constant":
        y = np.ones(n)
    elif response == "with_nan" and n:
        y[0] = np.nan
    columns["y"] = rng.choice(["u", "v"], size=n) if response == "string" else y
    frame = pd.DataFrame(columns)
    if draw(st.integers(0, 9)) == 0 and frame.shape[1] > 2:
        frame.columns = [*frame.columns[:-2], frame.columns[0], "y"]  # duplicated name
    return frame


@st.composite
def formulas(draw, frame):
    names = [c for c in frame.columns if c != "y"] or ["x1"]
    kind = draw(
        st.sampled_from(
            [
                "dot",
                "dot",
                "dot_minus",
                "terms",
                "terms",
                "transform",
                "missing",
                "junk",
                "two_responses",
            ]
        )
    )
    if kind == "dot":
        return "y ~ ."
    if kind == "dot_minus":
        return f"y ~ . - {draw(st.sampled_from(names))}"
    if kind == "terms":
        chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=4, unique=True))
        return "y ~ " + " + ".join(chosen)
    if kind == "transform":
        fn = draw(st.sampled_from(["log", "sqrt", "exp", "abs", "C"]))
        return f"y ~ {fn}({draw(st.sampled_from(names))}) + {draw(st.sampled_from(names))}"
    if kind == "missing":
        return "y ~ nothere + " + names[0]
    if kind == "two_responses":
        return f"y + {names[0]} ~ ."
    return draw(st.sampled_from(["y ~ ~ x1", "y ~ x1 +", "~ x1", "y x1", "y ~ (x1", ""]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=3000)
    parser.add_argument("--seconds", type=float, default=240.0)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("fuzz.md"))
    args = parser.parse_args()
    outcomes: collections.Counter[str] = collections.Counter()
    failures: list[str] = []
    start = time.perf_counter()

    @settings(
        max_examples=args.examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def fuzz(data):
        if time.perf_counter() - start > args.seconds:
            return
        frame = data.draw(frames())
        formula = data.draw(formulas(frame))
        method = data.draw(st.sampled_from(sorted(METHODS)))
        options = {
            "nslices": data.draw(st.sampled_from([None] * 4 + [1, 2, 3, 50])),
            "d": data.draw(st.sampled_from([None, 1, 1, 1, 2, 9])),
            "gamma": data.draw(st.sampled_from([None, None, None, -1.0, 0.5])),
            "residuals": data.draw(st.booleans()),
        }
        before = frame.copy()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit = METHODS[method](formula, frame, options)
                str(fit.summary())
            outcomes["fitted"] += 1
        except (ValueError, TypeError):
            outcomes["ValueError/TypeError"] += 1
        except Exception as exc:  # noqa: BLE001 - the point is to find these
            outcomes[f"unhandled {type(exc).__name__}"] += 1
            failures.append(
                f"- `{method}` on `{formula}` with {options}: {type(exc).__name__}: {exc}\n"
                f"  columns {list(frame.columns)}, n = {len(frame)}\n```\n"
                f"{traceback.format_exc(limit=3)}```"
            )
        pd.testing.assert_frame_equal(frame, before)  # the caller's frame is never modified
        outcomes["examples"] += 1

    fuzz()
    elapsed = time.perf_counter() - start
    lines = [
        "# Fuzz run",
        "",
        f"`python benchmarks/fuzz.py --examples {args.examples} --seconds {args.seconds:g}`"
        f" — {outcomes['examples']} examples in {elapsed:.0f} s (hypothesis, derandomised).",
        "",
        "| outcome | count |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v} |" for k, v in sorted(outcomes.items()) if k != "examples"]
    lines += ["", f"Unhandled exceptions: {len(failures)}."]
    lines += failures[:20]
    text = "\n".join(lines) + "\n"
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
