"""The ``trial`` adapter: a loaded trial table (``clinbridge load trial``) described as a Catalog.

Subjects are the patients (one row of ``trial_data`` each); every column is a
:class:`~clinbridge.catalog.Variable` with its label, type, unit, codes, missing codes, time point,
trials and form; the trial, site and arm variables carry their ``role`` so that questions can
group by them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import orjson

from clinbridge.adapters.base import SourceAdapter
from clinbridge.adapters.trial._admin_columns import ADMIN_SOURCE
from clinbridge.adapters.trial._codes import is_number as _is_number
from clinbridge.adapters.trial._site_names import SUPERSEDED
from clinbridge.adapters.trial._undeclared_codes import NOT_DECLARED
from clinbridge.adapters.trial._weeks_days_pair import PARTS_OF
from clinbridge.catalog import Catalog, ColumnInfo, PatientTable, TableInfo, Variable
from clinbridge.errors import SchemaMismatchError

if TYPE_CHECKING:
    from clinbridge.db import Database

__all__ = ["TrialAdapter"]

_TABLES = ("trial_data", "trial_variables", "trial_codes", "trial_long", "trial_meta")
_SQL_TYPE = {
    "integer": "float",
    "float": "float",
    "categorical": "float",
    "string": "string",
    "date": "string",
}


class TrialAdapter(SourceAdapter):
    """Harmonised clinical-trial spreadsheets (wide table + data dictionary)."""

    name: ClassVar[str] = "trial"
    version: ClassVar[str] = "1"
    PRIORITY: ClassVar[int] = 30
    WIDE_TABLE: ClassVar[bool] = True
    """Whether the source is one wide row per subject described variable by variable."""

    @classmethod
    def detect(cls, db: Database) -> bool:
        """Whether ``db`` holds a loaded trial table."""
        names = {t.lower() for t in db.table_names()}
        return {"trial_data", "trial_variables"} <= names

    def catalog(self, db: Database, *, source: str | None = None) -> Catalog:
        """The catalog of the trial tables in ``db``."""
        if not self.detect(db):
            raise SchemaMismatchError(
                f"{db.url!r} holds no loaded trial table (clinbridge load trial)",
                url=db.url,
            )
        rows = db.execute(
            "SELECT name, column_name, label, type, unit, codes, missing, time_point, trials, "
            "form, role, source FROM trial_variables"
        ).rows
        meta = dict(db.execute("SELECT key, value FROM trial_meta").rows)
        n = db.execute("SELECT COUNT(*) FROM trial_data").rows[0][0]
        variables = []
        subject = next((r[1] for r in rows if r[10] == "subject"), None)
        if subject is None:  # pragma: no cover - the loader always sets one
            raise SchemaMismatchError("the trial table has no subject identifier column")
        for name, col, label, vtype, unit, codes, missing, tp, trials, form, role, src in rows:
            if src == ADMIN_SOURCE:  # a query flag or audit field beside a variable
                continue
            if src and src.startswith((SUPERSEDED, PARTS_OF)):  # site numbers restarting per
                continue  # trial, a gestation's weeks and days: a derived column stands for them
            codes_d: dict[str, str] = orjson.loads(codes or "{}")
            missing_d: dict[str, str] = orjson.loads(missing or "{}")
            desc = label or name
            if src == "inferred":
                desc += " (no dictionary entry: inferred from the data)"
            elif src and src.endswith(NOT_DECLARED):
                desc += f" ({NOT_DECLARED})"
            variables.append(
                Variable(
                    name=name,
                    table="trial_data",
                    column=col,
                    description=desc,
                    type=vtype,
                    unit=unit or None,
                    codes=codes_d,
                    missing_codes=_stored_codes(vtype, codes_d, missing_d),
                    missing_labels=missing_d,
                    time_point=tp or None,
                    patient_column=subject,
                    trials=tuple(orjson.loads(trials or "[]")),
                    form=form or None,
                    role=role or None,
                )
            )
        cols = tuple(
            ColumnInfo(
                name=v.column, type=_SQL_TYPE.get(v.type, "unknown"), description=v.description
            )
            for v in variables
        )
        tables = [
            TableInfo(
                name="trial_data",
                columns=cols,
                row_count=int(n),
                description="wide table, one row per subject",
            )
        ]
        for t in _TABLES[1:]:
            tables.append(
                TableInfo(
                    name=t,
                    columns=tuple(ColumnInfo(name=c, type=_norm(ty)) for c, ty in db.columns(t)),
                )
            )
        return Catalog(
            source=source or meta.get("file", "trial"),
            adapter=self.name,
            adapter_version=self.version,
            dialect=db.dialect,
            schema_name=db.schema,
            patients=PatientTable(table="trial_data", id_column=subject),
            variables=tuple(variables),
            tables=tuple(tables),
            description=f"trial table from {meta.get('file', '?')} (dictionary: {meta.get('dictionary_source', '?')})"
            + (
                f"; missing codes declared: {meta['missing_conventions']}"
                if meta.get("missing_conventions")
                else ""
            ),
        )


def _stored_codes(vtype: str, codes: dict[str, str], missing: dict[str, str]) -> tuple[str, ...]:
    """The missing codes a column can hold: a numeric column stores a declared text code
    ('ND', 'NE') as NULL already, so only its numeric codes are left to set aside."""
    numeric = vtype in {"integer", "float"} or (
        vtype == "categorical" and bool(codes) and all(_is_number(c) for c in codes)
    )
    return tuple(c for c in missing if not numeric or _is_number(c))


def _norm(sql_type: Any) -> str:
    t = str(sql_type).lower()
    if any(x in t for x in ("int",)):
        return "integer"
    if any(x in t for x in ("double", "float", "real", "numeric", "decimal")):
        return "float"
    if "bool" in t:
        return "boolean"
    return "string"
