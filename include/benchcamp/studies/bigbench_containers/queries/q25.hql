-- q25: RFM segmentation. For every customer who bought in a store or on the web between
-- start_date and end_date: recency (days from their last purchase to end_date), frequency
-- (distinct store tickets plus web orders) and monetary value (net paid over both channels).
-- The Spark step clusters customers on the three with k-means; the result is each segment's
-- centre and size.
-- Each channel is summed per customer on its own; a full outer join puts the two side by side.
INSERT OVERWRITE DIRECTORY '${hivevar:output_dir}'
ROW FORMAT DELIMITED FIELDS TERMINATED BY '|'
SELECT COALESCE(store.customer_sk, web.customer_sk) AS customer_sk,
       DATEDIFF(CAST('${hivevar:end_date}' AS DATE),
                GREATEST(COALESCE(store.last_date, web.last_date), COALESCE(web.last_date, store.last_date)))
         AS recency_days,
       COALESCE(store.orders, 0) + COALESCE(web.orders, 0) AS frequency,
       COALESCE(store.net_paid, 0) + COALESCE(web.net_paid, 0) AS monetary
FROM (SELECT ss.ss_customer_sk AS customer_sk,
             MAX(store_day.d_date) AS last_date,
             COUNT(DISTINCT ss.ss_ticket_number) AS orders,
             SUM(ss.ss_net_paid) AS net_paid
      FROM store_sales ss
      JOIN date_dim store_day ON ss.ss_sold_date_sk = store_day.d_date_sk
      WHERE ss.ss_customer_sk IS NOT NULL
        AND store_day.d_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
      GROUP BY ss.ss_customer_sk) store
FULL OUTER JOIN
     (SELECT ws.ws_bill_customer_sk AS customer_sk,
             MAX(web_day.d_date) AS last_date,
             COUNT(DISTINCT ws.ws_order_number) AS orders,
             SUM(ws.ws_net_paid) AS net_paid
      FROM web_sales ws
      JOIN date_dim web_day ON ws.ws_sold_date_sk = web_day.d_date_sk
      WHERE ws.ws_bill_customer_sk IS NOT NULL
        AND web_day.d_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
      GROUP BY ws.ws_bill_customer_sk) web
  ON store.customer_sk = web.customer_sk;
