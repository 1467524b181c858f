WITH cohort AS (
  SELECT
    p.person_id AS pid
  FROM person AS p
  WHERE
    p.person_id IN (
      SELECT
        q0.person_id
      FROM person AS q0
      LEFT JOIN person AS b1
        ON b1.person_id = q0.person_id
      WHERE
        CAST(STRFTIME('%Y', '2019-07-01') AS INTEGER) - CAST(STRFTIME('%Y', DATE(b1.birth_datetime)) AS INTEGER) - CASE
          WHEN CAST(STRFTIME('%m', '2019-07-01') AS INTEGER) * 100 + CAST(STRFTIME('%d', '2019-07-01') AS INTEGER) < CAST(STRFTIME('%m', DATE(b1.birth_datetime)) AS INTEGER) * 100 + CAST(STRFTIME('%d', DATE(b1.birth_datetime)) AS INTEGER)
          THEN 1
          ELSE 0
        END > 60
    )
)
SELECT
  COUNT(*) AS value
FROM cohort
