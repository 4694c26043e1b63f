"""Untrusted data never run code: hostile column names through `.`, the CLI and transform."""

import inspect
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.__main__ import main

# Each name tries to close the Q("...") quote and call os.system; the last ones are merely odd.
HOSTILE = [
    'x1") - x1 + I(__import__("os").system("touch {marker}") * 0 + x2) - Q("x1',
    'a\\") + I(__import__("os").system("touch {marker}")) + Q("b',
    "b') + I(__import__('os').system('touch {marker}')) + Q('c",
    'c\\\\") + I(__import__("os").system("touch {marker}")) + Q("d',
    'e" + "f',
    "g\\1\\n",
    "line\nbreak",
    "class",
    "None",
    "1st",
]


def _frame(name: str, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((120, 3))
    y = x[:, 0] + 0.5 * x[:, 1] + 0.2 * rng.standard_normal(120)
    return pd.DataFrame({"x1": x[:, 0], name: x[:, 1], "x3": x[:, 2], "y": y})


@pytest.mark.parametrize("template", HOSTILE)
def test_dot_expansion_looks_names_up_and_never_runs_them(template, tmp_path):
    marker = tmp_path / "pwned"
    name = template.format(marker=marker)
    df = _frame(name)
    fit = sdr.sir("y ~ .", df, nslices=5)
    assert not marker.exists()
    # every column is a predictor: nothing was silently dropped or added
    assert fit.p == 3
    reference = sdr.sir("y ~ x1 + x2 + x3", _frame("x2"), nslices=5)
    np.testing.assert_allclose(
        fit.eigenvalues.to_numpy(), reference.eigenvalues.to_numpy(), rtol=1e-12
    )  # same numbers as the same data with tame names
    np.testing.assert_allclose(
        fit.transform(df.head(3)).to_numpy(),
        reference.transform(_frame("x2").head(3)).to_numpy(),
        rtol=1e-12,
    )
    assert not marker.exists()


def test_hostile_header_on_the_command_line(tmp_path, capsys):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.csv"
    _frame(HOSTILE[0].format(marker=marker)).to_csv(path, index=False)
    assert main(["fit", "sir", "y ~ .", str(path), "--nslices", "5"]) == 0
    out = capsys.readouterr().out
    assert not marker.exists()
    assert "x1" in out and "x3" in out  # x1 is kept, not dropped by an injected '- x1'


def test_hostile_header_in_a_subprocess(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.csv"
    _frame(HOSTILE[1].format(marker=marker)).to_csv(path, index=False)
    done = subprocess.run(
        [sys.executable, "-m", "sdrstats", "fit", "save", "y ~ .", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert not marker.exists()


def test_hostile_names_in_chunked_and_online_fits(tmp_path):
    marker = tmp_path / "pwned"
    df = _frame(HOSTILE[0].format(marker=marker))
    path = tmp_path / "evil.csv"
    df.to_csv(path, index=False)
    chunked = sdr.sir("y ~ .", sdr.scale.read_csv_chunks(path, chunksize=50), nslices=5)
    assert chunked.p == 3 and not marker.exists()
    online = sdr.online_sir("y ~ .", df, d=1, init_size=60)
    assert online.p == 3 and not marker.exists()


def test_formula_functions_warn_that_formulas_are_code():
    functions = [getattr(sdr, n) for n in sdr.__all__ if inspect.isfunction(getattr(sdr, n))]
    takes_formula = [
        f
        for f in functions
        if list(inspect.signature(f).parameters)[:1] in (["formula"], ["formula_or_fit"])
    ]
    assert len(takes_formula) >= 20
    undocumented = [f.__name__ for f in takes_formula if "untrusted" not in (f.__doc__ or "")]
    assert undocumented == []


def test_readme_and_cli_help_say_formulas_are_code(capsys):
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "never come from an untrusted source" in readme
    with pytest.raises(SystemExit):
        main(["fit", "sir", "--help"])
    assert "untrusted source" in capsys.readouterr().out


# -- saved state is data: a stored formula is checked against the allow-list before it runs --
ATTACKS = [
    # (what the term tries, the term, what the refusal names)
    (
        "import",
        "I(__import__('os').system('touch {marker}'))",
        "is not one of the allowed functions",
    ),
    ("call-builtin", "I(eval(\"__import__('os').system('touch {marker}')\"))", "'eval' is not one"),
    ("attribute", "I(x1.__class__.__bases__)", "Attribute expressions are not allowed"),
    ("method", "x1.apply(print)", "is not one of the allowed functions"),
    ("lambda", "I((lambda: __import__('os').system('touch {marker}'))())", "refused"),
    ("subscript", "I(x1[0])", "Subscript expressions are not allowed"),
    ("comprehension", "I([c for c in x1])", "ListComp expressions are not allowed"),
    ("unknown-name", "I(os)", "'os' is not a column of the stored data"),
    ("quoted-global", "Q('__builtins__')", "Q\\(\\) must quote one column name"),
    ("numpy-io", "np.load('{marker}')", "'np.load' is not one of the allowed functions"),
    ("huge-power", "I(x1 * 9 ** 9 ** 9)", "a power needs a column on one side"),
    ("string-bomb", "I(x1 + len('a' * 10 ** 10))", "cannot be used in arithmetic|'len' is not one"),
]


@pytest.mark.parametrize(("kind", "term", "named"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_a_hand_edited_stream_formula_never_runs(kind, term, named, tmp_path):
    marker = tmp_path / "pwned"
    fit = sdr.online_sir("y ~ x1 + x2", _frame("x2"), chunksize=60, nslices=5, init_size=60)
    stream = fit.stream
    hostile = term.format(marker=marker)
    state = stream.state_dict()
    state["reader"]["formula"] = f"y ~ x1 + {hostile}"
    with pytest.raises(ValueError, match=named) as info:
        sdr.OnlineSIR.from_state(state)
    assert str(info.value).startswith("state is incomplete or corrupt: reader.formula")
    state = stream.state_dict()
    state["reader"]["spec"].rhs = f"x1 + {hostile}"
    with pytest.raises(ValueError, match=named):
        sdr.OnlineSIR.from_state(state)
    state = stream.state_dict()
    state["reader"]["formula"] = f"{hostile} ~ x1 + x2"  # the response, evaluated per chunk
    with pytest.raises(ValueError, match=named):
        sdr.OnlineSIR.from_state(state)
    assert not marker.exists()


def _edit_saved_rhs(path, rhs, target):
    """A saved fit with its formula replaced, checksums recomputed (a deliberate edit)."""
    import hashlib
    import json

    from sdrstats.base import persistence

    with np.load(path, allow_pickle=False) as archive:
        members = {k: archive[k] for k in archive.files}
    header = json.loads(members[persistence.HEADER].tobytes())
    spec = dict((k, v) for k, v in header["root"]["state"])["spec"]
    spec["state"] = [[k, rhs if k == "rhs" else v] for k, v in spec["state"]]
    text = json.dumps(header).encode()
    members[persistence.HEADER] = np.frombuffer(text, np.uint8)
    members[persistence.HEADER_CHECKSUM] = np.frombuffer(
        hashlib.sha256(text).hexdigest().encode(), np.uint8
    )
    np.savez(target, **members)
    return target


@pytest.mark.parametrize(("kind", "term", "named"), ATTACKS[:6], ids=[a[0] for a in ATTACKS[:6]])
def test_a_hand_edited_saved_fit_never_runs_its_formula(kind, term, named, tmp_path):
    marker = tmp_path / "pwned"
    fit = sdr.sir("y ~ x1 + x2 + x3", _frame("x2"), nslices=5)
    path = fit.save(tmp_path / "fit")
    edited = _edit_saved_rhs(path, f"x1 + x2 + {term.format(marker=marker)}", tmp_path / "e.npz")
    with pytest.raises(ValueError, match=named) as info:
        sdr.load(edited)
    assert str(info.value).startswith("state is incomplete or corrupt: spec.rhs")
    assert not marker.exists()


def test_the_allow_list_accepts_what_formulas_use():
    from sdrstats.design.safe_formula import check_formula

    columns = ["y", "x1", "x2", "g", "odd name"]
    for formula in [
        "y ~ x1 + x2",
        "log(y) ~ log(x1) + sqrt(x2) + exp(x1) + abs(x2) + log2(x1) + log10(x1) + log1p(x1)",
        "y ~ np.log(x1) + np.sin(x2) + np.where(x1 > 0, x1, 0) + numpy.sqrt(x2)",
        "y ~ I(x1 ** 2) + I(x1 * x2 - 3.5) + I(-x1 / 2 ** 0.5) + I(x1 // 2 % 3) + I(x1 > 0)",
        "y ~ C(g) + C(g, Treatment('b')) + C(g, Sum) + C(g, levels=['a', 'b'])",
        "y ~ center(x1) + standardize(x2) + scale(x1) + bs(x1, df=4) + cr(x2, df=3)",
        "y ~ te(cr(x1, df=3), cc(x2, df=3)) + x1:x2 + x1*x2 - 1",
        "y ~ Q('odd name') + I(g == 'a')",
        "y ~ (Q(\"x1\") + Q('x2'))",
        # R's functions, as the formula front writes them (as.factor is as_factor)
        "y ~ factor(g) + as_factor(x1) + ordered(g, levels=['b', 'a']) + ordered_column(g)",
        "y ~ as_numeric(g) + poly(x1, 2) + poly(x2, degree=3, raw=True) + scale(x1, center=False)",
    ]:
        check_formula(formula, columns)  # no exception


def test_an_unpickled_or_dask_plan_checks_its_formula_too(tmp_path):
    marker = tmp_path / "pwned"
    fit = sdr.sir("y ~ x1 + x2", _frame("x2"), nslices=5)
    clone = pickle.loads(pickle.dumps(fit))  # the design is rebuilt from the stored text
    clone.spec.rhs = f"x1 + I(__import__('os').system('touch {marker}'))"
    with pytest.raises(ValueError, match="is not one of the allowed functions"):
        clone.transform(_frame("x2").head(2))
    from sdrstats.design.plan import FormulaPlan

    plan = pickle.loads(pickle.dumps(FormulaPlan("y ~ x1 + x2", _frame("x2"))))
    plan.rhs = f"x1 + I(__import__('os').system('touch {marker}'))"
    plan.plain_x = None
    with pytest.raises(ValueError, match="is not one of the allowed functions"):
        plan.arrays(_frame("x2"))
    assert not marker.exists()
