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
    AND NOT EXISTS(
      SELECT
        1
      FROM (
        SELECT
          e3.pid
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
            s2.drug_concept_id IN (1124300) AND NOT s2.person_id IS NULL
        ) AS e3
      ) AS nx4
      WHERE
        nx4.pid = p.person_id
    )
)
SELECT
  COUNT(*) AS value
FROM cohort
