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
          s0.drug_exposure_start_date AS t,
          s0.drug_exposure_end_date AS t_end,
          s0.drug_concept_id AS code,
          'omop' AS sys,
          NULL AS val,
          NULL AS unit,
          s0.days_supply AS days_supply,
          s0.quantity AS quantity,
          NULL AS lbl
        FROM drug_exposure AS s0
        WHERE
          s0.drug_concept_id IN (1118084) AND NOT s0.person_id IS NULL
      ) AS e1
      LEFT JOIN (
        SELECT
          r2.person_id AS pid,
          MIN(CAST(r2.observation_period_start_date AS DATE)) AS d
        FROM observation_period AS r2
        GROUP BY
          r2.person_id
      ) AS a3
        ON a3.pid = e1.pid
      WHERE
        CAST(e1.t AS DATE) >= a3.d AND CAST(e1.t AS DATE) <= a3.d + 365
    )
)
SELECT
  COUNT(*) AS value
FROM cohort
