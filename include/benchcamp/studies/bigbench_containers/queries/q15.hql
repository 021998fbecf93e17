-- Q15: categories whose sales in one store were flat or declining between start_date and
-- end_date: the least-squares slope of monthly net paid against the month number, per category,
-- kept when it is at most zero (most declining first).
WITH monthly AS (
  SELECT i.i_category_id AS category_id, i.i_category AS category,
         d.d_year * 12 + d.d_moy AS month_no, SUM(ss.ss_net_paid) AS revenue
  FROM store_sales ss
  JOIN date_dim d ON ss.ss_sold_date_sk = d.d_date_sk
  JOIN item i ON ss.ss_item_sk = i.i_item_sk
  WHERE ss.ss_store_sk = ${hivevar:store_sk}
    AND d.d_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
    AND i.i_category_id IS NOT NULL
  GROUP BY i.i_category_id, i.i_category, d.d_year * 12 + d.d_moy
),
sums AS (
  SELECT category_id, category, COUNT(*) AS months,
         CAST(SUM(month_no) AS DOUBLE) AS sum_x, CAST(SUM(revenue) AS DOUBLE) AS sum_y,
         CAST(SUM(month_no * revenue) AS DOUBLE) AS sum_xy,
         CAST(SUM(month_no * month_no) AS DOUBLE) AS sum_xx
  FROM monthly
  GROUP BY category_id, category
),
slopes AS (
  SELECT category_id, category, months,
         (months * sum_xy - sum_x * sum_y) / (months * sum_xx - sum_x * sum_x) AS slope
  FROM sums
  WHERE months > 1
)
SELECT category_id, category, months, ROUND(slope, 2) AS monthly_slope
FROM slopes
WHERE slope <= 0
ORDER BY monthly_slope, category_id;
