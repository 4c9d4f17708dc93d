"""ompscale for notebooks: the modeler's fits, models.json, ompbench results and ompdash histories.

    import ompscale
    models = ompscale.fit("sweep.csv", where={"metric": "avg_cost"}, classes="auto")
    for m in models:
        print(m.kernel, m.thread_class, m.formula, m.predict(64).value, m.budget("4x"))

fit() runs the modeler's own code (the C++ library, through ompscale._core) with the options of
`modeler fit` by their command-line names, so it gives the same models as the command line and
refuses what it refuses with the same one-line message (ompscale.UsageError, ompscale.InputError,
both ValueErrors). docs/python.md describes every function and attribute.
"""

import json
import lzma
import os
import sqlite3
import warnings

from ._core import Budget, InputError, Model, ModelSet, Prediction, Term, UsageError
from ._core import fit as _fit
from ._core import read_models as _read_models
from ._core import version as _version

__all__ = ["fit", "read_models", "read_results", "history", "Model", "ModelSet", "Prediction",
           "Budget", "Term", "UsageError", "InputError", "__version__"]

__version__ = _version().split()[0]


def _option_words(name, value):
    """The command-line words of one keyword option: where={"metric": "avg_cost"} becomes
    --where metric=avg_cost, key=["a", "b"] --key a,b, include_invalid=True --include-invalid."""
    option = "--" + name.replace("_", "-")
    if value is None or value is False:
        return []
    if value is True:
        return [option]
    if name == "where":
        conditions = value.items() if isinstance(value, dict) else None
        if conditions is not None:
            value = [f"{column}={v}" for column, v in conditions]
        elif isinstance(value, str):
            value = [value]
        words = []
        for condition in value:
            words += [option, str(condition)]
        return words
    if isinstance(value, (list, tuple)):
        return [option, ",".join(_number_text(v) for v in value)]
    return [option, _number_text(value)]


def _number_text(value):
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def fit(data, param=None, value=None, key=None, **options):
    """Models every kernel of `data`, as `modeler fit` does; returns a ModelSet.

    data:    a pandas DataFrame (an ompbench results table, or any table with `param`, `value` and
             `key` columns), or the path of a file the modeler reads (ompbench CSV, CSV, Extra-P
             text, JSON or JSON Lines), or a list of such paths.
    param, value, key: the generic CSV's parameter column, value column and key columns (--param,
             --value, --key); not needed for ompbench results or Extra-P files.
    options: every option of `modeler fit` by its name, dashes as underscores: classes="auto",
             predict=[64, 128], budget="4x", where={"metric": "avg_cost"}, preset="extrap",
             law_change=0, jobs=1, include_invalid=True, ...

    What `modeler fit` says on stderr about the inputs (values marked invalid that were not used,
    parameters folded into the key) comes as UserWarnings.
    """
    args = []
    text = None
    if hasattr(data, "to_csv"):
        args.append("-")
        text = data.to_csv(index=False)
    elif isinstance(data, (str, os.PathLike)):
        args.append(os.fspath(data))
    else:
        args += [os.fspath(path) for path in data]
    args += _option_words("param", param) + _option_words("value", value)
    if key is not None:
        args += _option_words("key", [key] if isinstance(key, str) else list(key))
    for name, option in options.items():
        args += _option_words(name, option)
    models, notes = _fit(args, text, "<DataFrame>")
    for note in notes:
        warnings.warn(note, UserWarning, stacklevel=2)
    return models


def read_models(path):
    """The models of a models.json (`modeler fit --format json`), as fit() returns them."""
    return _read_models(os.fspath(path))


# The columns of an ompbench results file and their types (docs/design.md, "The results file").
# param_value stays text: a schedule's is "static,4".
_RESULT_TYPES = {"threads": "int64", "rep": "int64", "value": "float64", "valid": "int64",
                 "canary_ns": "float64", "oversubscribed": "int64"}


def read_results(path):
    """An ompbench results CSV as a pandas DataFrame, one row per measured value (rows marked
    valid=0 included: filter on `valid`). The sidecar PATH.meta.json, when it exists, is in
    `frame.attrs["sidecar"]`: the list of the runs that wrote into the file (environment, clock,
    calibrations, canaries). Files ending in .xz (the results or the sidecar) are decompressed."""
    import pandas

    path = os.fspath(path)
    header = pandas.read_csv(path, nrows=0).columns
    for column in ("construct", "threads", "value"):
        if column not in header:
            raise InputError(f"{path}:1: no '{column}' column; expected an ompbench results CSV")
    text = [c for c in header if c not in _RESULT_TYPES]
    frame = pandas.read_csv(path, dtype={c: str for c in text})
    frame[text] = frame[text].fillna("")
    for column, kind in _RESULT_TYPES.items():
        if column not in frame.columns:
            continue
        if frame[column].dtype == object:  # not all numbers: name the first that is not
            numbers = pandas.to_numeric(frame[column], errors="coerce")
            bad = frame[column][numbers.isna() & frame[column].notna()]
            if len(bad):
                line = int(bad.index[0]) + 2  # the header is line 1
                raise InputError(f"{path}:{line}: {column} '{bad.iloc[0]}' is not a number")
            frame[column] = numbers
        if frame[column].notna().all():
            frame[column] = frame[column].astype(kind)
    stem = path[:-3] if path.endswith(".xz") else path
    for sidecar in (stem + ".meta.json", stem + ".meta.json.xz"):
        if os.path.exists(sidecar):
            opener = lzma.open if sidecar.endswith(".xz") else open
            with opener(sidecar, "rt", encoding="utf-8") as f:
                frame.attrs["sidecar"] = _read_sidecar(f.read(), sidecar)
            break
    return frame


def _read_sidecar(text, name):
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{name}:{e.lineno}: {e.msg}") from None
    return document.get("runs", document) if isinstance(document, dict) else document


def history(db):
    """The tables of an ompdash history database (docs/ompdash.md, "History database") as a dict
    of pandas DataFrames by table name: runs, series, summaries (with `samples`, the valid
    repetitions, as numpy arrays), repetitions, model_sets, model_set_runs, models, app_reports, app_regions,
    app_points. The database is opened read-only."""
    import numpy
    import pandas

    db = os.fspath(db)
    if not os.path.isfile(db):
        raise InputError(f"{db}:0: no such file; expected an ompdash history (ompdash ingest --db)")
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        try:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            names = [row[0] for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                "ORDER BY rowid")]
        except sqlite3.DatabaseError as e:
            raise InputError(f"{db}:0: {e}; expected an ompdash history") from None
        if version == 0 or "runs" not in names:
            raise InputError(f"{db}:0: not an ompdash history (no schema version or no runs "
                             "table); make one with ompdash ingest --db")
        tables = {name: pandas.read_sql_query(f'SELECT * FROM "{name}"', connection)
                  for name in names}
    finally:
        connection.close()
    # Schema 3 keeps the repetitions apart from the summaries (`repetitions`); older histories
    # keep them in `summaries`. Either way the summaries get them, decoded.
    for table in ("summaries", "repetitions"):
        frame = tables.get(table)
        if frame is not None and "samples" in frame.columns:
            frame["samples"] = [numpy.frombuffer(blob or b"", dtype="<f8")
                                for blob in frame["samples"]]
    summaries, repetitions = tables.get("summaries"), tables.get("repetitions")
    if summaries is not None and repetitions is not None and "samples" not in summaries.columns:
        key = [c for c in ("run", "series", "threads", "runtime_version", "compiler")
               if c in summaries.columns and c in repetitions.columns]
        tables["summaries"] = summaries.merge(repetitions[key + ["samples"]], on=key, how="left")
    return tables
