"""Seed spawning and the ordered parallel map (sdrstats.base.parallel)."""

import numpy as np
import pytest

from sdrstats.base.parallel import (
    as_seed_sequence,
    effective_n_jobs,
    parallel_map,
    spawn_generators,
    spawn_seeds,
)


def _draw(seed):
    return np.random.default_rng(seed).normal(size=3)


def test_children_depend_only_on_seed_and_index():
    a = [_draw(s) for s in spawn_seeds(5, 4)]
    b = [_draw(s) for s in spawn_seeds(5, 10)]
    np.testing.assert_array_equal(np.array(a), np.array(b[:4]))
    assert not np.allclose(a[0], a[1])


def test_spawning_twice_from_one_seed_sequence_is_repeatable():
    ss = np.random.SeedSequence(3)
    first = [_draw(s) for s in spawn_seeds(ss, 3)]
    second = [_draw(s) for s in spawn_seeds(ss, 3)]
    np.testing.assert_array_equal(np.array(first), np.array(second))


def test_generator_input_is_consumed_deterministically():
    a = spawn_generators(np.random.default_rng(1), 2)[0].normal()
    b = spawn_generators(np.random.default_rng(1), 2)[0].normal()
    assert a == b


def test_results_in_item_order_and_independent_of_n_jobs():
    seeds = spawn_seeds(0, 6)
    one = parallel_map(_draw, seeds, n_jobs=1, progress=False)
    two = parallel_map(_draw, seeds, n_jobs=2, progress=False)
    np.testing.assert_array_equal(np.array(one), np.array(two))


def test_progress_bar_runs(capsys):
    assert parallel_map(abs, [-1, -2], progress=True, desc="x") == [1, 2]


@pytest.mark.parametrize("bad", [-1, 1.5, "a", True])
def test_bad_random_state_messages(bad):
    with pytest.raises((TypeError, ValueError), match="random_state"):
        as_seed_sequence(bad)


def test_bad_n_jobs_message():
    with pytest.raises(ValueError, match="n_jobs must be a non-zero int"):
        effective_n_jobs(0)
    assert effective_n_jobs(None) == 1
    assert effective_n_jobs(-1) >= 1


def test_a_long_loop_says_its_predicted_time_before_going_on(monkeypatch, capsys):
    import time

    import sdrstats.base.parallel as par

    def slow(x):
        time.sleep(0.02)
        return x

    parallel_map(slow, range(5), progress=True, desc="short")
    assert "predicted" not in capsys.readouterr().err
    monkeypatch.setattr(par, "ANNOUNCE_SECONDS", 0.05)  # four more tasks of 0.02 s: 0.08 s
    parallel_map(slow, range(5), progress=True, desc="long rule")  # no terminal, still said
    err = capsys.readouterr().err
    assert err.startswith("long rule: about 0 s predicted (5 tasks of about 0.0")
    parallel_map(slow, range(5), progress=False, desc="silenced")
    assert "silenced" not in capsys.readouterr().err


def test_progress_bar_appears_only_for_long_loops(monkeypatch, capsys):
    import time

    import sdrstats.base.parallel as par

    def slow(x):
        time.sleep(0.02)
        return x

    parallel_map(slow, range(5), progress=True, desc="quick")  # under the 2 s delay
    assert "quick" not in capsys.readouterr().err
    monkeypatch.setattr(par, "PROGRESS_DELAY", 0.0)
    monkeypatch.setattr(par, "_bar_allowed", lambda: True)  # capsys is no terminal
    parallel_map(slow, range(5), progress=True, desc="long loop")
    assert "long loop" in capsys.readouterr().err
    parallel_map(slow, range(5), progress=False, desc="silenced")
    assert "silenced" not in capsys.readouterr().err


def _inner_loop(x):
    import time

    def slow(v):
        time.sleep(0.005)
        return v

    return sum(parallel_map(slow, range(3), progress=True, desc="inner loop"))


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_one_bar_per_call_even_with_nested_loops(monkeypatch, capsys, n_jobs):
    import sdrstats.base.parallel as par

    monkeypatch.setattr(par, "PROGRESS_DELAY", 0.0)
    monkeypatch.setattr(par, "PROGRESS_MIN_ELAPSED", 0.0)
    monkeypatch.setattr(par, "SERIAL_SECONDS", 0.0)  # keep the workers for n_jobs = 2
    monkeypatch.setattr(par, "_bar_allowed", lambda: True)
    assert parallel_map(_inner_loop, range(4), n_jobs=n_jobs, desc="outer loop") == [3] * 4
    err = capsys.readouterr().err
    assert "outer loop" in err
    assert "inner loop" not in err  # loops inside a loop (here or in workers) draw no bar


def test_bar_is_redrawn_rarely(monkeypatch, capsys):
    import time

    import sdrstats.base.parallel as par

    monkeypatch.setattr(par, "PROGRESS_DELAY", 0.0)
    monkeypatch.setattr(par, "_bar_allowed", lambda: True)

    def slow(x):
        time.sleep(0.01)
        return x

    parallel_map(slow, range(60), progress=True, desc="many items")
    # 60 updates within ~0.6 s and redraws at most every PROGRESS_INTERVAL = 2 s: the bar is
    # drawn when it appears and cleared at the end, not once per item.
    assert capsys.readouterr().err.count("many items") <= 3


def test_no_bar_redraws_into_a_stream_that_is_not_a_terminal(monkeypatch, capsys):
    import sdrstats.base.parallel as par

    monkeypatch.setattr(par, "PROGRESS_DELAY", 0.0)
    parallel_map(abs, range(-3, 3), progress=True, desc="to a file")  # capsys: not a tty
    assert "to a file" not in capsys.readouterr().err


def test_a_short_loop_runs_serially_whatever_n_jobs_and_says_so(caplog):
    import logging

    seeds = spawn_seeds(0, 6)
    with caplog.at_level(logging.INFO, logger="sdrstats"):
        two = parallel_map(_draw, seeds, n_jobs=2, progress=False, desc="quick loop")
    assert "quick loop: 6 items predicted" in caplog.text and "ran them serially" in caplog.text
    np.testing.assert_array_equal(
        np.array(two), np.array(parallel_map(_draw, seeds, progress=False))
    )


def test_a_backend_the_user_chose_gets_every_item_in_order():
    import joblib

    seeds = spawn_seeds(0, 6)
    with joblib.parallel_config(backend="threading"):
        chosen = parallel_map(_draw, seeds, n_jobs=2, progress=False)
    np.testing.assert_array_equal(
        np.array(chosen), np.array(parallel_map(_draw, seeds, progress=False))
    )
