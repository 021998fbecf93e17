-- Q13: customers whose web spending exceeded their store spending (net paid) in year and again in
-- year + 1, with the web/store ratio of both years; top top_n by the second year's ratio.
WITH store_years AS (
  SELECT ss.ss_customer_sk AS customer_sk, d.d_year AS sale_year, SUM(ss.ss_net_paid) AS paid
  FROM store_sales ss JOIN date_dim d ON ss.ss_sold_date_sk = d.d_date_sk
  WHERE d.d_year IN (${hivevar:year}, ${hivevar:year} + 1) AND ss.ss_customer_sk IS NOT NULL
  GROUP BY ss.ss_customer_sk, d.d_year
),
web_years AS (
  SELECT ws.ws_bill_customer_sk AS customer_sk, d.d_year AS sale_year, SUM(ws.ws_net_paid) AS paid
  FROM web_sales ws JOIN date_dim d ON ws.ws_sold_date_sk = d.d_date_sk
  WHERE d.d_year IN (${hivevar:year}, ${hivevar:year} + 1) AND ws.ws_bill_customer_sk IS NOT NULL
  GROUP BY ws.ws_bill_customer_sk, d.d_year
),
both_years AS (
  SELECT s1.customer_sk,
         ROUND(CAST(w1.paid AS DOUBLE) / CAST(s1.paid AS DOUBLE), 4) AS first_year_ratio,
         ROUND(CAST(w2.paid AS DOUBLE) / CAST(s2.paid AS DOUBLE), 4) AS second_year_ratio
  FROM store_years s1
  JOIN store_years s2 ON s1.customer_sk = s2.customer_sk
  JOIN web_years w1 ON s1.customer_sk = w1.customer_sk
  JOIN web_years w2 ON s1.customer_sk = w2.customer_sk
  WHERE s1.sale_year = ${hivevar:year} AND w1.sale_year = ${hivevar:year}
    AND s2.sale_year = ${hivevar:year} + 1 AND w2.sale_year = ${hivevar:year} + 1
    AND s1.paid > 0 AND s2.paid > 0
    AND w1.paid > s1.paid AND w2.paid > s2.paid
)
SELECT b.customer_sk AS customer_sk, c.c_customer_id AS customer_id, c.c_first_name AS first_name,
       c.c_last_name AS last_name, b.first_year_ratio AS first_year_ratio, b.second_year_ratio AS second_year_ratio
FROM both_years b JOIN customer c ON b.customer_sk = c.c_customer_sk
ORDER BY second_year_ratio DESC, first_year_ratio DESC, customer_sk
LIMIT ${hivevar:top_n};
