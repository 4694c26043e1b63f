"""Write ``stream_v3.npz`` and ``stream_v3_result.npz``: a formula stream and its result, saved
in the stream file format 3 by the code before streams read their batches through the
formula plan.

Run from the repository root with the sdrstats to record on the path::

    PYTHONPATH=<checkout> python tests/data/make_stream_v3.py

``tests/test_online_plan.py`` loads both files, continues the stream on the rest of the same
rows and compares it with one stream fitted on all of them.
"""

import importlib.util
from pathlib import Path

import sdrstats as sdr

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("online_plan", HERE.parent / "test_online_plan.py")
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)

if __name__ == "__main__":
    frame = _module.stream_frame()
    first = frame.iloc[: _module.SAVED_ROWS]
    fit = sdr.online_sir(_module.FORMULA, first, **_module.OPTIONS)
    print(fit.stream.state_dict()["version"], sdr.__file__)
    fit.stream.save(HERE / "stream_v3.npz")
    fit.save(HERE / "stream_v3_result.npz")
