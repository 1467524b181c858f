"""OPEN trial dev set on workbook seed 777 (530 infants x 1,290 variables), gold in pandas.

Batch 1 (ids 701-737) was written 2026-12-01 15:45 UTC on branch ``trial-gen`` before any of
its questions was run; batch 2 (738-770) at 15:50 UTC, after batch 1's fixes, before it ran; batches 3 and 4
(``bench/_open777_batches34.py``) likewise, each after the last one's fixes. In
the voices of the sealed holdouts (neo: neonatologist typing fast, shorthand; stat: trial
statistician with parentheticals and filler; dm: data manager naming columns; nurse: one infant
or a count). It is open development material: used to check that the fixes of the holdouts'
classes of failure generalise to phrasings nobody tuned for. Score it with
``python bench/trial_holdout.py --set open777``.
"""

from __future__ import annotations

from bench._open777_base import (
    ARM,
    SEED,
    SEV,
    SUBJECTS,
    TR,
    VARIABLES,
    _change,
    _count,
    _cut,
    _one,
)
from bench._open777_batches34 import BATCHES_3_4
from bench.trial_gold import Question as Q

__all__ = ["QUESTIONS", "SEED", "SUBJECTS", "VARIABLES"]


QUESTIONS: tuple[Q, ...] = (
    # -- neonatologist typing fast ------------------------------------------------------------
    Q(
        701,
        "neo",
        "mortality cooled vs std care",
        "rows_proportion",
        lambda g: g.by(ARM, lambda m: g.prop("DEATH", (1,), m)),
    ),
    Q(
        702,
        "neo",
        "avg temp 48h in normothermia grp",
        "number",
        lambda g: g.mean("TEMP_48H", g.eq(ARM, 2)),
    ),
    Q(
        703,
        "neo",
        "median plt 24h severe hie",
        "number",
        lambda g: g.median("PLT_24H", g.eq(SEV, 3)),
    ),
    Q(
        704,
        "neo",
        "how many died w/ severe hie in neocool",
        "count",
        lambda g: _count(g.eq("DEATH", 1) & g.eq(SEV, 3) & g.eq(TR, 1)),
    ),
    Q(705, "neo", "na at 72h by trial", "rows", lambda g: g.by(TR, lambda m: g.mean("Na_72H", m))),
    Q(
        706,
        "neo",
        "spo2 at 12h cooled babies",
        "number",
        lambda g: g.mean("SpO2_12h", g.eq(ARM, 1)),
    ),
    Q(
        707,
        "neo",
        "lactate change 0 to 24h in hypotherm",
        "number",
        lambda g: _change(g, "LACT_24H", "LACT_0H", g.eq(TR, 2)),
    ),
    Q(
        708,
        "neo",
        "pct with seizures in first 72h by hie grade",
        "rows_proportion",
        lambda g: g.by(SEV, lambda m: g.prop("SEIZ_72H", (1,), m)),
    ),
    Q(
        709,
        "neo",
        "pH 0h vs 72h mean change, cooled only",
        "number",
        lambda g: _change(g, "ph_72h", "ph_0h", g.eq(ARM, 1)),
    ),
    # -- trial statistician -------------------------------------------------------------------
    Q(
        710,
        "stat",
        "What proportion of infants with moderate HIE (grade 2) died before 18 months, by trial?",
        "rows_proportion",
        lambda g: g.by(TR, lambda m: g.prop("DEATH", (1,), m & g.eq(SEV, 2))),
    ),
    Q(
        711,
        "stat",
        "Mean birth weight (grams) in the hypothermia arm, excluding missing values.",
        "number",
        lambda g: g.mean("BWT_g", g.eq(ARM, 1)),
    ),
    Q(
        712,
        "stat",
        "What was the median age at randomisation (hours) for outborn infants?",
        "number",
        lambda g: g.median("AGE_RAND_H", g.eq("OUTBORN", 1)),
    ),
    Q(
        713,
        "stat",
        "Among infants with a cord pH below 7.0, what percentage had severe HIE?",
        "proportion",
        lambda g: g.prop(SEV, (3,), _cut(g, "CORD_PH", "<", 7.0)),
    ),
    Q(
        714,
        "stat",
        "Mean Bayley-III motor composite score at 18 months by treatment arm (NEOCOOL only).",
        "rows",
        lambda g: g.by(ARM, lambda m: g.mean("BAYLEY_MOT_18M", m & g.eq(TR, 1))),
    ),
    Q(
        715,
        "stat",
        "Compare the mean arterial pressure at 12 hours between the cooled and standard care groups.",
        "rows",
        lambda g: g.by(ARM, lambda m: g.mean("map_h12", m)),
    ),
    Q(
        716,
        "stat",
        "What percentage of infants with a birth weight of at least 4000 g were delivered by emergency caesarean section?",
        "proportion",
        lambda g: g.prop("DELIV_MODE", (3,), _cut(g, "BWT_g", ">=", 4000)),
    ),
    Q(
        717,
        "stat",
        "Mean heart rate at 24 h in infants with a gestational age of 40 weeks or more.",
        "number",
        lambda g: g.mean("hr_24h", _cut(g, "GA_WKS", ">=", 40)),
    ),
    Q(
        718,
        "stat",
        "Overall, what proportion of infants reached the primary outcome (death or moderate/severe disability)?",
        "proportion",
        lambda g: g.prop("PRIM_OUT", (1,)),
    ),
    Q(
        719,
        "stat",
        "Was the rate of cerebral palsy at 18 months lower in the hypothermia arm? Report the percentage in each arm.",
        "rows_proportion",
        lambda g: g.by(ARM, lambda m: g.prop("CP_18M", (1,), m)),
    ),
    Q(
        720,
        "stat",
        "How many infants were born before 36 weeks' gestation?",
        "count",
        lambda g: _count(_cut(g, "GA_WKS", "<", 36)),
    ),
    Q(
        721,
        "stat",
        "Among survivors, what percentage had hearing impairment at 18 months (unknown excluded)?",
        "proportion",
        lambda g: g.prop("HEARING_18M", (1,), g.eq("DEATH", 0)),
    ),
    # -- data manager -------------------------------------------------------------------------
    Q(
        722,
        "dm",
        "count SUBJ_ID where SEIZ_BL = 1 and Rand_Arm = 1",
        "count",
        lambda g: _count(g.eq("SEIZ_BL", 1) & g.eq(ARM, 1)),
    ),
    Q(
        723,
        "dm",
        "mean CREAT_72H by TRIAL",
        "rows",
        lambda g: g.by(TR, lambda m: g.mean("CREAT_72H", m)),
    ),
    Q(
        724,
        "dm",
        "median LOS_DAYS where HIE_GRADE = 3",
        "number",
        lambda g: g.median("LOS_DAYS", g.eq(SEV, 3)),
    ),
    Q(
        725,
        "dm",
        "TEMP_0H for SUBJ_ID NC-05-0035",
        "number",
        lambda g: _one(g, "NC-05-0035", "TEMP_0H"),
    ),
    Q(
        726,
        "dm",
        "percentage HEARING_18M = 1 by Rand_Arm",
        "rows_proportion",
        lambda g: g.by(ARM, lambda m: g.prop("HEARING_18M", (1,), m)),
    ),
    Q(727, "dm", "mean ph_24h where TRIAL = 1", "number", lambda g: g.mean("ph_24h", g.eq(TR, 1))),
    # -- research nurse -----------------------------------------------------------------------
    Q(
        728,
        "nurse",
        "What was the birth weight of baby NC-02-0032?",
        "number",
        lambda g: _one(g, "NC-02-0032", "BWT_g"),
    ),
    Q(
        729,
        "nurse",
        "How many babies were born by elective caesarean?",
        "count",
        lambda g: _count(g.eq("DELIV_MODE", 4)),
    ),
    Q(
        730,
        "nurse",
        "How many infants had a heart rate over 160 at 6 hours?",
        "count",
        lambda g: _count(_cut(g, "hr_6h", ">", 160)),
    ),
    Q(
        731, "nurse", "What was the MRI score of NC-02-0247?", "abstain", None
    ),  # -88: not applicable
    # -- honest abstentions -------------------------------------------------------------------
    Q(732, "neo", "mean lactate at 24h in NEOCOOL", "abstain", None),  # HYPOTHERM only
    Q(
        733,
        "stat",
        "Compare the Bayley cognitive score at 24 months between the two trials.",
        "abstain",
        None,
    ),  # HYPOTHERM only
    Q(734, "neo", "avg EEG seizure burden by arm", "abstain", None),  # no such variable
    Q(735, "neo", "mean temperature by arm", "abstain", None),  # no time point
    Q(
        736, "stat", "What was the mean serum sodium at 96 hours?", "abstain", None
    ),  # labs stop at 72 h
    Q(
        737, "nurse", "What was the median head circumference at birth?", "abstain", None
    ),  # no such variable
    # -- batch 2 (written after batch 1's fixes, before it was run) ---------------------------
    *(
        Q(
            738,
            "neo",
            "% outborn in each trial",
            "rows_proportion",
            lambda g: g.by(TR, lambda m: g.prop("OUTBORN", (1,), m)),
        ),
        Q(
            739,
            "neo",
            "mean map 6h cooled v normothermia",
            "rows",
            lambda g: g.by(ARM, lambda m: g.mean("map_h6", m)),
        ),
        Q(
            740,
            "neo",
            "median bw girls vs boys",
            "rows",
            lambda g: g.by("sex", lambda m: g.median("BWT_g", m)),
        ),
        Q(
            741,
            "neo",
            "inotropes in severe hie, %",
            "proportion",
            lambda g: g.prop("INOTROPES", (1,), g.eq(SEV, 3)),
        ),
        Q(
            742,
            "neo",
            "sz before rand by arm %",
            "rows_proportion",
            lambda g: g.by(ARM, lambda m: g.prop("SEIZ_BL", (1,), m)),
        ),
        Q(
            743,
            "neo",
            "deaths in site 4",
            "count",
            lambda g: _count(g.eq("DEATH", 1) & g.eq("SITE", 4)),
        ),
        Q(
            744,
            "stat",
            "Report the median Apgar score at 10 minutes by HIE grade (mild, moderate, severe).",
            "rows",
            lambda g: g.by(SEV, lambda m: g.median("apgar10", m)),
        ),
        Q(
            745,
            "stat",
            "Among infants with burst suppression on the baseline aEEG, what percentage died?",
            "proportion",
            lambda g: g.prop("DEATH", (1,), g.eq("AEEG_BL", 3)),
        ),
        Q(
            746,
            "stat",
            "What was the mean serum sodium at 48 hours in infants with seizures during the first 72 hours, by treatment arm?",
            "rows",
            lambda g: g.by(ARM, lambda m: g.mean("Na_48H", m & g.eq("SEIZ_72H", 1))),
        ),
        Q(
            747,
            "stat",
            "Compare the median length of hospital stay (days) between the two arms among survivors.",
            "rows",
            lambda g: g.by(ARM, lambda m: g.median("LOS_DAYS", m & g.eq("DEATH", 0))),
        ),
        Q(
            748,
            "stat",
            "What percentage of infants with a 5-minute Apgar score of 3 or less had severe HIE?",
            "proportion",
            lambda g: g.prop(SEV, (3,), _cut(g, "APGAR_5", "<=", 3)),
        ),
        Q(
            749,
            "stat",
            "Mean change in heart rate between 6 and 48 hours in the standard care arm (complete cases).",
            "number",
            lambda g: _change(g, "hr_48h", "hr_6h", g.eq(ARM, 2)),
        ),
        Q(
            750,
            "stat",
            "Proportion of infants with moderate or severe disability at 18 months by trial (denominator: infants with known outcome).",
            "rows_proportion",
            lambda g: g.by(TR, lambda m: g.prop("DISAB_LEVEL", (2, 3), m)),
        ),
        Q(
            751,
            "dm",
            "select count(*) where OUTBORN=1 and TRIAL=1",
            "count",
            lambda g: _count(g.eq("OUTBORN", 1) & g.eq(TR, 1)),
        ),
        Q(
            752,
            "dm",
            "avg(GA_WKS) group by SITE",
            "rows",
            lambda g: g.by("SITE", lambda m: g.mean("GA_WKS", m)),
        ),
        Q(
            753,
            "dm",
            "how many DEATH = 1 per Rand_Arm",
            "rows",
            lambda g: g.by(ARM, lambda m: _count(m & g.eq("DEATH", 1))),
        ),
        Q(
            754,
            "dm",
            "SpO2_24h mean for Rand_Arm=1",
            "number",
            lambda g: g.mean("SpO2_24h", g.eq(ARM, 1)),
        ),
        Q(
            755,
            "dm",
            "median BWT_g where sex = 2",
            "number",
            lambda g: g.median("BWT_g", g.eq("sex", 2)),
        ),
        Q(
            756,
            "dm",
            "proportion PRIM_OUT=1 where HIE_GRADE=2 by TRIAL",
            "rows_proportion",
            lambda g: g.by(TR, lambda m: g.prop("PRIM_OUT", (1,), m & g.eq(SEV, 2))),
        ),
        Q(
            757,
            "nurse",
            "What was the core temperature of infant HT-21-0092 at 24 hours?",
            "number",
            lambda g: _one(g, "HT-21-0092", "TEMP_24H"),
        ),
        Q(
            758,
            "nurse",
            "What was the GA of NC-01-0180?",
            "number",
            lambda g: _one(g, "NC-01-0180", "GA_WKS"),
        ),
        Q(
            759,
            "nurse",
            "How many babies in the cooled group needed mechanical ventilation for more than 7 days?",
            "count",
            lambda g: _count(_cut(g, "VENT_DAYS", ">", 7) & g.eq(ARM, 1)),
        ),
        Q(
            760,
            "nurse",
            "How many infants weighed over 4 kg at birth?",
            "count",
            lambda g: _count(_cut(g, "BWT_g", ">", 4000)),
        ),
        Q(761, "neo", "mean lactate at 24h by trial", "abstain", None),  # HYPOTHERM only
        Q(
            762,
            "stat",
            "What was the mean Bayley-III language score at 24 months?",
            "abstain",
            None,
        ),  # 18 months only
        Q(763, "neo", "avg temp in cooled arm at 120h", "abstain", None),  # vitals stop at 96 h
        Q(764, "dm", "mean EEG_GRADE by arm", "abstain", None),  # no such column
        Q(
            765,
            "stat",
            "What percentage of infants had a seizure recurrence after rewarming?",
            "abstain",
            None,
        ),  # no such variable
        Q(
            766,
            "nurse",
            "What was the blood glucose of baby NC-02-0048 at 6 hours?",
            "number",
            lambda g: _one(g, "NC-02-0048", "Gluc6h"),
        ),
        Q(
            767,
            "nurse",
            "What was the blood glucose of baby HT-21-0092 at 6 hours?",
            "abstain",
            None,
        ),  # not collected in HYPOTHERM
        Q(
            768,
            "stat",
            "In infants randomised after 5 hours of age, what percentage died?",
            "proportion",
            lambda g: g.prop("DEATH", (1,), _cut(g, "AGE_RAND_H", ">", 5)),
        ),
        Q(
            769,
            "neo",
            "mortality by grade",
            "rows_proportion",
            lambda g: g.by(SEV, lambda m: g.prop("DEATH", (1,), m)),
        ),
        Q(
            770,
            "stat",
            "What was the median number of days of mechanical ventilation in survivors, cooled versus standard care?",
            "rows",
            lambda g: g.by(ARM, lambda m: g.median("VENT_DAYS", m & g.eq("DEATH", 0))),
        ),
    ),
    *BATCHES_3_4,
)
