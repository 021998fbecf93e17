-- Q16: the impact of a price change on store sales: net paid (less the amount refunded by store
-- returns of the same ticket line) in the days_around days before change_date against the
-- days_around days from it on, per store state and item, for items now priced between min_price
-- and max_price.
WITH change_day AS (
  SELECT d_date_sk AS change_date_sk FROM date_dim WHERE d_date = CAST('${hivevar:change_date}' AS DATE)
),
sales AS (
  SELECT s.s_state AS state, i.i_item_id AS item_id, ss.ss_sold_date_sk AS sold_date_sk,
         ss.ss_net_paid - COALESCE(sr.sr_return_amt, 0) AS net_amount
  FROM store_sales ss
  LEFT JOIN store_returns sr ON ss.ss_ticket_number = sr.sr_ticket_number AND ss.ss_item_sk = sr.sr_item_sk
  JOIN store s ON ss.ss_store_sk = s.s_store_sk
  JOIN item i ON ss.ss_item_sk = i.i_item_sk
  WHERE i.i_current_price BETWEEN ${hivevar:min_price} AND ${hivevar:max_price}
),
around AS (
  SELECT sa.state, sa.item_id,
         SUM(CASE WHEN sa.sold_date_sk < cd.change_date_sk THEN sa.net_amount ELSE 0 END) AS before_change,
         SUM(CASE WHEN sa.sold_date_sk >= cd.change_date_sk THEN sa.net_amount ELSE 0 END) AS after_change
  FROM sales sa CROSS JOIN change_day cd
  WHERE sa.sold_date_sk >= cd.change_date_sk - ${hivevar:days_around}
    AND sa.sold_date_sk < cd.change_date_sk + ${hivevar:days_around}
  GROUP BY sa.state, sa.item_id
)
SELECT state, item_id, before_change, after_change
FROM around
ORDER BY state, item_id
LIMIT ${hivevar:top_n};
