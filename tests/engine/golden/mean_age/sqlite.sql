WITH cohort AS (
  SELECT
    p.person_id AS pid
  FROM person AS p
)
SELECT
  AVG(CAST(n1.val AS REAL)) AS value
FROM (
  SELECT
    CAST(STRFTIME('%Y', '2019-07-01') AS INTEGER) - CAST(STRFTIME('%Y', DATE(b0.birth_datetime)) AS INTEGER) - CASE
      WHEN CAST(STRFTIME('%m', '2019-07-01') AS INTEGER) * 100 + CAST(STRFTIME('%d', '2019-07-01') AS INTEGER) < CAST(STRFTIME('%m', DATE(b0.birth_datetime)) AS INTEGER) * 100 + CAST(STRFTIME('%d', DATE(b0.birth_datetime)) AS INTEGER)
      THEN 1
      ELSE 0
    END AS val
  FROM cohort AS c
  LEFT JOIN person AS b0
    ON b0.person_id = c.pid
) AS n1
