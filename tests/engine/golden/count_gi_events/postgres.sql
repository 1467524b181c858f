WITH cohort AS NOT MATERIALIZED (
  SELECT
    p.person_id AS pid
  FROM person AS p
), ev AS (
  SELECT
    m0.pid,
    m0.eid,
    m0.t,
    m0.t_end,
    m0.code,
    m0.sys,
    m0.unit,
    m0.lbl,
    m0.val AS val
  FROM (
    SELECT
      s1.person_id AS pid,
      s1.visit_occurrence_id AS eid,
      s1.condition_start_date AS t,
      s1.condition_end_date AS t_end,
      s1.condition_concept_id AS code,
      'omop' AS sys,
      NULL AS val,
      NULL AS unit,
      NULL AS days_supply,
      NULL AS quantity,
      NULL AS lbl
    FROM condition_occurrence AS s1
    WHERE
      s1.condition_concept_id IN (192671) AND NOT s1.person_id IS NULL
  ) AS m0
  WHERE
    m0.pid IN (
      SELECT
        pid
      FROM cohort
    )
)
SELECT
  COUNT(*) AS value
FROM ev AS e
