"""Regenerate ``cdm_<version>.csv`` from OHDSI CommonDataModel's field- and table-level CSVs.

Run by a maintainer, never at run time::

    python -m clinbridge.adapters.omop_ddl.regenerate PATH/TO/CommonDataModel/inst/csv

Reads ``OMOP_CDMv5.3_Field_Level.csv``/``..._Table_Level.csv`` (and 5.4) and writes one portable
spec per version: table, column, position, required, datatype, primary key and a one-line
description. The DDL for each dialect is emitted from this spec by ``clinbridge.adapters.omop.ddl``.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

HERE = Path(__file__).parent
UPSTREAM = "github.com/OHDSI/CommonDataModel commit f853f6e39c61b4eb8b3e5287fd573a1ced36c0e4"


def _first_sentence(text: str, limit: int = 160) -> str:
    text = "" if (text or "").strip() == "NA" else " ".join((text or "").split())
    cut = text.split(". ")[0].rstrip(".")
    return (cut[: limit - 1] + "…") if len(cut) > limit else cut


def regenerate(src: Path) -> None:
    """Rewrite the committed spec files from OHDSI's field-level CSVs under ``src``."""
    for version in ("5.3", "5.4"):
        fields = list(
            csv.DictReader((src / f"OMOP_CDMv{version}_Field_Level.csv").open(encoding="utf-8"))
        )
        tables = {
            r["cdmTableName"].lower(): r
            for r in csv.DictReader(
                (src / f"OMOP_CDMv{version}_Table_Level.csv").open(encoding="utf-8")
            )
        }
        out = HERE / f"cdm_{version}.csv"
        with out.open("w", encoding="utf-8", newline="") as fh:
            fh.write(
                f"# OMOP CDM v{version} table/column spec. GENERATED - do not edit by hand.\n"
                f"# Derived from {UPSTREAM}, inst/csv/OMOP_CDMv{version}_Field_Level.csv and\n"
                f"# OMOP_CDMv{version}_Table_Level.csv (Apache License 2.0, (c) OHDSI).\n"
                "# Regenerate: python -m clinbridge.adapters.omop_ddl.regenerate <CommonDataModel>/inst/csv\n"
            )
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(
                [
                    "table",
                    "column",
                    "position",
                    "required",
                    "datatype",
                    "primary_key",
                    "description",
                ]
            )
            position: dict[str, int] = {}
            for r in fields:
                table = r["cdmTableName"].strip().lower()
                if table not in position:
                    position[table] = 0
                    w.writerow(
                        [
                            table,
                            "",
                            0,
                            tables.get(table, {}).get("isRequired", "No") == "Yes",
                            "table",
                            False,
                            _first_sentence(tables.get(table, {}).get("tableDescription", ""), 200),
                        ]
                    )
                position[table] += 1
                w.writerow(
                    [
                        table,
                        r["cdmFieldName"].strip().strip('"').lower(),
                        position[table],
                        r["isRequired"].strip().lower() == "yes",
                        r["cdmDatatype"].strip().lower(),
                        r["isPrimaryKey"].strip().lower() == "yes",
                        _first_sentence(r["userGuidance"]),
                    ]
                )


if __name__ == "__main__":
    regenerate(Path(sys.argv[1]))
