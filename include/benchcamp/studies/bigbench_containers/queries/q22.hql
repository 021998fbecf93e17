-- Q22: inventory before and after a price change: per warehouse and item (items now priced
-- between min_price and max_price), quantity on hand summed over the days_around days before
-- change_date and the days_around days from it on, kept when after/before lies within 2/3..3/2.
WITH change_day AS (
  SELECT d_date_sk AS change_date_sk FROM date_dim WHERE d_date = CAST('${hivevar:change_date}' AS DATE)
),
around AS (
  SELECT w.w_warehouse_name AS warehouse_name, i.i_item_id AS item_id,
         SUM(CASE WHEN inv.inv_date_sk < cd.change_date_sk THEN inv.inv_quantity_on_hand ELSE 0 END) AS before_change,
         SUM(CASE WHEN inv.inv_date_sk >= cd.change_date_sk THEN inv.inv_quantity_on_hand ELSE 0 END) AS after_change
  FROM inventory inv
  JOIN warehouse w ON inv.inv_warehouse_sk = w.w_warehouse_sk
  JOIN item i ON inv.inv_item_sk = i.i_item_sk
  CROSS JOIN change_day cd
  WHERE i.i_current_price BETWEEN ${hivevar:min_price} AND ${hivevar:max_price}
    AND inv.inv_date_sk >= cd.change_date_sk - ${hivevar:days_around}
    AND inv.inv_date_sk < cd.change_date_sk + ${hivevar:days_around}
  GROUP BY w.w_warehouse_name, i.i_item_id
)
SELECT warehouse_name, item_id, before_change, after_change
FROM around
WHERE before_change > 0
  AND after_change * 3 >= before_change * 2
  AND after_change * 2 <= before_change * 3
ORDER BY warehouse_name, item_id
LIMIT ${hivevar:top_n};
