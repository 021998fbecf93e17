-- Q01: which products are bought together most often in the given stores? Two different items
-- on the same store ticket make a pair, counted once per ticket; pairs found on at least
-- min_tickets tickets, the top_n most frequent (ties by item keys).
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
