-- Q06: customers shifting from store to web. For each customer who bought in both channels in
-- year and in year + 1, the growth of web spending (net paid, year + 1 over year) against the
-- growth of store spending; customers whose web spending grew more, top top_n by web growth.
WITH spending AS (
  SELECT ss.ss_customer_sk AS customer_sk, d.d_year AS sale_year,
         ss.ss_net_paid AS store_paid, CAST(0 AS DECIMAL(7,2)) AS web_paid
  FROM store_sales ss JOIN date_dim d ON ss.ss_sold_date_sk = d.d_date_sk
  WHERE d.d_year IN (${hivevar:year}, ${hivevar:year} + 1) AND ss.ss_customer_sk IS NOT NULL
  UNION ALL
  SELECT ws.ws_bill_customer_sk AS customer_sk, d.d_year AS sale_year,
         CAST(0 AS DECIMAL(7,2)) AS store_paid, ws.ws_net_paid AS web_paid
  FROM web_sales ws JOIN date_dim d ON ws.ws_sold_date_sk = d.d_date_sk
  WHERE d.d_year IN (${hivevar:year}, ${hivevar:year} + 1) AND ws.ws_bill_customer_sk IS NOT NULL
),
totals AS (
  SELECT customer_sk,
         SUM(CASE WHEN sale_year = ${hivevar:year} THEN store_paid ELSE 0 END) AS store_first,
         SUM(CASE WHEN sale_year = ${hivevar:year} + 1 THEN store_paid ELSE 0 END) AS store_second,
         SUM(CASE WHEN sale_year = ${hivevar:year} THEN web_paid ELSE 0 END) AS web_first,
         SUM(CASE WHEN sale_year = ${hivevar:year} + 1 THEN web_paid ELSE 0 END) AS web_second
  FROM spending
  GROUP BY customer_sk
),
growth AS (
  SELECT customer_sk,
         ROUND(CAST(store_second AS DOUBLE) / CAST(store_first AS DOUBLE), 4) AS store_growth,
         ROUND(CAST(web_second AS DOUBLE) / CAST(web_first AS DOUBLE), 4) AS web_growth
  FROM totals
  WHERE store_first > 0 AND web_first > 0 AND store_second > 0 AND web_second > 0
)
SELECT g.customer_sk AS customer_sk, c.c_customer_id AS customer_id, c.c_first_name AS first_name,
       c.c_last_name AS last_name, g.store_growth AS store_growth, g.web_growth AS web_growth
FROM growth g
JOIN customer c ON g.customer_sk = c.c_customer_sk
WHERE g.web_growth > g.store_growth
ORDER BY web_growth DESC, customer_sk
LIMIT ${hivevar:top_n};
