WITH cohort AS (
  SELECT
    p.person_id AS pid
  FROM person AS p
  WHERE
    p.person_id IN (
      SELECT
        e1.pid
      FROM (
        SELECT
          s0.person_id AS pid,
          s0.visit_occurrence_id AS eid,
          s0.condition_start_date AS t,
          s0.condition_end_date AS t_end,
          s0.condition_concept_id AS code,
          'omop' AS sys,
          NULL AS val,
          NULL AS unit,
          NULL AS days_supply,
          NULL AS quantity,
          NULL AS lbl
        FROM condition_occurrence AS s0
        WHERE
          s0.condition_concept_id IN (192671) AND NOT s0.person_id IS NULL
      ) AS e1
    )
)
SELECT
  CASE
    WHEN b2.gender_concept_id = 8507
    THEN 'male'
    WHEN b2.gender_concept_id = 8532
    THEN 'female'
    WHEN b2.gender_concept_id = 8521
    THEN 'other'
    WHEN b2.gender_concept_id = 8551
    THEN 'unknown'
    ELSE 'unknown'
  END AS sex,
  COUNT(DISTINCT e.pid) AS value
FROM cohort AS e
LEFT JOIN person AS b2
  ON b2.person_id = e.pid
GROUP BY
  sex
ORDER BY
  sex
