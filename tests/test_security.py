"""Untrusted data never run code: hostile column names through `.`, the CLI and transform."""

import inspect
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
