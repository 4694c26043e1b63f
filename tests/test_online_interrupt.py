"""An online fit interrupted in the middle of a chunk resumes from its last completed chunk
without counting any row twice."""

import pickle

import numpy as np
import pytest

import sdrstats as sdr
from sdrstats.online import _updates


def _stream(seed=0, n=3000, p=8):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + X[:, 1]) ** 3 / 4 + 0.3 * rng.normal(size=n)
    return X, y


def _chunks(X, y, size=500):
    return [(X[i : i + size], y[i : i + size]) for i in range(0, len(y), size)]


@pytest.mark.parametrize("eigen", ["ccipca", "ipca", "sgd"])
def test_exception_mid_chunk_then_resume_equals_uninterrupted(eigen, monkeypatch):
    X, y = _stream()
    options = dict(nslices=5, d=1, eigen=eigen, init_size=400, block_size=100)
    reference = sdr.OnlineSIR(**options)
    for chunk in _chunks(X, y):
        reference.partial_fit(*chunk)

    fit = sdr.OnlineSIR(**options)
    chunks = _chunks(X, y)
    for chunk in chunks[:3]:
        fit.partial_fit(*chunk)
    before = pickle.dumps(fit.state_dict())
    seen = fit.n_seen

    calls = {"n": 0}
    original = _updates.update_block

    def failing(*args, **kwargs):  # the third block of the chunk dies half-way through
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt("simulated interrupt")
        return original(*args, **kwargs)

    monkeypatch.setattr(_updates, "update_block", failing)
    with pytest.raises(KeyboardInterrupt):
        fit.partial_fit(*chunks[3])
    monkeypatch.setattr(_updates, "update_block", original)
    assert calls["n"] == 3  # two blocks were applied before the failure ...
    assert fit.n_seen == seen  # ... and rolled back
    assert pickle.dumps(fit.state_dict()) == before

    for chunk in chunks[3:]:  # resume with the failed chunk
        fit.partial_fit(*chunk)
    assert fit.n_seen == reference.n_seen == len(y)
    np.testing.assert_array_equal(fit.directions.to_numpy(), reference.directions.to_numpy())


def test_bad_rows_in_a_later_chunk_leave_the_state_unchanged():
    X, y = _stream(1)
    fit = sdr.OnlineSIR(nslices=5, d=1, init_size=400)
    fit.partial_fit(X[:1000], y[:1000])
    before = pickle.dumps(fit.state_dict())
    bad = X[1000:1500].copy()
    bad[250, 3] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        fit.partial_fit(bad, y[1000:1500])
    assert pickle.dumps(fit.state_dict()) == before
