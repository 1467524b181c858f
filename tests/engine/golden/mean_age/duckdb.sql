WITH cohort AS (
  SELECT
    p.person_id AS pid
  FROM person AS p
)
SELECT
  AVG(CAST(n1.val AS DOUBLE)) AS value
FROM (
  SELECT
    CAST(YEAR(CAST('2019-07-01' AS DATE)) AS INT) - CAST(YEAR(CAST(b0.birth_datetime AS DATE)) AS INT) - CASE
      WHEN CAST(MONTH(CAST('2019-07-01' AS DATE)) AS INT) * 100 + CAST(DAY(CAST('2019-07-01' AS DATE)) AS INT) < CAST(MONTH(CAST(b0.birth_datetime AS DATE)) AS INT) * 100 + CAST(DAY(CAST(b0.birth_datetime AS DATE)) AS INT)
      THEN 1
      ELSE 0
    END AS val
  FROM cohort AS c
  LEFT JOIN person AS b0
    ON b0.person_id = c.pid
) AS n1
