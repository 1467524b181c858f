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
  AVG(CAST(md5.v AS REAL)) AS value
FROM (
  SELECT
    md4.val AS v,
    ROW_NUMBER() OVER (ORDER BY md4.val NULLS LAST) AS rn,
    COUNT(*) OVER () AS cnt
  FROM (
    SELECT
      CAST(STRFTIME('%Y', '2019-07-01') AS INTEGER) - CAST(STRFTIME('%Y', DATE(b2.birth_datetime)) AS INTEGER) - CASE
        WHEN CAST(STRFTIME('%m', '2019-07-01') AS INTEGER) * 100 + CAST(STRFTIME('%d', '2019-07-01') AS INTEGER) < CAST(STRFTIME('%m', DATE(b2.birth_datetime)) AS INTEGER) * 100 + CAST(STRFTIME('%d', DATE(b2.birth_datetime)) AS INTEGER)
        THEN 1
        ELSE 0
      END AS val
    FROM cohort AS c
    LEFT JOIN person AS b2
      ON b2.person_id = c.pid
  ) AS md4
  WHERE
    NOT md4.val IS NULL
) AS md5
WHERE
  md5.rn * 2 >= md5.cnt AND md5.rn * 2 <= md5.cnt + 2
