-- Q21: items bought in a store between start_date and end_date, returned by the same customer
-- within return_days days, and bought again online by that customer within rebuy_days days of the
-- return: per item and store, the quantities sold, returned and bought again online.
WITH returned AS (
  SELECT ss.ss_ticket_number AS ticket_number, ss.ss_item_sk AS item_sk, ss.ss_store_sk AS store_sk,
         ss.ss_customer_sk AS customer_sk, ss.ss_quantity AS sold_quantity,
         sr.sr_return_quantity AS returned_quantity, sr.sr_returned_date_sk AS returned_date_sk
  FROM store_sales ss
  JOIN date_dim d ON ss.ss_sold_date_sk = d.d_date_sk
  JOIN store_returns sr
    ON ss.ss_ticket_number = sr.sr_ticket_number AND ss.ss_item_sk = sr.sr_item_sk
   AND ss.ss_customer_sk = sr.sr_customer_sk
  WHERE d.d_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
    AND sr.sr_returned_date_sk >= ss.ss_sold_date_sk
    AND sr.sr_returned_date_sk <= ss.ss_sold_date_sk + ${hivevar:return_days}
),
rebought AS (
  SELECT r.ticket_number, r.item_sk, SUM(ws.ws_quantity) AS web_quantity
  FROM returned r
  JOIN web_sales ws ON r.customer_sk = ws.ws_bill_customer_sk AND r.item_sk = ws.ws_item_sk
  WHERE ws.ws_sold_date_sk >= r.returned_date_sk
    AND ws.ws_sold_date_sk <= r.returned_date_sk + ${hivevar:rebuy_days}
  GROUP BY r.ticket_number, r.item_sk
),
per_item_store AS (
  SELECT i.i_item_id AS item_id, i.i_item_desc AS item_desc, s.s_store_id AS store_id,
         s.s_store_name AS store_name, SUM(r.sold_quantity) AS store_quantity,
         SUM(r.returned_quantity) AS returned_quantity, SUM(b.web_quantity) AS web_quantity
  FROM returned r
  JOIN rebought b ON r.ticket_number = b.ticket_number AND r.item_sk = b.item_sk
  JOIN item i ON r.item_sk = i.i_item_sk
  JOIN store s ON r.store_sk = s.s_store_sk
  GROUP BY i.i_item_id, i.i_item_desc, s.s_store_id, s.s_store_name
)
SELECT item_id, item_desc, store_id, store_name, store_quantity, returned_quantity, web_quantity
FROM per_item_store
ORDER BY item_id, store_id
LIMIT ${hivevar:top_n};
