"""Saved results and streams are data: an npz of arrays and a JSON header with checksums.

Every method's fit comes back from a file with identical directions, reduced predictors,
summary text and conditional density; a file or state dict that is truncated, altered, of
another version or incomplete is refused with "state is incomplete or corrupt: ..." naming the
field; nothing in a file is unpickled.
"""

import hashlib
import json
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from method_registry import FITS, regression_frame

import sdrstats as sdr
from sdrstats.base import persistence

NAMES = sorted(FITS)
CORRUPT = "state is incomplete or corrupt: "


@pytest.fixture(scope="module")
def frame():
    return regression_frame()


def _fit(name, frame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.SDRWarning)
        return FITS[name](frame)


def _density_means(fit, newdata):
    """The conditional density's mean at ``newdata``, or None where a method has none (a
    class response; a stream, which keeps no rows)."""
    if isinstance(fit, sdr.OnlineSIR) or fit.spec.categorical:
        return None
    try:
        density = fit.conditional_density(random_state=0)
    except TypeError:  # LSCE's own density: fitted with the reduction, takes no options
        density = fit.conditional_density()
    return np.asarray(density.mean(newdata))


@pytest.mark.parametrize("name", NAMES)
def test_every_method_round_trips_through_a_file(name, frame, tmp_path):
    fit = _fit(name, frame)
    path = fit.save(tmp_path / name)
    assert path.suffix == ".npz"
    loaded = sdr.load(path)
    assert type(loaded) is type(fit)
    again = type(fit).load(path)
    newdata = frame.iloc[:7]
    for copy in (loaded, again):
        # bit-identical: the same arrays and the same code path give the same floats
        np.testing.assert_array_equal(copy.transform(newdata), fit.transform(newdata))
        assert str(copy.summary()) == str(fit.summary())
        if getattr(fit, "estimator", fit).capabilities.linear_directions:
            pd.testing.assert_frame_equal(copy.directions, fit.directions)
    means = _density_means(fit, newdata)
    if means is not None:
        np.testing.assert_array_equal(_density_means(loaded, newdata), means)


def test_a_stream_resumes_from_its_file_exactly(frame, tmp_path):
    formula = "y ~ log(x1 + 5) + x2 + x3 + C(g)"
    whole = sdr.online_sir(formula, frame, chunksize=20, nslices=5, d=1, init_size=20)
    half = sdr.online_sir(formula, frame.iloc[:40], chunksize=20, nslices=5, d=1, init_size=20)
    resumed = sdr.OnlineSIR.load(half.stream.save(tmp_path / "half"))
    for start in range(40, len(frame), 20):
        resumed.partial_fit(frame.iloc[start : start + 20])
    np.testing.assert_array_equal(resumed.directions.to_numpy(), whole.directions.to_numpy())
    np.testing.assert_array_equal(
        resumed.results().transform(frame.iloc[:5]), whole.transform(frame.iloc[:5])
    )


def test_what_the_format_holds(tmp_path):
    rng = np.random.default_rng(0)
    tree = {
        "floats": np.arange(6.0).reshape(2, 3),
        "ints": np.arange(4, dtype=np.int32),
        "text": np.array(["a", "bb"]),
        "objects": np.array(["a", 1, None], dtype=object),
        "special": (float("nan"), float("inf"), -0.0, 2**70, 1 + 2j),
        "scalars": [np.float32(1.5), np.int64(3), np.bool_(True)],
        "keys": {1: "one", ("a", 2): "tuple key", None: frozenset({1, 2})},
        "series": pd.Series([1.0, 2.0], index=["r1", "r2"], name="s"),
        "frame": pd.DataFrame(
            {
                "x": [1.0, np.nan],
                "g": pd.Categorical(["u", "v"], categories=["v", "u"], ordered=True),
                "k": pd.array([1, None], dtype="Int64"),
                "s": pd.Series(["p", None], dtype=object),
                "t": pd.Series(["p", "q"], dtype="str"),
            },
            index=pd.Index([10, 20], name="row"),
        ),
        "multi": pd.MultiIndex.from_tuples([("a", 1), ("b", 2)], names=["l", "n"]),
        "range": pd.RangeIndex(2, 10, 2, name="r"),
        "sparse": __import__("scipy.sparse").sparse.random(4, 5, density=0.4, random_state=0),
        "rng": rng,
        "dtype": np.dtype("float32"),
        "missing": [pd.NA, pd.NaT],
    }
    shared = np.ones(3)
    tree["same_twice"] = [shared, shared]
    path = persistence.write(tmp_path / "tree", tree, kind="example")
    header, back = persistence.read(path, kind="example")
    assert header["schema_version"] == persistence.SCHEMA_VERSION
    for key in ("floats", "ints", "text"):
        np.testing.assert_array_equal(back[key], tree[key])
        assert back[key].dtype == tree[key].dtype
    assert back["objects"].dtype == object and back["objects"].tolist() == ["a", 1, None]
    nan, inf, zero, big, z = back["special"]
    assert np.isnan(nan) and inf == np.inf and str(zero) == "-0.0" and big == 2**70 and z == 1 + 2j
    assert [type(v) for v in back["scalars"]] == [np.float32, np.int64, np.bool_]
    assert back["keys"] == tree["keys"]
    pd.testing.assert_series_equal(back["series"], tree["series"])
    pd.testing.assert_frame_equal(back["frame"], tree["frame"])
    pd.testing.assert_index_equal(back["multi"], tree["multi"])
    pd.testing.assert_index_equal(back["range"], tree["range"], exact=True)
    assert (back["sparse"] != tree["sparse"]).nnz == 0 and back["sparse"].format == "coo"
    assert back["rng"].random() == tree["rng"].random()  # the same stream of numbers
    assert back["dtype"] == np.dtype("float32")
    assert back["missing"][0] is pd.NA and back["missing"][1] is pd.NaT


def test_code_is_never_saved(tmp_path):
    with pytest.raises(TypeError, match=r"Cannot save root\['f'\]: it holds a builtins.function"):
        persistence.write(tmp_path / "f", {"f": lambda: 0}, kind="example")

    class NotRegistered:  # defined outside sdrstats: never rebuilt from a file
        pass

    with pytest.raises(TypeError, match="NotRegistered, which is not data"):
        persistence.write(tmp_path / "g", [NotRegistered()], kind="example")


def test_a_fit_whose_formula_uses_own_functions_is_refused_at_save(frame, tmp_path):
    def double(x):
        return 2 * x

    fit = sdr.sir("y ~ double(x1) + x2 + x3", frame, nslices=5)
    with pytest.raises(ValueError, match=r"'double' is not one of the allowed functions.*saved"):
        fit.save(tmp_path / "own")


# -- corrupt files ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def saved(frame, tmp_path_factory):
    fit = sdr.sir("y ~ log(x1 + 5) + x2 + x3 + g", frame, nslices=5)
    return fit, fit.save(tmp_path_factory.mktemp("saved") / "fit.npz")


def _members(path):
    with np.load(path, allow_pickle=False) as archive:
        return {k: archive[k] for k in archive.files}


def _header(members):
    return json.loads(members[persistence.HEADER].tobytes())


def _rewrite(path, members, header=None, target=None):
    """Write ``members`` back, with ``header`` re-encoded and its checksum recomputed."""
    members = dict(members)
    if header is not None:
        text = json.dumps(header).encode()
        members[persistence.HEADER] = np.frombuffer(text, np.uint8)
        digest = hashlib.sha256(text).hexdigest().encode()
        members[persistence.HEADER_CHECKSUM] = np.frombuffer(digest, np.uint8)
    target = target or path.with_name("edited.npz")
    np.savez(target, **members)
    return target


def _node(tree, *names):
    """The node of the attribute path ``names`` in the header's tree of a results object."""
    for name in names:
        tree = dict((k, v) for k, v in tree["state"])[name]
    return tree


def _refused(path, match, loader=sdr.load):
    with pytest.raises(ValueError, match=match) as info:
        loader(path)
    assert str(info.value).startswith(CORRUPT)


def test_a_truncated_file_is_refused(saved, tmp_path):
    _, path = saved
    data = path.read_bytes()
    for size in (0, 10, len(data) // 2, len(data) - 30):
        cut = tmp_path / f"cut{size}.npz"
        cut.write_bytes(data[:size])
        _refused(cut, "truncated|not an sdrstats file|lacks")


def test_an_altered_array_fails_its_checksum(saved):
    _, path = saved
    members = _members(path)
    key = _node(_header(members)["root"], "spec", "X")["key"]
    members[key] = members[key].copy()
    members[key][0, 0] += 1e-9  # one value, by a rounding error's worth
    _refused(_rewrite(path, members), rf"checksum mismatch of array '{key}'")


def test_an_altered_header_fails_its_checksum(saved):
    _, path = saved
    members = _members(path)
    text = members[persistence.HEADER].tobytes().replace(b'"call"', b'"cal_"')
    members[persistence.HEADER] = np.frombuffer(text, np.uint8)
    _refused(_rewrite(path, members), "checksum mismatch of the header")


def test_a_missing_array_or_header_is_named(saved):
    _, path = saved
    members = _members(path)
    key = _node(_header(members)["root"], "output", "basis")["key"]
    _refused(_rewrite(path, {k: v for k, v in members.items() if k != key}), f"lacks array '{key}'")
    no_header = {k: v for k, v in members.items() if k != persistence.HEADER}
    _refused(_rewrite(path, no_header), "lacks its header")


def test_a_wrong_schema_version_is_refused(saved):
    _, path = saved
    members = _members(path)
    header = _header(members)
    header["schema_version"] = 99
    _refused(
        _rewrite(path, members, header),
        "wrong schema version 99; this sdrstats reads versions 1 to 2",
    )


def test_a_missing_field_is_named(saved):
    _, path = saved
    members = _members(path)
    header = _header(members)
    header["root"]["state"] = [kv for kv in header["root"]["state"] if kv[0] != "spec"]
    _refused(_rewrite(path, members, header), r"missing field results\.spec")
    header = _header(members)
    options = _node(header["root"], "estimator", "options")
    options["items"] = [kv for kv in options["items"] if kv[0] != "nslices"]
    _refused(_rewrite(path, members, header), r"estimator\.options .*missing \['nslices'\]")


def test_a_wrong_shape_is_named(saved):
    _, path = saved
    members = _members(path)
    header = _header(members)
    key = _node(header["root"], "output", "basis")["key"]
    members[key] = np.vstack([members[key], members[key][:1]])  # one row too many
    header["arrays"][key] = {
        "dtype": members[key].dtype.str,
        "shape": list(members[key].shape),
        "sha256": persistence._array_digest(members[key]),
    }  # consistent checksums: the shape check itself must catch it
    _refused(
        _rewrite(path, members, header),
        r"wrong shape of output\.basis: \(5, 4\), expected \(4, \?\)",
    )


def test_a_wrong_option_value_is_named(saved):
    _, path = saved
    members = _members(path)
    header = _header(members)
    options = _node(header["root"], "estimator", "options")
    options["items"] = [[k, "ten" if k == "nslices" else v] for k, v in options["items"]]
    _refused(
        _rewrite(path, members, header),
        r"estimator\.options: The 'nslices' parameter of SIR must be an int >= 2 or None",
    )


def test_only_sdrstats_classes_are_rebuilt(saved):
    _, path = saved
    members = _members(path)
    header = _header(members)
    header["root"]["class"] = "os._wrap_close"
    _refused(_rewrite(path, members, header), r"names the class 'os._wrap_close', which is not an")


def test_a_pickle_is_never_loaded(saved, tmp_path):
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (__import__("os").system, (f"touch {marker}",))

    raw = tmp_path / "raw.npz"
    raw.write_bytes(pickle.dumps(Payload()))
    _refused(raw, "holds pickled objects, which are never loaded")
    # inside a valid-looking file: an object array (stored by pickle) where an array belongs
    _, path = saved
    members = _members(path)
    key = _node(_header(members)["root"], "spec", "X")["key"]
    members[key] = np.array([Payload()], dtype=object)
    crafted = tmp_path / "crafted.npz"
    np.savez(crafted, allow_pickle=True, **members)
    _refused(crafted, f"entry '{key}' holds pickled objects")
    assert not marker.exists()


def test_a_results_file_is_not_a_stream_and_back(saved, frame, tmp_path):
    _, path = saved
    with pytest.raises(ValueError, match="holds 'results' .* not 'online_sir'"):
        sdr.OnlineSIR.load(path)
    stream = sdr.online_sir("y ~ x1 + x2", frame, chunksize=40, nslices=5, init_size=40).stream
    with pytest.raises(ValueError, match="holds 'online_sir' .* not 'results'"):
        sdr.Results.load(stream.save(tmp_path / "stream"))
    with pytest.raises(ValueError, match="holds a MomentResults, not a SPCAResults"):
        sdr.spca("y ~ x1 + x2", frame, d=1).load(path)


# -- stream state dicts ----------------------------------------------------------------------
@pytest.fixture()
def stream(frame):
    return sdr.online_sir("y ~ log(x1 + 5) + x2 + g", frame.iloc[:60], chunksize=30, nslices=5,
                          d=1, init_size=30).stream  # fmt: skip


def _state_refused(state, match):
    with pytest.raises(ValueError, match=match) as info:
        sdr.OnlineSIR.from_state(state)
    assert str(info.value).startswith(CORRUPT)


def test_a_stream_state_with_a_missing_key_is_named(stream):
    for key in ("reader", "options", "lineage"):
        state = stream.state_dict()
        del state[key]
        _state_refused(state, f"missing key '{key}'")
    state = stream.state_dict()
    del state["state"]["slice_sums"]
    _state_refused(state, r"missing key 'state\.slice_sums'")
    state = stream.state_dict()
    del state["reader"]["columns"]
    _state_refused(state, r"missing key 'reader\.columns'")


def test_a_stream_state_of_another_version_is_refused(stream):
    for version in (0, 4, "2", None):
        state = stream.state_dict()
        state["version"] = version
        _state_refused(state, f"wrong schema version {version!r}")
    _state_refused([1, 2], "must be a dict made by state_dict")


def test_a_stream_state_of_the_wrong_shape_is_named(stream):
    state = stream.state_dict()
    state["state"]["mean"] = state["state"]["mean"][:-1]
    _state_refused(state, r"wrong shape of state\.mean: \(2,\), expected \(3,\)")
    state = stream.state_dict()
    state["cut_points"] = state["cut_points"][:2]
    _state_refused(state, r"wrong shape of cut_points: \(2,\), expected \(4,\)")
    state = stream.state_dict()
    state["trace"][0] = (60, np.ones(2), np.ones((3, 1)))
    _state_refused(state, r"wrong shape of trace\[0\]\[1\]")
    state = stream.state_dict()
    state["state"]["slice_counts"] = state["state"]["slice_counts"] + 1
    _state_refused(state, r"state\.slice_counts sum to 65, not state\.t = 60")
    state = stream.state_dict()
    state["state"]["lam"] = np.array([np.nan])
    _state_refused(state, r"state\.lam holds non-finite values")


def test_a_stream_state_with_wrong_types_is_named(stream):
    state = stream.state_dict()
    state["options"]["d"] = "one"
    _state_refused(
        state, r"options: The 'd' parameter of OnlineSIR must be an int >= 1 or None\. Got 'one'"
    )
    state = stream.state_dict()
    state["options"]["bogus"] = 1
    _state_refused(state, r"options do not match OnlineSIR's: unknown \['bogus'\]")
    state = stream.state_dict()
    state["reader"]["spec"] = "spec"
    _state_refused(state, r"reader\.spec is a str, not a ModelSpec")
    state = stream.state_dict()
    state["state"]["t"] = 1.5
    _state_refused(state, r"state\.t must be an integer >= 1")
    state = stream.state_dict()
    state["buffer"] = [(np.ones((2, 5)), np.ones(2))]
    _state_refused(state, r"wrong shape of buffer\[0\]\[0\]: \(2, 5\), expected \(2, 3\)")


def test_a_version_1_state_still_loads_and_keeps_its_identity(stream, frame):
    state = stream.state_dict()
    state["version"] = 1
    for key in ("lineage", "moments", "reservoir", "seed"):  # versions 3's and 2's additions
        del state[key]
    for key in ("bootstrap_replicates", "reservoir_size"):
        del state["options"][key]
    del state["state"]["scale"]
    a, b = sdr.OnlineSIR.from_state(state), sdr.OnlineSIR.from_state(state)
    np.testing.assert_array_equal(a.directions.to_numpy(), stream.directions.to_numpy())
    a.partial_fit(frame.iloc[60:])
    with pytest.raises(ValueError, match="shares its history"):
        a.merge(b)  # two copies of one saved state hold the same rows


@pytest.mark.parametrize("method", ["sir", "save", "phd", "spca"])
def test_a_chunked_fit_round_trips_through_a_file(method, ais, tmp_path):
    parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
    options = {"nslices": 5} if method in ("sir", "save") else {}
    fit = getattr(sdr, method)("lbm ~ log(ssf) + wt + ht + sex", parts, **options)
    loaded = sdr.load(fit.save(tmp_path / method))
    assert type(loaded) is type(fit) and loaded.n == fit.n == len(ais)
    np.testing.assert_array_equal(loaded.transform(ais.head(5)), fit.transform(ais.head(5)))
    assert str(loaded.summary()) == str(fit.summary())


def test_a_dask_fit_round_trips_through_a_file(ais, tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    fit = sdr.sir("lbm ~ log(ssf) + wt + ht", dd.from_pandas(ais, npartitions=3), nslices=5)
    loaded = sdr.load(fit.save(tmp_path / "dask"))
    np.testing.assert_array_equal(loaded.transform(ais.head(5)), fit.transform(ais.head(5)))
    assert str(loaded.summary()) == str(fit.summary())


def _replace_in_tree(node, name, value):
    """Replace every stored attribute ``name`` in a header tree (all objects, any depth)."""
    if isinstance(node, dict):
        if node.get("$") == "object":
            node["state"] = [[k, value if k == name else v] for k, v in node["state"]]
        for v in node.values():
            _replace_in_tree(v, name, value)
    elif isinstance(node, list):
        for v in node:
            _replace_in_tree(v, name, value)


@pytest.mark.parametrize("make", ["lscde", "eps_kde", "lscde_of_a_fit"])
def test_a_fitted_density_round_trips_and_checks_its_formula(make, ais, tmp_path):
    formula = "lbm ~ ht + log(wt)"
    if make == "lscde_of_a_fit":
        fit = sdr.lscde(sdr.sir(formula, ais, nslices=5, d=1), random_state=0)
    else:
        fit = getattr(sdr, make)(formula, ais, **({"random_state": 0} if make == "lscde" else {}))
    path = fit.save(tmp_path / make)
    loaded = sdr.load(path)
    assert type(loaded) is sdr.DensityFit and repr(loaded) == repr(fit)
    assert str(loaded.summary()) == str(fit.summary())
    np.testing.assert_array_equal(loaded.mean(ais.head(4)), fit.mean(ais.head(4)))
    members = _members(path)
    header = _header(members)
    _replace_in_tree(header["root"], "rhs", "ht + I(__import__('os').getcwd())")
    _refused(_rewrite(path, members, header), r"spec\.rhs: the term .* is refused")


def test_a_file_that_names_another_class_is_refused(saved, tmp_path):
    _, path = saved
    members = _members(path)
    header = _header(members)
    header["class"] = ["MomentResults"]
    _refused(_rewrite(path, members, header), r"the file's class \['MomentResults'\] is not one")
    tree = persistence.write(tmp_path / "tree", {"a": 1}, kind="results")
    members = _members(tree)
    header = _header(members)
    header["class"] = "MomentResults"  # a dict posing as results
    _refused(_rewrite(tree, members, header), "the file's object is a dict, not a MomentResults")


# -- forged files: checked before anything is allocated --------------------------------------
def _forge(path, key, shape, target, *, table=True):
    """A copy of ``path`` whose entry ``key`` has an ``.npy`` header claiming ``shape`` over
    its original bytes; with ``table`` the JSON table claims it too and every checksum is
    recomputed (as whoever edits a file can)."""
    import io
    import zipfile

    members = _members(path)
    header = _header(members)
    arr = members[key]
    if table:
        claimed = np.lib.format.header_data_from_array_1_0(arr)
        header["arrays"][key] = {
            "dtype": claimed["descr"],
            "shape": list(shape),
            "sha256": header["arrays"][key]["sha256"],
        }
    members = dict(members)
    text = json.dumps(header).encode()
    members[persistence.HEADER] = np.frombuffer(text, np.uint8)
    digest = hashlib.sha256(text).hexdigest().encode()
    members[persistence.HEADER_CHECKSUM] = np.frombuffer(digest, np.uint8)
    with zipfile.ZipFile(target, "w") as archive:
        for name, value in members.items():
            buffer = io.BytesIO()
            if name == key:
                info = np.lib.format.header_data_from_array_1_0(value)
                info["shape"] = tuple(shape)
                np.lib.format.write_array_header_1_0(buffer, info)
                buffer.write(np.ascontiguousarray(value).tobytes())
            else:
                np.lib.format.write_array(buffer, value)
            archive.writestr(f"{name}.npy", buffer.getvalue())
    return target


@pytest.mark.parametrize("table", [True, False], ids=["table-forged-too", "header-only"])
def test_a_forged_array_header_is_refused_before_anything_is_allocated(saved, tmp_path, table):
    import time

    _, path = saved
    key = _node(_header(_members(path))["root"], "output", "basis")["key"]
    forged = _forge(path, key, (4_000_000_000,), tmp_path / "forged.npz", table=table)
    start = time.perf_counter()
    _refused(
        forged, rf"entry '{key}' declares <f8 \(4000000000,\) \(29\.8 GiB\) in its header but holds"
    )
    assert time.perf_counter() - start < 0.5


def test_a_forged_stream_file_is_refused_before_anything_is_allocated(frame, tmp_path):
    stream = sdr.online_sir("y ~ x1 + x2", frame, chunksize=40, nslices=5, init_size=40).stream
    path = stream.save(tmp_path / "stream")
    key = next(k for k in _header(_members(path))["arrays"] if "mean" in k)
    forged = _forge(path, key, (4_000_000_000,), tmp_path / "forged.npz")
    _refused(forged, r"entry .*mean.* declares <f8 \(4000000000,\)", loader=sdr.OnlineSIR.load)


def test_arrays_over_the_memory_limit_are_refused_from_their_headers(saved):
    fit, path = saved
    sizes = {k: v.nbytes for k, v in _members(path).items()}
    header = max(v for k, v in sizes.items() if "header" in k)
    arrays = sum(v for k, v in sizes.items() if "header" not in k)
    assert arrays > header + 512  # a limit between the two refuses the arrays only
    with sdr.config_context(max_memory=header + 512):
        with pytest.raises(
            MemoryError, match=r"loading this file needs about .* for its arrays"
        ) as info:
            sdr.load(path)
    assert "sdr.set_config(max_memory=...)" in str(info.value)
    assert str(sdr.load(path).summary()) == str(fit.summary())  # under the default limit


def test_a_table_that_disagrees_with_the_entry_header_is_named(saved, tmp_path):
    _, path = saved
    members = _members(path)
    header = _header(members)
    key = _node(header["root"], "spec", "X")["key"]
    header["arrays"][key]["shape"] = [3, 3]  # the entry itself is untouched
    _refused(
        _rewrite(path, members, header),
        rf"wrong shape or dtype of array '{key}': its entry holds <f8 \(80, 4\), the header says",
    )


@pytest.mark.parametrize(
    "field", [("spec", "X"), ("spec", "Y"), ("output", "basis"), ("output", "center")]
)
def test_non_finite_values_in_a_loaded_fit_are_refused(saved, field):
    _, path = saved
    members = _members(path)
    header = _header(members)
    key = _node(header["root"], *field)["key"]
    members[key] = members[key].copy()
    members[key].flat[0] = np.nan
    header["arrays"][key]["sha256"] = persistence._array_digest(members[key])  # recomputed
    where = r"\.".join(field)
    _refused(_rewrite(path, members, header), rf"{where} holds non-finite values")


def test_the_docs_say_checksums_give_integrity_not_authenticity():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    texts = [
        sdr.load.__doc__,
        sdr.Results.save.__doc__,
        sdr.OnlineSIR.save.__doc__,
        (root / "docs" / "getting_started.md").read_text(),
        (root / "README.md").read_text(),
    ]
    for text in texts:
        assert "integrity, not authenticity" in " ".join(text.replace("*", "").split())


# -- streams: any path, R's dot, default options ---------------------------------------------
@pytest.mark.parametrize("name", ["state", "state.npz", "run.v2", "folder.d/state"])
def test_save_and_load_meet_at_whatever_path_is_given(name, frame, tmp_path):
    target = tmp_path / name
    target.parent.mkdir(exist_ok=True)
    stream = sdr.online_sir("y ~ x1 + x2", frame, chunksize=40, nslices=5, init_size=40).stream
    stream.save(target)
    for loader in (sdr.OnlineSIR.load, sdr.load):
        for given in (target, str(target)):
            again = loader(given)
            np.testing.assert_array_equal(again.directions, stream.directions)
    fit = sdr.sir("y ~ x1 + x2", frame, nslices=5)
    fit.save(target)
    assert str(sdr.load(target).summary()) == str(fit.summary())


def test_a_missing_file_names_both_paths_tried(tmp_path):
    with pytest.raises(
        FileNotFoundError, match=r"No saved sdrstats file at '.*gone' or '.*gone\.npz'"
    ):
        sdr.load(tmp_path / "gone")


def test_a_stream_fitted_with_the_dot_saves_and_resumes(frame, tmp_path):
    data = frame.drop(columns="g")
    whole = sdr.online_sir("y ~ . - x4", data, chunksize=20, nslices=5, d=1, init_size=20)
    half = sdr.online_sir("y ~ . - x4", data.iloc[:40], chunksize=20, nslices=5, d=1, init_size=20)
    half = half.stream
    assert half._reader.formula == "y ~ (x1 + x2 + x3 + x4) - x4"  # the columns, named
    resumed = sdr.OnlineSIR.load(half.save(tmp_path / "dot"))
    for start in range(40, len(data), 20):
        # a later chunk may repeat the formula as given
        resumed.partial_fit(data.iloc[start : start + 20], formula="y ~ . - x4")
    np.testing.assert_array_equal(resumed.directions.to_numpy(), whole.directions.to_numpy())
    with pytest.raises(
        ValueError, match=r"started with formula 'y ~ \(x1 \+ x2 \+ x3 \+ x4\) - x4'"
    ):
        resumed.partial_fit(data.iloc[:20], formula="y ~ .")
