WITH cohort AS (
  SELECT
    p.person_id AS pid
  FROM person AS p
  WHERE
    p.person_id IN (
      SELECT
        q0.person_id
      FROM person AS q0
      LEFT JOIN person AS b1
        ON b1.person_id = q0.person_id
      WHERE
        b1.gender_concept_id IN (8532)
    )
    AND p.person_id IN (
      SELECT
        e3.pid
      FROM (
        SELECT
          s2.person_id AS pid,
          s2.visit_occurrence_id AS eid,
          s2.condition_start_date AS t,
          s2.condition_end_date AS t_end,
          s2.condition_concept_id AS code,
          'omop' AS sys,
          NULL AS val,
          NULL AS unit,
          NULL AS days_supply,
          NULL AS quantity,
          NULL AS lbl
        FROM condition_occurrence AS s2
        WHERE
          s2.condition_concept_id IN (192671) AND NOT s2.person_id IS NULL
      ) AS e3
    )
)
SELECT
  COUNT(*) AS value
FROM cohort
