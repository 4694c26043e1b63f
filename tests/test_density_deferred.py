"""Tables a density fit builds when first read."""

import pickle

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.density.deferred import DeferredTable, TableAttribute


class _Holder:
    table = TableAttribute()


def test_table_attribute_builds_once_and_is_missing_until_set():
    calls = []

    def build(values):
        calls.append(1)
        return pd.DataFrame({"v": values})

    holder = _Holder()
    assert not hasattr(holder, "table")
    with pytest.raises(AttributeError, match="table"):
        holder.table  # noqa: B018
    holder.table = DeferredTable(build, [1.0, 2.0])
    assert calls == []
    first, second = holder.table, holder.table
    assert isinstance(first, pd.DataFrame) and first is second and calls == [1]
    plain = pd.DataFrame({"w": [3]})
    holder.table = plain
    assert holder.table is plain
    holder.table = None
    assert holder.table is None


def test_lscde_tables_are_frames_when_read_and_when_pickled():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 2))
    frame = pd.DataFrame(X, columns=["x1", "x2"]).assign(
        y=X[:, 0] + (0.2 + np.abs(X[:, 1])) * rng.standard_normal(120)
    )
    density = sdr.lscde("y ~ .", frame, random_state=0).conditional_density()
    names = ["cv_grid", "model_choice", "width_choice"]
    if density.model == "location_scale":
        names.append("scale_choice")
    # pickled before any table is read: the state holds the frames
    copy = pickle.loads(pickle.dumps(density))
    assert all(isinstance(copy.__dict__[name], pd.DataFrame) for name in names)
    for name in names:
        table = getattr(density, name)
        assert isinstance(table, pd.DataFrame) and len(table) > 0
        pd.testing.assert_frame_equal(getattr(copy, name), table)
    assert density.model == density.model_choice["held-out log score"].idxmax()
