-- Q24: cross-price elasticity of demand for the given items: for each change of a competitor's
-- price (a market-price period starting the day after the previous one ended), the item's own
-- quantity sold (store and web) in the days_around days before the change and from it on, and
-- elasticity = relative change of quantity / relative change of the competitor's price.
WITH price_changes AS (
  SELECT new_price.imp_item_sk AS item_sk, new_price.imp_competitor AS competitor,
         new_price.imp_start_date AS change_date_sk,
         old_price.imp_competitor_price AS old_price, new_price.imp_competitor_price AS new_price
  FROM item_marketprices old_price
  JOIN item_marketprices new_price
    ON old_price.imp_item_sk = new_price.imp_item_sk AND old_price.imp_competitor = new_price.imp_competitor
  WHERE new_price.imp_start_date = old_price.imp_end_date + 1
    AND new_price.imp_item_sk IN (${hivevar:item_ids})
    AND old_price.imp_competitor_price > 0
    AND new_price.imp_competitor_price <> old_price.imp_competitor_price
),
own_sales AS (
  SELECT ss_item_sk AS item_sk, ss_sold_date_sk AS sold_date_sk, ss_quantity AS quantity
  FROM store_sales WHERE ss_item_sk IN (${hivevar:item_ids})
  UNION ALL
  SELECT ws_item_sk AS item_sk, ws_sold_date_sk AS sold_date_sk, ws_quantity AS quantity
  FROM web_sales WHERE ws_item_sk IN (${hivevar:item_ids})
),
quantities AS (
  SELECT pc.item_sk, pc.competitor, pc.change_date_sk, pc.old_price, pc.new_price,
         SUM(CASE WHEN os.sold_date_sk < pc.change_date_sk THEN os.quantity ELSE 0 END) AS quantity_before,
         SUM(CASE WHEN os.sold_date_sk >= pc.change_date_sk THEN os.quantity ELSE 0 END) AS quantity_after
  FROM price_changes pc
  JOIN own_sales os ON pc.item_sk = os.item_sk
  WHERE os.sold_date_sk >= pc.change_date_sk - ${hivevar:days_around}
    AND os.sold_date_sk < pc.change_date_sk + ${hivevar:days_around}
  GROUP BY pc.item_sk, pc.competitor, pc.change_date_sk, pc.old_price, pc.new_price
)
SELECT item_sk, competitor, change_date_sk, old_price, new_price, quantity_before, quantity_after,
       CASE WHEN quantity_before = 0 THEN NULL
            ELSE ROUND(((quantity_after - quantity_before) / CAST(quantity_before AS DOUBLE))
                       / ((CAST(new_price AS DOUBLE) - CAST(old_price AS DOUBLE)) / CAST(old_price AS DOUBLE)), 4)
       END AS cross_price_elasticity
FROM quantities
ORDER BY item_sk, competitor, change_date_sk;
