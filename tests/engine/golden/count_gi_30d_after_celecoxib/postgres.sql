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
      LEFT JOIN (
        SELECT
          r3.pid AS pid,
          MIN(CAST(r3.t AS DATE)) AS d
        FROM (
          SELECT
            s2.person_id AS pid,
            s2.visit_occurrence_id AS eid,
            s2.drug_exposure_start_date AS t,
            s2.drug_exposure_end_date AS t_end,
            s2.drug_concept_id AS code,
            'omop' AS sys,
            NULL AS val,
            NULL AS unit,
            s2.days_supply AS days_supply,
            s2.quantity AS quantity,
            NULL AS lbl
          FROM drug_exposure AS s2
          WHERE
            s2.drug_concept_id IN (1118084) AND NOT s2.person_id IS NULL
        ) AS r3
        GROUP BY
          r3.pid
      ) AS a4
        ON a4.pid = e1.pid
      WHERE
        CAST(e1.t AS DATE) >= a4.d AND CAST(e1.t AS DATE) <= a4.d + 30
    )
)
SELECT
  COUNT(*) AS value
FROM cohort
