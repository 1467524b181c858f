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
    )
)
SELECT
  (
    SELECT
      COUNT(*)
    FROM cohort AS cn
    WHERE
      cn.pid IN (
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
        LEFT JOIN (
          SELECT
            r5.pid AS pid,
            MIN(CAST(r5.t AS DATE)) AS d
          FROM (
            SELECT
              s4.person_id AS pid,
              s4.visit_occurrence_id AS eid,
              s4.drug_exposure_start_date AS t,
              s4.drug_exposure_end_date AS t_end,
              s4.drug_concept_id AS code,
              'omop' AS sys,
              NULL AS val,
              NULL AS unit,
              s4.days_supply AS days_supply,
              s4.quantity AS quantity,
              NULL AS lbl
            FROM drug_exposure AS s4
            WHERE
              s4.drug_concept_id IN (1118084) AND NOT s4.person_id IS NULL
          ) AS r5
          GROUP BY
            r5.pid
        ) AS a6
          ON a6.pid = e3.pid
        WHERE
          CAST(e3.t AS DATE) >= a6.d
      )
  ) AS numerator,
  COUNT(*) AS denominator
FROM cohort AS c
