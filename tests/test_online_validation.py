"""A stream is checked as a batch fit is: on its first rows, its initial batch, every later
chunk and the running state; and it cannot be merged with itself or with its own history."""

import copy
import warnings

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr


def _data(n=600, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    y = X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.standard_normal(n)
    return X, y


def test_a_constant_response_is_refused():
    X, _ = _data()
    with pytest.raises(ValueError, match=r"response is constant; online_sir needs a response"):
        sdr.OnlineSIR(init_size=200).partial_fit(X, np.full(len(X), 2.5))


def test_duplicated_and_collinear_predictors_are_refused():
    X, y = _data()
    duplicated = np.column_stack([X, X[:, 1]])
    with pytest.raises(ValueError, match=r"collinear: \['x5'\] are linear combinations"):
        sdr.OnlineSIR(init_size=200).partial_fit(duplicated, y)
    combined = np.column_stack([X, X[:, 1] - 2 * X[:, 2]])
    with pytest.raises(ValueError, match=r"\(nearly\) collinear: .* drop or combine them"):
        sdr.OnlineSIR(init_size=200, sparse=False, eigen="sgd").partial_fit(combined, y)
    # a formula names the columns; a batch fit says the same of the same data
    frame = pd.DataFrame(duplicated[:, [0, 1, 4]], columns=["a", "b", "b_copy"]).assign(y=y)
    with pytest.raises(ValueError, match=r"collinear: \['b_copy'\]"):
        sdr.online_sir("y ~ a + b + b_copy", frame, init_size=200)
    with pytest.raises(ValueError, match=r"collinear: \['b_copy'\]"):
        sdr.sir("y ~ a + b + b_copy", frame)


def test_duplicates_are_refused_when_the_initial_batch_is_smaller_than_p():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 60))
    X[:, 40] = X[:, 7]
    y = X[:, 0] + 0.3 * rng.standard_normal(300)
    # 50 rows and 60 predictors: every such batch is rank deficient, only duplicates show
    with pytest.raises(ValueError, match=r"\['x8', 'x41'\] are duplicates"):
        sdr.OnlineSIR(init_size=50, nslices=5).partial_fit(X, y)
    X[:, 40] = rng.standard_normal(300)
    sdr.OnlineSIR(init_size=50, nslices=5).partial_fit(X, y)  # distinct columns: accepted


def test_nearly_collinear_predictors_warn_as_in_a_batch_fit():
    X, y = _data()
    near = np.column_stack([X, X[:, 1] + 1e-5 * np.random.default_rng(2).standard_normal(len(X))])
    with pytest.warns(sdr.CollinearityWarning, match="nearly collinear .* initial batch"):
        sdr.OnlineSIR(init_size=200).partial_fit(near, y)


def test_a_predictor_constant_in_the_initial_batch_is_named():
    X, y = _data()
    X[:300, 2] = 1.0
    with pytest.raises(ValueError, match=r"Predictor 'x3' is constant in the initial batch"):
        sdr.OnlineSIR(init_size=200).partial_fit(X, y)


def test_more_directions_than_predictors_are_refused_on_the_first_rows():
    X, y = _data()
    model = sdr.OnlineSIR(d=9, nslices=10, init_size=200)
    with pytest.raises(ValueError, match=r"'d' option of online_sir must be at most p = 4; got 9"):
        model.partial_fit(X[:50], y[:50])  # refused before the initial batch is complete
    assert model.n_seen == 0


def test_more_slices_than_half_the_initial_batch_are_refused():
    X, y = _data()
    with pytest.raises(ValueError, match=r"'nslices' option of online_sir must be at most "
                                         r"init_size/2 = 100 .* got 1200"):  # fmt: skip
        sdr.OnlineSIR(nslices=1200, d=1, init_size=200).partial_fit(X, y)


def test_a_chunk_on_another_scale_is_refused_and_leaves_the_state_as_it_was():
    X, y = _data()
    model = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X[:300], y[:300])
    before = model.directions.to_numpy().copy()
    with pytest.raises(ValueError, match=r"Predictor 'x1' of this chunk has values of "
                                         r"magnitude .*e\+80.* same units"):  # fmt: skip
        model.partial_fit(X[300:] * 1e80, y[300:])
    assert model.n_seen == 300
    np.testing.assert_array_equal(model.directions.to_numpy(), before)
    model.partial_fit(X[300:], y[300:])  # the right chunk goes on as if nothing happened
    assert model.n_seen == 600 and np.all(np.isfinite(model.directions.to_numpy()))
    # the same rows inside the initial chunk are caught as well
    with pytest.raises(ValueError, match="same units"):
        sdr.OnlineSIR(d=1, init_size=200).partial_fit(np.vstack([X[:300], X[300:] * 1e80]), y)


def test_a_chunk_that_would_make_the_estimate_overflow_is_refused(monkeypatch):
    X, y = _data()
    model = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X[:300], y[:300])
    # a scale check that lets everything through: the running state check still holds
    from sdrstats.online import _stream_checks

    monkeypatch.setattr(_stream_checks, "MAX_SCALE_RATIO", np.inf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(ValueError, match=r"running estimate of online_sir is not finite"):
            model.partial_fit(X[300:] * 1e200, y[300:])
    assert model.n_seen == 300 and np.all(np.isfinite(model.directions.to_numpy()))


def test_a_stream_cannot_merge_with_itself_or_its_history(tmp_path):
    X, y = _data(2000)
    cuts = [-1.0, 0.0, 1.0]
    a = sdr.OnlineSIR(d=1, init_size=200, cut_points=cuts).partial_fit(X[:1000], y[:1000])
    with pytest.raises(ValueError, match="merge of a stream with itself: .* counted twice"):
        a.merge(a)
    twin = copy.deepcopy(a)
    with pytest.raises(ValueError, match="shares its history"):
        a.merge(twin)
    grown = sdr.OnlineSIR.from_state(a.state_dict()).partial_fit(X[1000:], y[1000:])
    with pytest.raises(ValueError, match="shares its history"):
        a.merge(grown)  # the resumed stream holds a's rows and more
    with pytest.raises(ValueError, match="shares its history"):
        a.merge(sdr.OnlineSIR.load(a.save(tmp_path / "a")))
    b = sdr.OnlineSIR(d=1, init_size=200, cut_points=cuts).partial_fit(X[1000:], y[1000:])
    both = a.merge(b)  # disjoint rows: merged
    assert both.n_seen == 2000
    with pytest.raises(ValueError, match="shares its history"):
        both.merge(b)  # b's rows are already in
    # copies made before any row arrives are separate streams
    fresh = sdr.OnlineSIR(d=1, init_size=200, cut_points=cuts)
    left, right = copy.deepcopy(fresh), copy.deepcopy(fresh)
    left.partial_fit(X[:1000], y[:1000])
    right.partial_fit(X[1000:], y[1000:])
    assert left.merge(right).n_seen == 2000


def test_clean_streams_still_fit_without_a_warning():
    X, y = _data(2000, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = sdr.OnlineSIR(d=1, init_size=300)
        for start in range(0, 2000, 250):
            model.partial_fit(X[start : start + 250], y[start : start + 250])
    # the truncated gradient finds x1 + 0.5 x2 (data drawn with seed 0 of default_rng, 2000 rows): cosine above 0.95
    truth = np.zeros(10)
    truth[:2] = [1.0, 0.5]
    cosine = abs(model.directions.to_numpy()[:, 0] @ truth) / np.linalg.norm(truth)
    assert cosine > 0.95
