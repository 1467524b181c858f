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
      WHERE
        CAST(e1.t AS DATE) >= CAST('2010-01-01' AS DATE)
        AND CAST(e1.t AS DATE) <= CAST('2019-12-31' AS DATE)
    )
)
SELECT
  COUNT(*) AS value
FROM cohort
