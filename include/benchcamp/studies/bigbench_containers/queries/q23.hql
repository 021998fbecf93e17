-- Q23: warehouse/item pairs whose inventory varied strongly in two consecutive months: the
-- coefficient of variation (sample standard deviation / mean of the weekly quantity on hand)
-- above min_cov in month and in month + 1 of year; mean and coefficient of both months.
WITH monthly AS (
  SELECT inv.inv_warehouse_sk AS warehouse_sk, inv.inv_item_sk AS item_sk, d.d_moy AS month_no,
         AVG(CAST(inv.inv_quantity_on_hand AS DOUBLE)) AS mean_quantity,
         STDDEV_SAMP(CAST(inv.inv_quantity_on_hand AS DOUBLE)) AS sd_quantity
  FROM inventory inv JOIN date_dim d ON inv.inv_date_sk = d.d_date_sk
  WHERE d.d_year = ${hivevar:year} AND d.d_moy IN (${hivevar:month}, ${hivevar:month} + 1)
  GROUP BY inv.inv_warehouse_sk, inv.inv_item_sk, d.d_moy
),
varied AS (
  SELECT warehouse_sk, item_sk, month_no, mean_quantity, sd_quantity / mean_quantity AS cov
  FROM monthly
  WHERE mean_quantity > 0 AND sd_quantity / mean_quantity > ${hivevar:min_cov}
)
SELECT first_month.warehouse_sk AS warehouse_sk, first_month.item_sk AS item_sk,
       ROUND(first_month.mean_quantity, 2) AS first_mean, ROUND(first_month.cov, 4) AS first_cov,
       ROUND(second_month.mean_quantity, 2) AS second_mean, ROUND(second_month.cov, 4) AS second_cov
FROM varied first_month
JOIN varied second_month
  ON first_month.warehouse_sk = second_month.warehouse_sk AND first_month.item_sk = second_month.item_sk
WHERE first_month.month_no = ${hivevar:month} AND second_month.month_no = ${hivevar:month} + 1
ORDER BY warehouse_sk, item_sk;
