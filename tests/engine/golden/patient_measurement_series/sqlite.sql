WITH cohort AS (
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
    m0.code,
    m0.sys,
    m0.unit,
    m0.lbl,
    m0.val AS val
  FROM (
    SELECT
      s1.person_id AS pid,
      s1.visit_occurrence_id AS eid,
      s1.measurement_date AS t,
      NULL AS t_end,
      s1.measurement_concept_id AS code,
      'omop' AS sys,
      s1.value_as_number AS val,
      s1.unit_source_value AS unit,
      NULL AS days_supply,
      NULL AS quantity,
      NULL AS lbl
    FROM measurement AS s1
    WHERE
      NOT s1.person_id IS NULL
  ) AS m0
  WHERE
    m0.pid IN (
      SELECT
        pid
      FROM cohort
    )
)
SELECT DISTINCT
  COALESCE(
    (
      SELECT
        MAX(dl2.concept_name)
      FROM concept AS dl2
      WHERE
        dl2.concept_id = e.code
    ),
    CAST(e.code AS TEXT)
  ) AS value
FROM ev AS e
WHERE
  NOT e.code IS NULL
ORDER BY
  value NULLS LAST
