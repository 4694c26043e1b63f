"""``import sdrstats`` stays light: the exported names load their modules on first use.

Each check runs in a fresh interpreter (an import already made in the test process would hide
what the import costs), with this tree first on ``PYTHONPATH`` so that it imports the code
under test and not an installed copy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import sdrstats as sdr

ROOT = Path(__file__).resolve().parents[1]
#: Libraries that take a tenth of a second or more to import and that only some uses need.
HEAVY = ("scipy.stats", "sklearn", "matplotlib")


def _run(code: str) -> dict:
    """Run ``code`` in a fresh interpreter importing this tree; it prints one JSON value."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_import_loads_no_heavy_library():
    found = _run(
        f"""
        import json, sys
        import sdrstats
        assert sdrstats.__file__.startswith({str(ROOT)!r}), sdrstats.__file__
        print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))
        """
    )
    assert found == []


def test_every_exported_name_resolves_without_a_heavy_library():
    """Resolving a name imports its family, and no family imports these at module level."""
    found = _run(
        f"""
        import json, sys
        import sdrstats
        for name in sdrstats.__all__:
            getattr(sdrstats, name)
        print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))
        """
    )
    assert found == []


def test_names_and_dir_are_those_of_an_eager_import():
    shown = _run(
        """
        import json, types
        import sdrstats
        before = dir(sdrstats)
        where = {}
        for name in sdrstats.__all__:
            value = getattr(sdrstats, name)
            where[name] = (
                value.__name__ if isinstance(value, types.ModuleType)
                else f"{value.__module__}.{value.__qualname__}"
            )
        print(json.dumps({"before": before, "after": dir(sdrstats), "where": where}))
        """
    )
    assert shown["before"] == shown["after"]
    assert set(sdr.__all__) <= set(shown["before"])
    for package in ("moment", "mave", "inference", "results", "plotting", "evaluate"):
        assert package in shown["before"]
    # the test process imported sdrstats the ordinary way: the same objects
    for name, where in shown["where"].items():
        value = getattr(sdr, name)
        expected = getattr(value, "__module__", None)
        assert where.startswith(expected or value.__name__), name


def test_family_functions_keep_their_names_when_their_packages_are_imported():
    kinds = _run(
        """
        import json
        import sdrstats
        import sdrstats.lsce.core, sdrstats.mave.local, sdrstats.spca.kdr, sdrstats.sdspcaan.solver
        names = ("lsce", "mave", "spca", "sdspcaan")
        print(json.dumps([type(getattr(sdrstats, n)).__name__ for n in names]))
        """
    )
    assert kinds == ["function"] * 4


def test_a_saved_fit_loads_in_a_fresh_process(tmp_path):
    fit = sdr.sir("lbm ~ ht + wt + log(ssf)", sdr.datasets.load("ais"), nslices=6)
    target = fit.save(tmp_path / "fit")
    loaded = _run(
        f"""
        import json, sys
        import sdrstats
        assert "sdrstats.moment" not in sys.modules
        fit = sdrstats.load({str(target)!r})
        print(json.dumps(fit.directions.to_numpy().tolist()))
        """
    )
    assert loaded == fit.directions.to_numpy().tolist()
