WITH cohort AS NOT MATERIALIZED (
  SELECT
    p.person_id AS pid
  FROM person AS p
  WHERE
    p.person_id IN (
      SELECT
        e1.pid
      FROM (
        SELECT
          v0.visit_occurrence_id AS eid,
          v0.person_id AS pid,
          v0.visit_start_date AS t,
          v0.visit_end_date AS t_end,
          CASE
            WHEN v0.visit_concept_id = 262
            THEN 'inpatient'
            WHEN v0.visit_concept_id = 5083
            THEN 'outpatient'
            WHEN v0.visit_concept_id = 8717
            THEN 'inpatient'
            WHEN v0.visit_concept_id = 8756
            THEN 'outpatient'
            WHEN v0.visit_concept_id = 8782
            THEN 'other'
            WHEN v0.visit_concept_id = 8870
            THEN 'emergency'
            WHEN v0.visit_concept_id = 8920
            THEN 'inpatient'
            WHEN v0.visit_concept_id = 8971
            THEN 'inpatient'
            WHEN v0.visit_concept_id = 9201
            THEN 'inpatient'
            WHEN v0.visit_concept_id = 9202
            THEN 'outpatient'
            WHEN v0.visit_concept_id = 9203
            THEN 'emergency'
            WHEN v0.visit_concept_id = 32036
            THEN 'other'
            WHEN v0.visit_concept_id = 32037
            THEN 'icu'
            WHEN v0.visit_concept_id = 32761
            THEN 'other'
            WHEN v0.visit_concept_id = 581379
            THEN 'icu'
            WHEN v0.visit_concept_id = 581476
            THEN 'other'
            WHEN v0.visit_concept_id = 581477
            THEN 'outpatient'
            WHEN v0.visit_concept_id = 581478
            THEN 'other'
            WHEN v0.visit_concept_id = 38004207
            THEN 'outpatient'
            WHEN v0.visit_concept_id = 42898160
            THEN 'other'
            ELSE 'other'
          END AS etype
        FROM visit_occurrence AS v0
        WHERE
          v0.visit_concept_id IN (262, 8717, 8920, 8971, 9201)
      ) AS e1
    )
)
SELECT
  COUNT(*) AS value
FROM cohort
