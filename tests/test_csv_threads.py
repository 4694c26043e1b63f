"""read_csv_chunks with several threads: byte ranges of the file parsed at once give the rows,
values, row labels and line numbers of pandas' chunked reader, and the same fits."""

import gzip

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.scale import chunks as scale_chunks

FORMULA = "y ~ x1 + log(x2) + x3"


def frame(n=600, seed=3):
    rng = np.random.default_rng(seed)
    data = pd.DataFrame(rng.standard_normal((n, 3)), columns=["x1", "x2", "x3"])
    data["x2"] = np.exp(data["x2"])
    data["y"] = data.x1 + np.log(data.x2) ** 2 + 0.3 * rng.standard_normal(n)
    return data


def rows(path, threads, **options):
    chunks = list(sdr.read_csv_chunks(path, chunksize=50, threads=threads, **options))
    return chunks, pd.concat(chunks)


@pytest.fixture
def csv(tmp_path):
    path = tmp_path / "d.csv"
    frame().to_csv(path, index=False)
    return path


def test_threads_read_the_rows_of_the_chunked_reader(csv, monkeypatch):
    ranges = []
    original = scale_chunks._parse_block
    monkeypatch.setattr(
        scale_chunks, "_parse_block", lambda *a: ranges.append(a[1].start) or original(*a)
    )
    one, whole_one = rows(csv, 1)
    assert not ranges  # one thread: pandas' chunked reader
    many, whole_many = rows(csv, 3)
    assert len(ranges) == len(many) > 5  # byte ranges of about 50 rows each
    pd.testing.assert_frame_equal(whole_many, whole_one)  # values, dtypes, running labels
    assert all(c.attrs["first_line"] + c.index[0] == c.index[0] + 2 for c in many)
    seen = []
    parse = pd.read_csv
    monkeypatch.setattr(
        scale_chunks.pd, "read_csv", lambda *a, **k: seen.append(k.get("usecols")) or parse(*a, **k)
    )
    narrow = pd.concat(sdr.read_csv_chunks(csv, chunksize=50, threads=3).columns(["y"]))
    pd.testing.assert_frame_equal(narrow, whole_one[["y"]])
    assert seen.count(["y"]) == len(many)  # every range parses the response's column alone


def test_threads_give_the_fit_of_one_thread(csv):
    one = sdr.sir(FORMULA, sdr.read_csv_chunks(csv, chunksize=70, threads=1))
    many = sdr.sir(FORMULA, sdr.read_csv_chunks(csv, chunksize=70, threads=2))
    # the same per-slice sums, merged in other groups: equal to rounding
    np.testing.assert_allclose(many.eigenvalues, one.eigenvalues, rtol=0, atol=1e-12)
    np.testing.assert_allclose(many.output.basis, one.output.basis, rtol=0, atol=1e-12)
    assert many.slicing_passes == one.slicing_passes and many.n == one.n == 600


def test_errors_name_the_line_of_the_file(tmp_path):
    path = tmp_path / "bad.csv"
    text = frame(n=300).to_csv(index=False).splitlines()
    text[200] += ",1"  # a field too many on line 201
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(pd.errors.ParserError, match="Expected 4 fields in line 201, saw 5"):
        sdr.sir(FORMULA, sdr.read_csv_chunks(path, chunksize=20, threads=2))
    text = frame(n=300).to_csv(index=False).splitlines()
    text[3] = text[9] = ""  # blank lines: skipped
    text[150] = text[150].rsplit(",", 1)[0] + ",oops"  # y of row 147, on line 151
    path.write_text("\n".join(text) + "\n")
    # a row's line as pandas' chunked reader gives it: its label + 2 (lines are not counted)
    with pytest.raises(ValueError, match=r"holds 'oops' \(row 147, line 149 of the file"):
        sdr.sir(FORMULA, sdr.read_csv_chunks(path, chunksize=20, threads=1))
    with pytest.raises(ValueError, match=r"holds 'oops' \(row 147, line 149 of the file"):
        sdr.sir(FORMULA, sdr.read_csv_chunks(path, chunksize=20, threads=2))
    text[200] += ",1"  # after blank lines, the parser's message counts lines
    path.write_text("\n".join(text) + "\n")
    for threads in (1, 2):
        with pytest.raises(pd.errors.ParserError, match="Expected 4 fields in line 201, saw 5"):
            list(sdr.read_csv_chunks(path, chunksize=20, threads=threads))


def test_a_quoted_field_spanning_lines_is_read_as_one_row(tmp_path):
    data = frame(n=300).assign(g=lambda d: np.where(d.x3 > 0, "a", "b"))
    data.loc[100, "g"] = "two\nlines"  # the range holding it is read by one thread onwards
    data.loc[40, "g"] = 'quoted "a"'  # quotes on one line: the range is kept
    path = tmp_path / "q.csv"
    data.to_csv(path, index=False)
    _, one = rows(path, 1)
    _, many = rows(path, 2)
    pd.testing.assert_frame_equal(many, one)
    assert many.loc[100, "g"] == "two\nlines" and len(many) == 300
    text = path.read_text().splitlines()
    text[250] += ",1"  # after the quoted field: pandas counts rows of the file, not lines
    path.write_text("\n".join(text) + "\n")
    for threads in (1, 2):
        with pytest.raises(pd.errors.ParserError, match="Expected 5 fields in line 250, saw 6"):
            rows(path, threads)


@pytest.mark.parametrize(
    "options", [{"names": ["x1", "x2", "x3", "y"], "skiprows": 1}, {"comment": "#"}]
)
def test_options_that_move_lines_read_with_one_thread(csv, monkeypatch, options):
    monkeypatch.setattr(scale_chunks, "_parse_block", None)  # any range parse would fail
    chunks, whole = rows(csv, 2, **options)
    assert len(chunks) == 12 and len(whole) == 600


def test_a_compressed_file_reads_with_one_thread(tmp_path, monkeypatch):
    path = tmp_path / "d.csv.gz"
    with gzip.open(path, "wt") as handle:
        frame().to_csv(handle, index=False)
    monkeypatch.setattr(scale_chunks, "_parse_block", None)
    chunks, whole = rows(path, 2)
    assert len(chunks) == 12 and len(whole) == 600


def test_bad_threads_are_named(csv):
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="The 'threads' option must be a positive int"):
            sdr.read_csv_chunks(csv, threads=bad)


def test_by_default_a_large_file_is_read_by_threads(csv, monkeypatch):
    ranges = []
    original = scale_chunks._parse_block
    monkeypatch.setattr(
        scale_chunks, "_parse_block", lambda *a: ranges.append(a[1].start) or original(*a)
    )
    list(sdr.read_csv_chunks(csv, chunksize=100))
    assert not ranges  # a small file: one thread
    monkeypatch.setattr(scale_chunks, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(scale_chunks.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    list(sdr.read_csv_chunks(csv, chunksize=100))
    assert len(ranges) >= 5


def test_a_fit_reading_in_threads_keeps_blas_to_one_thread(csv, monkeypatch):
    import contextlib

    from sdrstats.scale import fit as scale_fit

    limits = []
    monkeypatch.setattr(
        scale_fit,
        "threadpool_limits",
        lambda n, user_api=None: limits.append((n, user_api)) or contextlib.nullcontext(),
    )
    sdr.sir(FORMULA, sdr.read_csv_chunks(csv, chunksize=100, threads=1))
    assert not limits
    sdr.sir(FORMULA, sdr.read_csv_chunks(csv, chunksize=100, threads=2))
    assert limits and set(limits) == {(1, "blas")}  # the slicing pass and the moments pass
