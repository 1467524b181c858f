WITH cohort AS NOT MATERIALIZED (
  SELECT
    p.person_id AS pid
  FROM person AS p
  WHERE
    p.person_id = 6
), ev AS (
  SELECT
    m0.pid,
    m0.eid,
    m0.t,
    m0.t_end,
    m0.etype,
    CAST(m0.t_end AS DATE) - CAST(m0.t AS DATE) AS val,
    NULL AS code,
    NULL AS sys,
    NULL AS unit,
    NULL AS lbl
  FROM (
    SELECT
      v1.visit_occurrence_id AS eid,
      v1.person_id AS pid,
      v1.visit_start_date AS t,
      v1.visit_end_date AS t_end,
      CASE
        WHEN v1.visit_concept_id = 262
        THEN 'inpatient'
        WHEN v1.visit_concept_id = 5083
        THEN 'outpatient'
        WHEN v1.visit_concept_id = 8717
        THEN 'inpatient'
        WHEN v1.visit_concept_id = 8756
        THEN 'outpatient'
        WHEN v1.visit_concept_id = 8782
        THEN 'other'
        WHEN v1.visit_concept_id = 8870
        THEN 'emergency'
        WHEN v1.visit_concept_id = 8920
        THEN 'inpatient'
        WHEN v1.visit_concept_id = 8971
        THEN 'inpatient'
        WHEN v1.visit_concept_id = 9201
        THEN 'inpatient'
        WHEN v1.visit_concept_id = 9202
        THEN 'outpatient'
        WHEN v1.visit_concept_id = 9203
        THEN 'emergency'
        WHEN v1.visit_concept_id = 32036
        THEN 'other'
        WHEN v1.visit_concept_id = 32037
        THEN 'icu'
        WHEN v1.visit_concept_id = 32761
        THEN 'other'
        WHEN v1.visit_concept_id = 581379
        THEN 'icu'
        WHEN v1.visit_concept_id = 581476
        THEN 'other'
        WHEN v1.visit_concept_id = 581477
        THEN 'outpatient'
        WHEN v1.visit_concept_id = 581478
        THEN 'other'
        WHEN v1.visit_concept_id = 38004207
        THEN 'outpatient'
        WHEN v1.visit_concept_id = 42898160
        THEN 'other'
        ELSE 'other'
      END AS etype
    FROM visit_occurrence AS v1
  ) AS m0
  WHERE
    m0.pid IN (
      SELECT
        pid
      FROM cohort
    )
)
SELECT
  COUNT(DISTINCT e.eid) AS value
FROM ev AS e
