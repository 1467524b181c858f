"""The synthetic HIE workbook: deterministic, the documented shape and untidiness."""

from __future__ import annotations

import pandas as pd

from clinbridge.synthetic.trial import DICTIONARY_COLUMNS, generate_trial


def test_same_seed_same_workbook_other_seed_differs() -> None:
    a = generate_trial(3, subjects=60, variables=300)
    b = generate_trial(3, subjects=60, variables=300)
    c = generate_trial(4, subjects=60, variables=300)
    pd.testing.assert_frame_equal(a.data, b.data)
    pd.testing.assert_frame_equal(a.dictionary, b.dictionary)
    assert not a.data["TEMP_24H"].equals(c.data["TEMP_24H"])


def test_full_size_shape_and_design(trial_wb) -> None:  # type: ignore[no-untyped-def]
    full = generate_trial(42)
    assert full.data.shape == (532, 1300)
    df = trial_wb.data
    assert sorted(df["TRIAL"].unique()) == [1, 2]
    assert df["SITE"].nunique() == 21
    assert set(df.loc[df["TRIAL"] == 1, "SITE"]) == set(range(1, 13))
    assert list(trial_wb.dictionary.columns) == list(DICTIONARY_COLUMNS)
    assert len(trial_wb.dictionary) == df.shape[1]


def test_untidy_names_decoys_and_trial_specific_blanks(trial_wb) -> None:  # type: ignore[no-untyped-def]
    df, d = trial_wb.data, trial_wb.dictionary.set_index("Variable")
    for name in ("TEMP_24H", "hr_48h", "map_h72", "Gluc0h", "SKINTEMP_24H", "water_temp_24h"):
        assert name in df.columns
    assert "Skin" in d.loc["SKINTEMP_24H", "Label"] and "Core" in d.loc["TEMP_24H", "Label"]
    # blank in the trial that did not collect it
    assert df.loc[df["TRIAL"] == 2, "BAYLEY_COG_18M"].isna().all()
    assert df.loc[df["TRIAL"] == 1, "BAYLEY_COG_18M"].notna().all()
    assert df.loc[df["TRIAL"] == 1, "LACT_24H"].isna().all()
    assert df.loc[df["TRIAL"] == 2, "Gluc6h"].isna().all()
    # missing codes are in the data and declared in the dictionary
    assert (df["TEMP_24H"] == -99).any()
    assert "-99=Not done" in d.loc["TEMP_24H", "Missing codes"]
    # the device is not used in the standard-care arm: not applicable
    assert (df.loc[df["Rand_Arm"] == 2, "water_temp_24h"].dropna() == -88).all()
    assert (d["Form"] == "Data management").sum() > 100
