WITH cohort AS (
  SELECT
    p.person_id AS pid
  FROM person AS p
  WHERE
    p.person_id = 123
), scope_enc AS (
  SELECT
    w2.eid,
    w2.pid,
    w2.t,
    w2.t_end
  FROM (
    SELECT
      v1.eid,
      v1.pid,
      v1.t,
      v1.t_end,
      ROW_NUMBER() OVER (PARTITION BY v1.pid ORDER BY v1.t DESC, v1.eid DESC) AS rn
    FROM (
      SELECT
        v0.visit_occurrence_id AS eid,
        v0.person_id AS pid,
        v0.visit_start_date AS t,
        v0.visit_end_date AS t_end,
        CASE
          WHEN v0.visit_concept_id = 262
          THEN 'inpatient'
          WHEN v0.visit_concept_id = 5083
          THEN 'outpatient'
          WHEN v0.visit_concept_id = 8717
          THEN 'inpatient'
          WHEN v0.visit_concept_id = 8756
          THEN 'outpatient'
          WHEN v0.visit_concept_id = 8782
          THEN 'other'
          WHEN v0.visit_concept_id = 8870
          THEN 'emergency'
          WHEN v0.visit_concept_id = 8920
          THEN 'inpatient'
          WHEN v0.visit_concept_id = 8971
          THEN 'inpatient'
          WHEN v0.visit_concept_id = 9201
          THEN 'inpatient'
          WHEN v0.visit_concept_id = 9202
          THEN 'outpatient'
          WHEN v0.visit_concept_id = 9203
          THEN 'emergency'
          WHEN v0.visit_concept_id = 32036
          THEN 'other'
          WHEN v0.visit_concept_id = 32037
          THEN 'icu'
          WHEN v0.visit_concept_id = 32761
          THEN 'other'
          WHEN v0.visit_concept_id = 581379
          THEN 'icu'
          WHEN v0.visit_concept_id = 581476
          THEN 'other'
          WHEN v0.visit_concept_id = 581477
          THEN 'outpatient'
          WHEN v0.visit_concept_id = 581478
          THEN 'other'
          WHEN v0.visit_concept_id = 38004207
          THEN 'outpatient'
          WHEN v0.visit_concept_id = 42898160
          THEN 'other'
          ELSE 'other'
        END AS etype
      FROM visit_occurrence AS v0
      WHERE
        v0.visit_concept_id IN (262, 8717, 8920, 8971, 9201)
    ) AS v1
    WHERE
      v1.pid IN (
        SELECT
          pid
        FROM cohort
      ) AND NOT v1.t_end IS NULL
  ) AS w2
  WHERE
    w2.rn = 1
), ev AS (
  SELECT
    m3.pid,
    m3.eid,
    m3.t,
    m3.t_end,
    m3.code,
    m3.sys,
    m3.unit,
    m3.lbl,
    m3.val AS val
  FROM (
    SELECT
      s4.person_id AS pid,
      s4.visit_occurrence_id AS eid,
      s4.condition_start_date AS t,
      s4.condition_end_date AS t_end,
      s4.condition_concept_id AS code,
      'omop' AS sys,
      NULL AS val,
      NULL AS unit,
      NULL AS days_supply,
      NULL AS quantity,
      NULL AS lbl
    FROM condition_occurrence AS s4
    WHERE
      NOT s4.person_id IS NULL
  ) AS m3
  WHERE
    m3.pid IN (
      SELECT
        pid
      FROM cohort
    )
    AND (
      m3.eid IN (
        SELECT
          se6.eid
        FROM scope_enc AS se6
      )
      OR (
        m3.eid IS NULL
        AND EXISTS(
          SELECT
            1
          FROM scope_enc AS sc5
          WHERE
            sc5.pid = m3.pid
            AND CAST(m3.t AS DATE) >= CAST(sc5.t AS DATE)
            AND CAST(m3.t AS DATE) <= CAST(COALESCE(sc5.t_end, sc5.t) AS DATE)
        )
      )
    )
)
SELECT DISTINCT
  COALESCE(
    (
      SELECT
        MAX(dl7.concept_name)
      FROM concept AS dl7
      WHERE
        dl7.concept_id = e.code
    ),
    CAST(e.code AS TEXT)
  ) AS value
FROM ev AS e
WHERE
  NOT e.code IS NULL
ORDER BY
  value
