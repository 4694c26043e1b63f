"""Every vignette runs end to end with small settings and writes its figures."""

import pytest

from sdrstats import vignettes

PATHS = vignettes.available()


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_vignette_runs_and_draws(path, tmp_path):
    figures = vignettes.run(path, quick=True, figures=tmp_path)
    assert figures, f"{path.name} saved no figure"
    assert all(f.stat().st_size > 1000 for f in figures)


def test_there_is_a_vignette_per_seed_and_a_classic_one():
    stems = [p.stem for p in PATHS]
    assert any("classic" in s for s in stems)


def test_command_line_lists_vignettes(capsys):
    assert vignettes.main(["list"]) == 0
    assert PATHS[0].stem in capsys.readouterr().out
