"""Missing codes declared in prose, as set 13's independent builder did (issue 10), on a generated
workbook re-laid here in wording of our own: the dictionary loses its missing-codes column; each
variable's codes are written in a free ``Remarks`` column beside the table ('Use -99 when the
test was not done; -88 if not applicable'), and one rule for all coded items stands in a
sentence on an information sheet ('Across all coded questions, the entry 9 represents an
unknown answer'), with a text code said the same way ('An entry of NR means ...'). A code the
data holds that nothing declares is still an error naming sheet, row and column. Also: a 'probe
site' or 'in hospital' label is not the study site, a site column of bare numbers is the site
(its groups unlabelled, so a list of them abstains), and a time point written on a code
recorded at another time abstains."""

from __future__ import annotations

import openpyxl
import pandas as pd
import pytest

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial, read_trial
from clinbridge.adapters.trial._dictionary import Entry, role_of, site_label
from clinbridge.adapters.trial._missing_decl import declarations_in_text, is_sentinel
from clinbridge.errors import LoadError
from clinbridge.synthetic.trial import generate_trial

INFO = (
    "About this export",
    "",
    "One row per infant on the Data sheet; the Dictionary sheet describes each column.",
    "Across all coded questions, the entry 9 represents an unknown answer. Scores and counts "
    "keep 9 as a real value. An entry of NR means the value was not recorded.",
)


def _remark(missing: str) -> str | None:
    """Our own prose for a generated missing-codes cell ('-99=Not done; -88=Not applicable')."""
    words = []
    for part in (p.strip() for p in missing.split(";") if p.strip()):
        code, _, meaning = part.partition("=")
        if code == "9":
            continue  # said once, on the information sheet
        if meaning.lower() == "not done":
            words.append(f"Use {code} when the test was not done")
        elif meaning.lower() == "not applicable":
            words.append(f"{code} if not applicable")
        else:
            words.append(f"{code} where the value was lost")
    return ("; ".join(words) + ".") if words else None


def _book(tmp_path, *, stray: bool = False):
    wb_data = generate_trial(27, subjects=120, variables=220)
    data = wb_data.data.copy()
    dd = wb_data.dictionary.copy()
    remarks = [_remark(m) for m in dd["Missing codes"]]
    dd = dd.drop(columns=["Missing codes"])
    dd["Remarks"] = remarks
    numeric = dd[(dd["Type"] == "float") & dd["Remarks"].notna()]["Variable"].tolist()
    nr_col = numeric[0]
    data[nr_col] = data[nr_col].astype(object)
    data.loc[data.index[:3], nr_col] = "NR"
    dd.loc[dd["Variable"] == "HIE_GRADE", "Time point"] = "baseline"  # 'at randomisation'
    if stray:  # a code nothing declares, in a coded column
        data.loc[data.index[5], "OUTBORN"] = 7
    path = tmp_path / "prose.xlsx"
    wb = openpyxl.Workbook()
    info = wb.active
    info.title = "Read me"
    for line in INFO:
        info.append([line])
    ws = wb.create_sheet("Data")
    ws.append(list(data.columns))
    for row in data.itertuples(index=False):
        ws.append([None if pd.isna(v) else v for v in row])
    ds = wb.create_sheet("Dictionary")
    ds.append(list(dd.columns))
    for row in dd.itertuples(index=False):
        ds.append([None if pd.isna(v) or v == "" else v for v in row])
    wb.save(path)
    return path, data, dd, nr_col, numeric


def test_prose_declarations_are_read_where_they_stand(tmp_path):
    path, data, _dd, nr_col, _ = _book(tmp_path)
    table = read_trial(path)
    entries = {e.name: e for e, _ in table.entries}
    assert entries["sex"].missing.get("9") == "an unknown answer"  # the information sheet's rule
    assert {"-99", "-88", "-77"} <= set(entries["GA_WKS"].missing)  # its own remarks
    assert entries["GA_WKS"].missing["-99"] == "not done"
    assert entries[nr_col].missing.get("NR") == "the value was not recorded"
    nine = next(d for d in table.report.workbook_missing if d["code"] == "9")
    assert nine["declared"] == "sheet 'Read me' row 4"
    assert "coded" in nine["applies_to"] and nine["variables"] >= 1
    # the rule is for coded items only: a measured column holding 9 keeps it as a value
    measured = [
        e
        for e, _ in table.entries
        if e.type in {"integer", "float"}
        and (pd.to_numeric(data[e.name], errors="coerce") == 9).any()
    ]
    assert measured and all("9" not in e.missing for e in measured)
    assert table.report.notes_missing["GA_WKS"]["-99"].startswith("sheet 'Dictionary' row ")
    assert any("notes beside the dictionary" in line for line in table.report.summary_lines())


def test_the_catalog_says_where_the_conventions_were_found(tmp_path):
    path, *_ = _book(tmp_path)
    url = f"duckdb:///{tmp_path / 'prose.duckdb'}"
    load_trial(path, url)
    with cb.connect(url) as conn:
        desc = conn.catalog.description
        assert "9 = an unknown answer (sheet 'Read me' row 4, for" in desc
        assert "per-variable codes in the notes beside the dictionary (sheet 'Dictionary')" in desc
        sex = next(v for v in conn.catalog.variables if v.name == "sex")
        assert "9" in sex.missing_codes


def test_a_code_declared_nowhere_is_still_an_error_naming_its_cell(tmp_path):
    path, data, *_ = _book(tmp_path, stray=True)
    with pytest.raises(LoadError) as err:
        read_trial(path)
    text = str(err.value)
    col = openpyxl.utils.get_column_letter(list(data.columns).index("OUTBORN") + 1)
    assert "sheet 'Data'" in text and f"row 7 column {col} (OUTBORN)" in text
    assert "value 7 is not one of the codes" in text


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Enter 999 if the reading was not recorded.", {"999": "the reading was not recorded"}),
        (
            "8888 if the sample failed; 7777 if the infant died first.",
            {"8888": "the sample failed", "7777": "the infant died first"},
        ),
        ("Probe fault or reading lost: 99.9", {"99.9": "Probe fault or reading lost"}),
        ("A base deficit is negative. -999 = not measured.", {"-999": "not measured"}),
        ("1 if the infant died", {}),  # an ordinary code: not shaped like a stand-in
        ("2 = died before discharge", {}),
        ("-9 is a true value, not the unknown code", {}),
    ],
)
def test_conditional_and_reason_wordings(text, found):
    assert declarations_in_text(text) == found


def test_sentinel_shapes():
    assert all(is_sentinel(c) for c in ("9", "99", "888", "7777", "99.9", "9.99", "-1", "-99"))
    assert not any(is_sentinel(c) for c in ("1", "98", "10", "2.5", "NR"))


def test_a_probe_site_or_a_hospital_in_passing_is_not_the_study_site():
    assert not site_label("Catheter insertion site")
    assert not site_label("Core temperature probe site")
    assert not site_label("Died before discharge (including in hospital)")
    assert site_label("Recruiting hospital") and site_label("Site number within trial")
    probe = Entry("PROBE", "Temperature probe site", "categorical", codes={"1": "Rectal"})
    assert role_of(probe) is None


def test_a_site_column_of_bare_numbers_is_the_site_and_lists_of_it_abstain(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(["ID", "CENTRE_NO", "ARM", "PROBE", "NEC"])
    for i in range(60):
        ws.append([f"X{i:03d}", 1 + i % 4, 1 + i % 2, 1 + i % 3 % 2, int(i % 5 == 0)])
    ds = wb.create_sheet("Codebook")
    ds.append(["Variable", "Label", "Codes"])
    ds.append(["ID", "Infant number", None])
    ds.append(["CENTRE_NO", "Centre number in its trial", None])
    ds.append(["ARM", "Allocated arm", "1=Cooled; 2=Control"])
    ds.append(["PROBE", "Temperature probe site", "1=Rectal; 2=Oesophageal"])
    ds.append(["NEC", "Necrotising enterocolitis", "0=No; 1=Yes"])
    path = tmp_path / "sites.xlsx"
    wb.save(path)
    url = f"duckdb:///{tmp_path / 'sites.duckdb'}"
    load_trial(path, url)
    with cb.connect(url) as conn:
        roles = {v.role: v.name for v in conn.catalog.variables if v.role}
        assert roles.get("site") == "CENTRE_NO"
        for q in ("which sites had any NEC?", "Which sites randomised more than 10 infants?"):
            a = conn.ask(q)
            assert a.decision == "abstain", (q, a.value)


def test_a_time_point_on_a_code_recorded_at_another_time_abstains(tmp_path):
    path, *_ = _book(tmp_path)
    url = f"duckdb:///{tmp_path / 'prose.duckdb'}"
    load_trial(path, url)
    with cb.connect(url) as conn:
        a = conn.ask("HIE grade at 72 hours - % severe?")
        assert a.decision == "abstain" and "72 h" in (a.reason or "")
        assert conn.ask("% with severe HIE grade").decision == "accept"
