-- Q11: does review sentiment go with revenue? Per category, over the items reviewed between
-- start_date and end_date that also sold online then: the correlation between an item's mean
-- review rating (our sentiment score, 1..5) and its mean monthly web revenue (net paid, months
-- with sales). Categories with fewer than min_items such items are left out.
WITH ratings AS (
  SELECT pr_item_sk AS item_sk, AVG(CAST(pr_review_rating AS DOUBLE)) AS mean_rating
  FROM product_reviews
  WHERE pr_review_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
    AND pr_item_sk IS NOT NULL AND pr_review_rating IS NOT NULL
  GROUP BY pr_item_sk
),
monthly AS (
  SELECT ws.ws_item_sk AS item_sk, d.d_year AS sale_year, d.d_moy AS sale_month,
         SUM(ws.ws_net_paid) AS revenue
  FROM web_sales ws JOIN date_dim d ON ws.ws_sold_date_sk = d.d_date_sk
  WHERE d.d_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
  GROUP BY ws.ws_item_sk, d.d_year, d.d_moy
),
item_revenue AS (
  SELECT item_sk, AVG(CAST(revenue AS DOUBLE)) AS mean_monthly_revenue
  FROM monthly
  GROUP BY item_sk
),
per_category AS (
  SELECT i.i_category AS category, COUNT(*) AS items,
         CORR(r.mean_rating, m.mean_monthly_revenue) AS rating_revenue_corr
  FROM ratings r
  JOIN item_revenue m ON r.item_sk = m.item_sk
  JOIN item i ON r.item_sk = i.i_item_sk
  WHERE i.i_category IS NOT NULL
  GROUP BY i.i_category
)
SELECT category, items, ROUND(rating_revenue_corr, 4) AS rating_revenue_corr
FROM per_category
WHERE items >= ${hivevar:min_items}
ORDER BY category;
