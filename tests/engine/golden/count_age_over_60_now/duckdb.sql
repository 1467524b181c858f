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
        CAST(YEAR(CAST('2019-07-01' AS DATE)) AS INT) - CAST(YEAR(CAST(b1.birth_datetime AS DATE)) AS INT) - CASE
          WHEN CAST(MONTH(CAST('2019-07-01' AS DATE)) AS INT) * 100 + CAST(DAY(CAST('2019-07-01' AS DATE)) AS INT) < CAST(MONTH(CAST(b1.birth_datetime AS DATE)) AS INT) * 100 + CAST(DAY(CAST(b1.birth_datetime AS DATE)) AS INT)
          THEN 1
          ELSE 0
        END > 60
    )
)
SELECT
  COUNT(*) AS value
FROM cohort
