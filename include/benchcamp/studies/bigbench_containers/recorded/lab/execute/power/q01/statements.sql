-- BENCHCAMP_STATEMENT use
USE bb_07e677a75592;
-- BENCHCAMP_STATEMENT setting_0
SET hive.query.results.cache.enabled=false;
-- BENCHCAMP_STATEMENT set_0
SET hivevar:store_ids=1,2,3,4,5,6;
-- BENCHCAMP_STATEMENT set_1
SET hivevar:min_tickets=2;
-- BENCHCAMP_STATEMENT set_2
SET hivevar:top_n=100;
-- BENCHCAMP_STATEMENT q01_0
WITH basket AS (
  SELECT DISTINCT ss_ticket_number AS ticket_number, ss_item_sk AS item_sk
  FROM store_sales
  WHERE ss_store_sk IN (${hivevar:store_ids})
    AND ss_ticket_number IS NOT NULL
    AND ss_item_sk IS NOT NULL
),
pairs AS (
  SELECT first_item.item_sk AS item_sk_1, second_item.item_sk AS item_sk_2, COUNT(*) AS tickets
  FROM basket first_item
  JOIN basket second_item ON first_item.ticket_number = second_item.ticket_number
  WHERE first_item.item_sk < second_item.item_sk
  GROUP BY first_item.item_sk, second_item.item_sk
)
SELECT item_sk_1, item_sk_2, tickets
FROM pairs
WHERE tickets >= ${hivevar:min_tickets}
ORDER BY tickets DESC, item_sk_1, item_sk_2
LIMIT ${hivevar:top_n};
