"""The command line: demo and `fit`."""

import re
import subprocess
import sys

import numpy as np
import pytest

from sdrstats.__main__ import main

ROOT_DATA = __import__("pathlib").Path(__file__).resolve().parents[1] / "data" / "ais.csv"


def test_fit_prints_summary(capsys):
    code = main(
        [
            "fit",
            "sir",
            "lbm ~ log(wt) + log(ht) + log(ssf)",
            str(ROOT_DATA),
            "--nslices",
            "6",
            "--test",
            "asymptotic",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "sir with 6 slices, n = 202." in out and "Chosen d =" in out


def test_fit_error_exits_2_with_message(capsys):
    code = main(["fit", "sir", "lbm ~ log(nope)", str(ROOT_DATA)])
    assert code == 2
    assert "'nope', which is not a column" in capsys.readouterr().err


def test_unreadable_csv_exits_2(capsys, tmp_path):
    assert main(["fit", "save", "y ~ .", str(tmp_path / "missing.csv")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_help_lists_methods_and_options():
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", "sir", "--help"])
    assert exit_info.value.code == 0


def test_bad_option_exits_2():
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", "sir", "y ~ .", str(ROOT_DATA), "--no-such-option", "1"])
    assert exit_info.value.code == 2


def test_demo_runs_as_module():
    out = subprocess.run(
        [sys.executable, "-m", "sdrstats", "demo", "--bootstrap", "20"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    assert "Sliced inverse regression" in out and "sir with 8 slices, n = 202." in out
    assert "save with 8 slices, n = 202." in out


def test_every_option_of_every_method_has_help_text():
    from sdrstats.__main__ import _estimators, _option_help

    methods = _estimators()
    assert len(methods) >= 20
    undocumented = {
        name: [o for o in cls.params if not _option_help(cls).get(o)]
        for name, cls in methods.items()
    }
    assert not {k: v for k, v in undocumented.items() if v}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty; it needs a header row"),
        (b"y,x1\n", "has a header but no data rows"),
        ("y,x1\n1,caf\u00e9\n".encode("latin-1"), "is not UTF-8 text"),
        (b'y,x1\n1,2\n3,"4', "cannot read .* as CSV \\(truncated or malformed\\?\\)"),
    ],
    ids=["empty", "header-only", "latin-1", "truncated-quote"],
)
def test_bad_csv_gives_one_line_error_and_exit_2(capsys, tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    assert main(["fit", "sir", "y ~ x1", str(path)]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err), err
    assert err.count("\n") == 1 and "Traceback" not in err


def _ais_csv(tmp_path, row_names: bool):
    import sdrstats as sdr

    ais = sdr.datasets.load("ais")[["lbm", "wt", "ht", "sex"]]
    path = tmp_path / "ais.csv"
    # R's write.csv: a first column of row names under an empty header
    ais.set_axis([f"r{i}" for i in range(len(ais))]).to_csv(path, index=row_names)
    return ais, path


def test_r_write_csv_row_names_are_taken_as_row_names(capsys, tmp_path):
    import sdrstats as sdr

    ais, path = _ais_csv(tmp_path, row_names=True)
    assert main(["fit", "sir", "lbm ~ .", str(path), "--nslices", "8"]) == 0
    out = capsys.readouterr().out
    # the same fit (up to the seed it draws): no 202-level factor of row names
    summary = str(sdr.sir("lbm ~ .", ais, nslices=8).summary())
    expected = summary.split("Estimated Basis")[1].split("Random state")[0]
    assert expected in out
    assert main(["fit", "sir", "lbm ~ .", str(path), "--index-col", "none"]) == 2
    # kept as a column, the row names are an id column: refused, naming it
    assert "'Unnamed: 0' has 202 distinct values among 202 rows" in capsys.readouterr().err


def test_weights_and_subset_options(capsys, tmp_path):
    import sdrstats as sdr

    ais, path = _ais_csv(tmp_path, row_names=False)
    assert (
        main(
            ["fit", "sir", "lbm ~ wt + ht", str(path), "--subset", "sex == 'f'", "--weights", "wt"]
        )
        == 0
    )
    out = capsys.readouterr().out
    fit = sdr.sir("lbm ~ wt + ht", ais, subset="sex == 'f'", weights="wt")
    assert "using weights" in out and f"n = {fit.n}" in out
    assert main(["fit", "sir", "lbm ~ wt", str(path), "--index-col", "nope"]) == 2
    assert "--index-col 'nope' is not a column" in capsys.readouterr().err


def test_method_help_has_no_python_examples():
    done = subprocess.run(
        [sys.executable, "-m", "sdrstats", "fit", "sir", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0 and ">>>" not in done.stdout and "np." not in done.stdout


def test_cli_prints_the_default_test_once_and_advises_in_flags(capsys, tmp_path):
    ais, path = _ais_csv(tmp_path, row_names=False)
    args = ["fit", "sir", "lbm ~ log(wt) + log(ht) + sex", str(path)]
    assert main([*args, "--test", "asymptotic"]) == 0
    out = capsys.readouterr().out
    # the summary prints the asymptotic table; --test adds only the conclusion
    assert out.count("Large-sample Marginal Dimension Tests") == 1
    assert "Chosen d = " in out
    frame = ais.copy()
    frame.loc[frame.index[3], "wt"] = np.nan
    frame.to_csv(path, index=False)
    assert main([*args, "--missing", "raise"]) == 2
    err = capsys.readouterr().err
    assert "--missing drop" in err and "missing='drop'" not in err


def test_fit_dr_is_r_s_dr_with_its_method_names(capsys, tmp_path):
    import sdrstats as sdr

    ais, path = _ais_csv(tmp_path, row_names=False)
    args = ["fit", "dr", "lbm ~ wt + ht", str(path), "--method", "save", "--group", "sex"]
    assert main([*args, "--nslices", "4", "--numdir", "2"]) == 0
    out = capsys.readouterr().out
    fit = sdr.save("lbm ~ wt + ht", ais, group="sex", nslices=4, d_max=2)
    assert str(fit.summary()).split("Method:")[1].split("Random state:")[0] in out
    assert 'dr(formula = lbm ~ wt + ht, data = data, group = ~sex, method = "save"' in out
    assert main(["fit", "dr", "lbm ~ wt + ht", str(path), "--method", "dr"]) == 2
    assert "sdr.directional_regression(formula, data, ...)" in capsys.readouterr().err
    assert (
        main(["fit", "dr", "lbm ~ wt + ht", str(path), "--method", "phdy", "--nslices", "4"]) == 2
    )
    err = capsys.readouterr().err
    assert (
        "does not take 'nslices'; the options of phdy are: d_max, d, d_rule, random_state." in err
    )
