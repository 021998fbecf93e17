-- Q12: customers who viewed an item of the given categories online (between start_date and
-- end_date) and then bought an item of the same category in a store within days_after days.
-- Per customer and category: views, and the fewest days from a view to a store purchase.
WITH views AS (
  SELECT DISTINCT c.wcs_user_sk AS customer_sk, i.i_category_id AS category_id,
         c.wcs_click_date_sk AS view_date_sk
  FROM web_clickstreams c
  JOIN item i ON c.wcs_item_sk = i.i_item_sk
  JOIN date_dim d ON c.wcs_click_date_sk = d.d_date_sk
  WHERE c.wcs_user_sk IS NOT NULL AND c.wcs_sales_sk IS NULL
    AND i.i_category_id IN (${hivevar:category_ids})
    AND d.d_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
),
store_buys AS (
  SELECT DISTINCT ss.ss_customer_sk AS customer_sk, i.i_category_id AS category_id,
         ss.ss_sold_date_sk AS sold_date_sk
  FROM store_sales ss JOIN item i ON ss.ss_item_sk = i.i_item_sk
  WHERE ss.ss_customer_sk IS NOT NULL AND i.i_category_id IN (${hivevar:category_ids})
),
followed AS (
  SELECT v.customer_sk, v.category_id, v.view_date_sk, MIN(b.sold_date_sk - v.view_date_sk) AS days_to_buy
  FROM views v
  JOIN store_buys b ON v.customer_sk = b.customer_sk AND v.category_id = b.category_id
  WHERE b.sold_date_sk > v.view_date_sk AND b.sold_date_sk <= v.view_date_sk + ${hivevar:days_after}
  GROUP BY v.customer_sk, v.category_id, v.view_date_sk
),
per_customer AS (
  SELECT customer_sk, category_id, COUNT(*) AS view_days, MIN(days_to_buy) AS min_days_to_buy
  FROM followed
  GROUP BY customer_sk, category_id
)
SELECT customer_sk, category_id, view_days, min_days_to_buy
FROM per_customer
ORDER BY customer_sk, category_id
LIMIT ${hivevar:top_n};
