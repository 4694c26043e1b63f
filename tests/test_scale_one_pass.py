"""One pass over chunked rows finds R dr's exact slices and their sums together.

The pass holds the response and the rows near the running cuts (:mod:`sdrstats.scale.one_pass`);
the fit must equal the two-pass fit (passes over the response, then the rows) and the
in-memory fit, with ties, case weights, a cut among the held rows, a cut inside pooled sums (a
second pass), a single chunk and a first chunk unlike the rest, and hold no more rows than its
budget.
"""

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.scale import chunks as scale_chunks
from sdrstats.scale import fit as scale_fit
from sdrstats.scale import one_pass
from sdrstats.stats.grouped import SliceStats
from sdrstats.stats.slicing import cut_labels

FORMULA = "y ~ x1 + x2 + x3"
TOL = 1e-10
#: Held rows at most in these tests: 1500 rows of 3 predictors (8 * 3 + 16 bytes a row).
BUDGET_BYTES = 60_000


def frame(n=6000, seed=11, ties=False):
    rng = np.random.default_rng(seed)
    data = pd.DataFrame(rng.standard_normal((n, 3)), columns=["x1", "x2", "x3"])
    data["y"] = data.x1 + data.x2**2 / 2 + 0.5 * rng.standard_normal(n)
    if ties:
        data["y"] = data.y.round(1)  # about 60 values, each held by ~100 rows
    data["w"] = rng.uniform(0.5, 1.5, n)
    data.loc[::13, "w"] = 0.0  # R drops these rows (and does not slice them)
    return data


def pieces_of(data, size=500):
    return [data.iloc[k : k + size] for k in range(0, len(data), size)]


@pytest.fixture
def passes(monkeypatch):
    """The one passes of the fits made, as they ended (held rows, narrowings, outcome)."""
    seen = []
    finish = one_pass.OnePass.finish

    def recorded(self, rule_for):
        held_y = [block[1] for block in self.blocks]
        acc, found = finish(self, rule_for)
        labels = cut_labels(np.concatenate(held_y), found.cuts) if held_y else np.empty(0)
        seen.append(
            {
                "narrowings": self.narrowings,
                "peak": self.peak_kept,
                "budget": self.budget,
                "summed": acc is not None,
                "held_slices": np.unique(labels).size,
            }
        )
        return acc, found

    monkeypatch.setattr(one_pass.OnePass, "finish", recorded)
    monkeypatch.setattr(one_pass, "KEPT_BYTES", BUDGET_BYTES)
    return seen


def two_pass(monkeypatch, fn, data, **options):
    """The fit from passes over the response first (the one pass given no room gives up)."""
    with monkeypatch.context() as patch:
        patch.setattr(one_pass, "KEPT_BYTES", 0)
        fit = fn(FORMULA, sdr.chunks_from(pieces_of(data)), **options)
    assert fit.slicing_passes >= 1
    return fit


def assert_same(a, b, tol=TOL):
    np.testing.assert_allclose(b.output.eigenvalues, a.output.eigenvalues, atol=tol, rtol=0)
    np.testing.assert_allclose(b.output.basis, a.output.basis, atol=tol, rtol=0)
    np.testing.assert_array_equal(a.slice_sizes, b.slice_sizes)
    assert a.n == b.n


CASES = [
    (sdr.sir, {"nslices": 6}),
    (sdr.save, {"nslices": 5}),
    (sdr.sir, {"nslices": 6, "weights": "w"}),
    (sdr.save, {"nslices": 5, "weights": "w"}),
    (sdr.directional_regression, {"nslices": 5}),
    (sdr.sir, {"nslices": 6, "slice_function": "arc"}),
]


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("fn, options", CASES)
def test_one_pass_equals_the_two_pass_and_in_memory_fits(monkeypatch, passes, fn, options, ties):
    data = frame(ties=ties)
    fit = fn(FORMULA, sdr.chunks_from(pieces_of(data)), **options)
    (run,) = passes
    assert run["narrowings"] >= 1 and run["summed"]  # rows were pooled, and no second pass
    assert (fit.slicing_passes, fit.row_passes) == (0, 1 + (fn is sdr.save))  # SAVE: its test
    assert run["peak"] <= run["budget"] == BUDGET_BYTES // (8 * 3 + 16)
    assert_same(two_pass(monkeypatch, fn, data, **options), fit)
    assert_same(fn(FORMULA, data, **options), fit, tol=1e-9)


def test_a_cut_among_the_held_rows_splits_them(passes):
    # The held rows near a cut go to the slices on both sides of it.
    data = frame()
    fit = sdr.sir(FORMULA, sdr.chunks_from(pieces_of(data)), nslices=6)
    (run,) = passes
    assert run["summed"] and run["held_slices"] == 6
    assert_same(sdr.sir(FORMULA, data, nslices=6), fit, tol=1e-9)


@pytest.mark.parametrize("order", ["sorted", "first_chunk_narrow"])
def test_a_cut_inside_pooled_sums_takes_a_second_pass(monkeypatch, passes, order):
    # Rows sorted by the response (or a first chunks from the middle of its range): the
    # running cuts are far from the final ones, a cut falls inside sums already pooled, and a
    # second pass over the rows sums the exact slices.
    data = frame()
    if order == "sorted":
        data = data.sort_values("y", kind="stable").reset_index(drop=True)
    else:
        middle = data.y.abs() < 0.3
        data = pd.concat([data[middle], data[~middle]], ignore_index=True)
    for options in ({"nslices": 6}, {"nslices": 6, "weights": "w"}):
        passes.clear()
        fit = sdr.sir(FORMULA, sdr.chunks_from(pieces_of(data)), **options)
        (run,) = passes
        assert not run["summed"]
        assert (fit.slicing_passes, fit.row_passes) == (0, 2)
        assert_same(two_pass(monkeypatch, sdr.sir, data, **options), fit)
        assert_same(sdr.sir(FORMULA, data, **options), fit, tol=1e-9)


def test_a_single_chunk_and_a_one_shot_iterator(passes):
    data = frame(n=900)
    memory = sdr.sir(FORMULA, data, nslices=6, weights="w")
    whole = sdr.sir(FORMULA, sdr.chunks_from([data]), nslices=6, weights="w")
    assert passes[-1]["narrowings"] == 0  # 900 rows: all held, sliced at the end
    assert_same(memory, whole, tol=1e-9)
    once = sdr.sir(FORMULA, sdr.chunks_from(iter(pieces_of(data, 200))), nslices=6, weights="w")
    assert_same(memory, once, tol=1e-9)
    # more rows than the budget in one chunk: bands from that chunk alone, then exact
    large = frame(n=4000)
    fit = sdr.save(FORMULA, sdr.chunks_from([large]), nslices=5)
    assert passes[-1]["narrowings"] >= 1 and passes[-1]["summed"]
    assert_same(sdr.save(FORMULA, large, nslices=5), fit, tol=1e-9)


def test_the_budget_gives_up_to_passes_over_the_response(monkeypatch, passes):
    data = frame()
    monkeypatch.setattr(one_pass, "KEPT_BYTES", 2_000)  # 50 rows: no band fits
    fit = sdr.sir(FORMULA, sdr.chunks_from(pieces_of(data)), nslices=6)
    assert passes == []  # gave up before the end
    assert fit.slicing_passes >= 1 and fit.row_passes == 1
    assert_same(sdr.sir(FORMULA, data, nslices=6), fit, tol=1e-9)


def test_a_csv_file_is_parsed_once(tmp_path, monkeypatch, passes):
    data = frame(n=3000)
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    seen = []
    original = pd.read_csv

    def spy(*args, **kwargs):
        seen.append(kwargs.get("usecols"))
        return original(*args, **kwargs)

    monkeypatch.setattr(scale_chunks.pd, "read_csv", spy)
    for threads in (1, 2):
        seen.clear()
        source = sdr.read_csv_chunks(path, chunksize=400, threads=threads)
        fit = sdr.sir(FORMULA, source, nslices=6, weights="w")
        assert passes[-1]["summed"] and fit.row_passes == 1
        assert None in seen and ["y", "w"] not in seen  # every column, never the response alone
        assert_same(sdr.sir(FORMULA, data, nslices=6, weights="w"), fit, tol=1e-9)


def test_chunks_read_in_byte_ranges_say_how_much_is_read(tmp_path):
    data = frame(n=2000)
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    shares = [c.attrs["fraction_read"] for c in sdr.read_csv_chunks(path, 500, threads=2)]
    assert len(shares) >= 3 and shares[-1] == 1.0 and np.all(np.diff(shares) > 0)


def test_pieces_split_only_held_pieces():
    pieces = one_pass.Pieces()
    pieces.refine(np.array([0.0, 1.0]))
    pieces.ids[:] = [5, -1, -1, -1, 6]  # (-inf, 0) and (1, inf) pooled
    pieces.refine(np.array([-2.0, 0.5, 3.0]))  # only 0.5 lies in a held piece
    assert pieces.t.tolist() == [0.0, 0.5, 1.0]
    assert pieces.ids.tolist() == [5, -1, -1, -1, -1, -1, 6]
    y = np.array([-1.0, 0.0, 0.25, 0.5, 0.75, 1.0, 9.0])
    assert pieces.id_of(y).tolist() == [5, -1, -1, -1, -1, -1, 6]
    assert pieces.index(y).tolist() == [0, 1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("second", [False, True])
def test_moved_rows_give_the_sums_of_rows_added_to_their_groups(second):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 4)) + 5.0
    keys = rng.integers(0, 3, 300)
    direct = SliceStats(4, second=second).update(X, keys)
    held = np.where(np.arange(300) % 4 == 0, -1, keys + 10)
    moved = SliceStats(4, second=second).update(X[:150], held[:150])
    moved.merge(SliceStats(4, second=second).update(X[150:], held[150:]))
    rows = held == -1
    moved.move(X[rows], -1, keys[rows] + 10).drop(-1)
    moved = moved.regroup({10: 0, 11: 1, 12: 2})
    a, b = direct.ordered(), moved.ordered()
    assert a.keys == b.keys == [0, 1, 2]
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_allclose(b.sums, a.sums, atol=1e-11)
    if second:
        np.testing.assert_allclose(b.cross, a.cross, atol=1e-10)
    np.testing.assert_allclose(b.cov, a.cov, atol=1e-12)
    assert scale_fit.OnePass is one_pass.OnePass


def shares_given(monkeypatch):
    """A list that fills with the share read each chunk reports to the one pass."""
    calls = []
    add = one_pass.OnePass.add

    def counted(self, *args):
        calls.append(args[-1])
        return add(self, *args)

    monkeypatch.setattr(one_pass.OnePass, "add", counted)
    return calls


def test_a_file_whose_response_will_not_fit_the_cache_gives_up_at_once(tmp_path, monkeypatch):
    data = frame(n=3000)
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    calls = shares_given(monkeypatch)
    monkeypatch.setattr(scale_fit, "RESPONSE_CACHE", 1500)  # half the file's rows
    fit = sdr.sir(FORMULA, sdr.read_csv_chunks(path, chunksize=400, threads=2), nslices=6)
    assert len(calls) == 1 and 0 < calls[0] < 0.25  # the share read says: 3000 rows to come
    assert fit.slicing_passes >= 1 and fit.row_passes == 1
    assert_same(sdr.sir(FORMULA, data, nslices=6), fit, tol=1e-9)


def read_once(tmp_path, monkeypatch, data, kept_rows, weights=None):
    """The fit of ``data`` written to a CSV read in byte ranges, with ``kept_rows`` held rows
    at most; and the shares read of the chunks the one pass was given."""
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    monkeypatch.setattr(one_pass, "KEPT_BYTES", kept_rows * (8 * 3 + 16))
    calls = shares_given(monkeypatch)
    source = sdr.read_csv_chunks(path, chunksize=400, threads=2)
    options = {"nslices": 6} if weights is None else {"nslices": 6, "weights": weights}
    return sdr.sir(FORMULA, source, **options), calls


def test_a_file_whose_held_rows_will_outgrow_the_budget_gives_up_at_once(
    tmp_path, monkeypatch, passes
):
    # 6000 rows, 6 slices: the narrowest bands (3.5 sd) will hold about 860 rows at the peak
    data = frame()
    assert 800 < one_pass.predicted_peak(6000, 400, 6, one_pass.band_steps()[-1]) < 900
    ranges = []
    parse = scale_chunks._parse_block
    monkeypatch.setattr(
        scale_chunks, "_parse_block", lambda *a: ranges.append(a[3].get("usecols")) or parse(*a)
    )
    fit, calls = read_once(tmp_path, monkeypatch, data, kept_rows=800)
    assert len(calls) == 1 and passes == []  # gave up at its first chunk, before any re-read
    # that chunk (an eighth of the others) was the only range parsed before the response's
    assert calls[0] < 400 / 8 * 1.5 / 6000 and ranges[0] is None and ranges[1] is not None
    assert fit.slicing_passes >= 1 and fit.row_passes == 1
    assert_same(sdr.sir(FORMULA, data, nslices=6), fit, tol=1e-9)
    # the prediction was right: without it, the pass reads on and gives up later
    monkeypatch.setattr(one_pass, "predicted_peak", lambda *args: 0)
    fit, calls = read_once(tmp_path, monkeypatch, data, kept_rows=800)
    assert len(calls) > 3 and passes == []
    assert fit.slicing_passes >= 1 and fit.row_passes == 1


@pytest.mark.parametrize("ties", [False, True])
def test_a_file_whose_held_rows_fit_does_not_give_up(tmp_path, monkeypatch, passes, ties):
    # continuous: the peak (~860 rows) fits 1500 rows; a response of 8 integers: the rows of
    # a value are summed as a piece of their own, so 600 rows are enough
    data = frame()
    kept = 1500
    if ties:
        data["y"] = data.y.round()
        kept = 600
        assert one_pass.predicted_peak(6000, 400, 6, one_pass.band_steps()[-1]) > kept
    fit, calls = read_once(tmp_path, monkeypatch, data, kept_rows=kept, weights="w")
    assert len(calls) >= 10 and passes[-1]["summed"] and passes[-1]["narrowings"] >= 1
    assert passes[-1]["peak"] <= passes[-1]["budget"] == kept
    assert fit.slicing_passes == 0 and fit.row_passes == 1
    assert_same(sdr.sir(FORMULA, data, nslices=6, weights="w"), fit, tol=1e-9)


def test_predicted_peak():
    # sigma √n Σ_j √(q_j (1 − q_j)) at its peak (n/2 rows read), plus the slack rows
    h, slack = 6, 5 * (2 * (one_pass.BAND_SLACK + 6) + 1) + 2 * (6 + one_pass.BAND_SLACK)
    q = np.arange(1, h) / h
    bands = 3.5 * np.sqrt(1e6) * np.sqrt(q * (1 - q)).sum()
    assert one_pass.predicted_peak(1e6, 1e4, h, 3.5) == int(np.ceil(bands)) + slack
    # past the peak, what is left; a response of ties holds only the slack rows
    assert one_pass.predicted_peak(1e6, 9e5, h, 3.5) < 0.7 * (bands + slack)
    assert one_pass.predicted_peak(1e6, 1e4, h, 3.5, share=0.0) == slack
    assert one_pass.band_steps() == [5.0, 3.5]
