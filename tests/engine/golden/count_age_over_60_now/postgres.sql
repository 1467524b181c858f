WITH cohort AS NOT MATERIALIZED (
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
        CAST(EXTRACT(YEAR FROM CAST('2019-07-01' AS DATE)) AS INT) - CAST(EXTRACT(YEAR FROM CAST(b1.birth_datetime AS DATE)) AS INT) - CASE
          WHEN CAST(EXTRACT(MONTH FROM CAST('2019-07-01' AS DATE)) AS INT) * 100 + CAST(EXTRACT(DAY FROM CAST('2019-07-01' AS DATE)) AS INT) < CAST(EXTRACT(MONTH FROM CAST(b1.birth_datetime AS DATE)) AS INT) * 100 + CAST(EXTRACT(DAY FROM CAST(b1.birth_datetime AS DATE)) AS INT)
          THEN 1
          ELSE 0
        END > 60
    )
)
SELECT
  COUNT(*) AS value
FROM cohort
