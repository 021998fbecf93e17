-- BENCHCAMP_STATEMENT use
USE bb_07e677a75592;
-- BENCHCAMP_STATEMENT setting_0
SET hive.query.results.cache.enabled=false;
-- BENCHCAMP_STATEMENT set_0
SET hivevar:k=4;
-- BENCHCAMP_STATEMENT set_1
SET hivevar:iterations=20;
-- BENCHCAMP_STATEMENT set_2
SET hivevar:seed=1;
-- BENCHCAMP_STATEMENT set_3
SET hivevar:output_dir=/user/hive/warehouse/bb_07e677a75592.db/ml_power_q20;
-- BENCHCAMP_STATEMENT q20_0
INSERT OVERWRITE DIRECTORY '${hivevar:output_dir}'
ROW FORMAT DELIMITED FIELDS TERMINATED BY '|'
SELECT bought.customer_sk,
       ROUND(COALESCE(returned.tickets, 0) / bought.tickets, 6) AS ticket_return_ratio,
       ROUND(COALESCE(returned.items, 0) / NULLIF(bought.items, 0), 6) AS item_return_ratio,
       ROUND(CAST(COALESCE(returned.amount, 0) AS DOUBLE) / NULLIF(CAST(bought.amount AS DOUBLE), 0), 6)
         AS amount_return_ratio,
       COALESCE(returned.lines, 0) AS return_lines
FROM (SELECT ss_customer_sk AS customer_sk,
             COUNT(DISTINCT ss_ticket_number) AS tickets,
             SUM(ss_quantity) AS items,
             SUM(ss_net_paid) AS amount
      FROM store_sales
      WHERE ss_customer_sk IS NOT NULL
      GROUP BY ss_customer_sk) bought
LEFT JOIN (SELECT sr_customer_sk AS customer_sk,
                  COUNT(DISTINCT sr_ticket_number) AS tickets,
                  SUM(sr_return_quantity) AS items,
                  SUM(sr_return_amt) AS amount,
                  COUNT(*) AS lines
           FROM store_returns
           WHERE sr_customer_sk IS NOT NULL
           GROUP BY sr_customer_sk) returned
  ON bought.customer_sk = returned.customer_sk;
