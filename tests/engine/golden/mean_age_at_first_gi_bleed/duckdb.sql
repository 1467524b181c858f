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
    )
)
SELECT
  AVG(CAST(n6.val AS DOUBLE)) AS value
FROM (
  SELECT
    CAST(YEAR(a4.d) AS INT) - CAST(YEAR(CAST(b5.birth_datetime AS DATE)) AS INT) - CASE
      WHEN CAST(MONTH(a4.d) AS INT) * 100 + CAST(DAY(a4.d) AS INT) < CAST(MONTH(CAST(b5.birth_datetime AS DATE)) AS INT) * 100 + CAST(DAY(CAST(b5.birth_datetime AS DATE)) AS INT)
      THEN 1
      ELSE 0
    END AS val
  FROM cohort AS c
  LEFT JOIN (
    SELECT
      r3.pid AS pid,
      MIN(CAST(r3.t AS DATE)) AS d
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
    ) AS r3
    GROUP BY
      r3.pid
  ) AS a4
    ON a4.pid = c.pid
  LEFT JOIN person AS b5
    ON b5.person_id = c.pid
) AS n6
