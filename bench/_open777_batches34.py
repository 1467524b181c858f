"""Batches 3 and 4 of the open trial dev set on seed 777 (``bench/trial_open777.py``).

Batch 3 (ids 771-800) was written after batch 2's fixes and batch 4 (801-824) after batch 3's,
each before it was run.
"""

from __future__ import annotations

from bench._open777_base import ARM, SEV, TR, _change, _count, _cut, _one
from bench.trial_gold import Question as Q

BATCHES_3_4: tuple[Q, ...] = (
    # -- batch 3 (written after batch 2's fixes, before it was run) ---------------------------
    *(
        Q(
            771,
            "stat",
            "Among infants in HYPOTHERM with moderate HIE, what percentage were outborn?",
            "proportion",
            lambda g: g.prop("OUTBORN", (1,), g.eq(TR, 2) & g.eq(SEV, 2)),
        ),
        Q(
            772,
            "neo",
            "% girls in cooled arm",
            "proportion",
            lambda g: g.prop("sex", (2,), g.eq(ARM, 1)),
        ),
        Q(
            773,
            "neo",
            "how many cooled babies didnt survive",
            "count",
            lambda g: _count(g.eq("DEATH", 1) & g.eq(ARM, 1)),
        ),
        Q(
            774,
            "stat",
            "What was the mean birth weight among infants who did not have seizures before randomisation?",
            "number",
            lambda g: g.mean("BWT_g", g.eq("SEIZ_BL", 0)),
        ),
        Q(
            775,
            "stat",
            "Median heart rate at 72 h in non-cooled infants",
            "number",
            lambda g: g.median("hr_72h", g.eq(ARM, 2)),
        ),
        Q(
            776,
            "dm",
            "count where DEATH = 0 and CP_18M = 1",
            "count",
            lambda g: _count(g.eq("DEATH", 0) & g.eq("CP_18M", 1)),
        ),
        Q(
            777,
            "dm",
            "mean GMFCS_18M where CP_18M = 1 and TRIAL = 2",
            "number",
            lambda g: g.mean("GMFCS_18M", g.eq("CP_18M", 1) & g.eq(TR, 2)),
        ),
        Q(
            778,
            "neo",
            "plt <100 at 48h how many",
            "count",
            lambda g: _count(_cut(g, "PLT_48H", "<", 100)),
        ),
        Q(
            779,
            "stat",
            "Among infants who died, what proportion had severe HIE?",
            "proportion",
            lambda g: g.prop(SEV, (3,), g.eq("DEATH", 1)),
        ),
        Q(
            780,
            "stat",
            "What percentage of deaths occurred in the standard care arm?",
            "proportion",
            lambda g: g.prop(ARM, (2,), g.eq("DEATH", 1)),
        ),
        Q(
            781,
            "nurse",
            "How many babies had a temperature below 33 at 24 hours?",
            "count",
            lambda g: _count(_cut(g, "TEMP_24H", "<", 33)),
        ),
        Q(
            782,
            "nurse",
            "How many babies in site 12 were girls?",
            "count",
            lambda g: _count(g.eq("SITE", 12) & g.eq("sex", 2)),
        ),
        Q(
            783,
            "stat",
            "Mean Bayley-III cognitive composite at 18 months in NEOCOOL survivors without cerebral palsy.",
            "number",
            lambda g: g.mean("BAYLEY_COG_18M", g.eq(TR, 1) & g.eq("DEATH", 0) & g.eq("CP_18M", 0)),
        ),
        Q(784, "neo", "mean sodium d2", "number", lambda g: g.mean("Na_48H")),
        Q(
            785,
            "stat",
            "What was the median creatinine on day 3 by HIE grade?",
            "rows",
            lambda g: g.by(SEV, lambda m: g.median("CREAT_72H", m)),
        ),
        Q(
            786,
            "neo",
            "lactate 0h vs 72h change hypotherm cooled",
            "number",
            lambda g: _change(g, "LACT_72H", "LACT_0H", g.eq(TR, 2) & g.eq(ARM, 1)),
        ),
        Q(
            787,
            "stat",
            "Report the proportion with hearing impairment at 18 months among survivors in each trial.",
            "rows_proportion",
            lambda g: g.by(TR, lambda m: g.prop("HEARING_18M", (1,), m & g.eq("DEATH", 0))),
        ),
        Q(
            788,
            "dm",
            "median AGE_RAND_H by TRIAL",
            "rows",
            lambda g: g.by(TR, lambda m: g.median("AGE_RAND_H", m)),
        ),
        Q(
            789,
            "stat",
            "Compare mean FiO2 at 6 hours between outborn and inborn infants.",
            "rows",
            lambda g: g.by("OUTBORN", lambda m: g.mean("FiO2_6h", m)),
        ),
        Q(
            790,
            "stat",
            "What percentage of infants with an aEEG showing a flat trace at randomisation died, by arm?",
            "rows_proportion",
            lambda g: g.by(ARM, lambda m: g.prop("DEATH", (1,), m & g.eq("AEEG_BL", 4))),
        ),
        Q(
            791,
            "nurse",
            "What was the pH of baby NC-02-0048 at 12 hours?",
            "number",
            lambda g: _one(g, "NC-02-0048", "ph_12h"),
        ),
        Q(
            792,
            "nurse",
            "what was the apgar at 1 minute for HT-21-0092",
            "number",
            lambda g: _one(g, "HT-21-0092", "APGAR_1"),
        ),
        Q(
            793,
            "neo",
            "how many w/ both seizures before rand and severe hie",
            "count",
            lambda g: _count(g.eq("SEIZ_BL", 1) & g.eq(SEV, 3)),
        ),
        Q(
            794,
            "stat",
            "Mean core temperature at 84 hours (after rewarming) in the hypothermia arm.",
            "number",
            lambda g: g.mean("TEMP_84H", g.eq(ARM, 1)),
        ),
        Q(
            795, "neo", "mean Bayley motor score at 18 months in HYPOTHERM", "abstain", None
        ),  # NEOCOOL only
        Q(
            796,
            "stat",
            "What percentage of infants had necrotising enterocolitis?",
            "abstain",
            None,
        ),  # no such variable
        Q(797, "neo", "mean heart rate by arm", "abstain", None),  # no time point
        Q(798, "stat", "Compare MRI scores between trials", "abstain", None),  # NEOCOOL only
        Q(799, "neo", "median glucose at 6h by trial", "abstain", None),  # 6 h: NEOCOOL only
        Q(
            800,
            "neo",
            "what % of cooled babies had mild or moderate disability or died",
            "abstain",
            None,
        ),  # 'or' across variables
    ),
    # -- batch 4 (written after batch 3's fixes, before it was run) ---------------------------
    *(
        Q(
            801,
            "neo",
            "avg hr at day 2 in cooled",
            "number",
            lambda g: g.mean("hr_48h", g.eq(ARM, 1)),
        ),
        Q(
            802,
            "neo",
            "temprature 48h std care median",
            "number",
            lambda g: g.median("TEMP_48H", g.eq(ARM, 2)),
        ),
        Q(
            803,
            "stat",
            "What was the mean 72-hour serum potassium by treatment arm?",
            "rows",
            lambda g: g.by(ARM, lambda m: g.mean("K_72H", m)),
        ),
        Q(
            804,
            "neo",
            "% hearing loss at 18m by trial",
            "rows_proportion",
            lambda g: g.by(TR, lambda m: g.prop("HEARING_18M", (1,), m)),
        ),
        Q(
            805,
            "stat",
            "Median birth weight (g) of infants who died, by trial.",
            "rows",
            lambda g: g.by(TR, lambda m: g.median("BWT_g", m & g.eq("DEATH", 1))),
        ),
        Q(
            806,
            "dm",
            "mean TEMP_24H - TEMP_0H by Rand_Arm",
            "rows",
            lambda g: g.by(ARM, lambda m: _change(g, "TEMP_24H", "TEMP_0H", m)),
        ),
        Q(
            807,
            "dm",
            "count(SUBJ_ID) by SITE where TRIAL = 2",
            "rows",
            lambda g: {f"Site {k}": _count(g.eq("SITE", k) & g.eq(TR, 2)) for k in range(13, 22)},
        ),
        Q(
            808,
            "nurse",
            "What was baby NC-01-0180's temperature at 48 hours?",
            "number",
            lambda g: _one(g, "NC-01-0180", "TEMP_48H"),
        ),
        Q(
            809,
            "stat",
            "What proportion of infants had a base deficit of 16 mmol/L or more?",
            "proportion",
            lambda g: (
                int((g.clean("BASE_DEF").dropna() >= 16).sum()),
                int(g.clean("BASE_DEF").notna().sum()),
            ),
        ),
        Q(
            810,
            "stat",
            "Mean serum bilirubin at 72 hours in infants with a birth weight under 3 kg.",
            "number",
            lambda g: g.mean("BILI_72H", _cut(g, "BWT_g", "<", 3000)),
        ),
        Q(811, "neo", "mean map day 1 vs day 3", "abstain", None),  # two values asked, no change
        Q(
            812,
            "stat",
            "Among infants with moderate HIE, compare mortality between arms.",
            "rows_proportion",
            lambda g: g.by(ARM, lambda m: g.prop("DEATH", (1,), m & g.eq(SEV, 2))),
        ),
        Q(813, "neo", "how many NC babies died", "abstain", None),  # 'NC' is no trial's name
        Q(
            814,
            "stat",
            "What was the median Thompson score for tone on day 1?",
            "number",
            lambda g: g.median("NEURO04_D1"),
        ),
        Q(
            815,
            "dm",
            "mean NEURO04_D3 by TRIAL",
            "rows",
            lambda g: g.by(TR, lambda m: g.mean("NEURO04_D3", m)),
        ),
        Q(
            816,
            "stat",
            "What percentage of infants had an Apgar score of 0 at 10 minutes?",
            "proportion",
            lambda g: (
                int((g.clean("apgar10").dropna() == 0).sum()),
                int(g.clean("apgar10").notna().sum()),
            ),
        ),
        Q(
            817,
            "neo",
            "dopamine d1 mean cooled vs std",
            "rows",
            lambda g: g.by(ARM, lambda m: g.mean("DOPA_D1", m)),
        ),
        Q(
            818,
            "stat",
            "How many infants in each arm had a GMFCS level of 4 or 5?",
            "rows",
            lambda g: g.by(ARM, lambda m: _count(m & g.clean("GMFCS_18M").isin([4, 5]))),
        ),
        Q(819, "neo", "mean troponin at 96 h", "abstain", None),  # labs stop at 72 h
        Q(820, "stat", "What percentage of infants had HIE grade 4?", "abstain", None),  # no code 4
        Q(
            821, "stat", "Compare water temperature at 0 h between arms.", "abstain", None
        ),  # from 6 h
        Q(822, "neo", "mean MRI score in HYPOTHERM", "abstain", None),  # NEOCOOL only
        Q(
            823,
            "nurse",
            "How many infants were born at site 21?",
            "count",
            lambda g: _count(g.eq("SITE", 21)),
        ),
        Q(
            824,
            "stat",
            "What was the mean maternal age for mothers of infants with severe HIE?",
            "number",
            lambda g: g.mean("MAT_AGE", g.eq(SEV, 3)),
        ),
    ),
)
