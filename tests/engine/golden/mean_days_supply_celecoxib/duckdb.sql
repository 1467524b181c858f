WITH cohort AS (
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
    m0.days_supply AS val
  FROM (
    SELECT
      s1.person_id AS pid,
      s1.visit_occurrence_id AS eid,
      s1.drug_exposure_start_date AS t,
      s1.drug_exposure_end_date AS t_end,
      s1.drug_concept_id AS code,
      'omop' AS sys,
      NULL AS val,
      NULL AS unit,
      s1.days_supply AS days_supply,
      s1.quantity AS quantity,
      NULL AS lbl
    FROM drug_exposure AS s1
    WHERE
      s1.drug_concept_id IN (1118084) AND NOT s1.person_id IS NULL
  ) AS m0
  WHERE
    m0.pid IN (
      SELECT
        pid
      FROM cohort
    )
), vals AS (
  SELECT
    e.val AS val
  FROM ev AS e
  WHERE
    NOT e.val IS NULL
)
SELECT
  AVG(CAST(n2.val AS DOUBLE)) AS value
FROM vals AS n2
