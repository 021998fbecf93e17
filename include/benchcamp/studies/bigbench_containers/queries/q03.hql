-- Q03: which products were among the last views_before views of a user before they bought an
-- item of a given category online (purchase clicks between start_date and end_date, views at most
-- max_seconds_before earlier)? A click with wcs_sales_sk is a purchase, any other click a view.
-- Counts how often each viewed item was among those views; top top_n.
WITH clicks AS (
  SELECT wcs_user_sk AS user_sk, wcs_item_sk AS item_sk, wcs_click_date_sk AS click_date_sk,
         wcs_click_date_sk * 86400 + wcs_click_time_sk AS click_ts,
         CASE WHEN wcs_sales_sk IS NULL THEN 1 ELSE 0 END AS is_view
  FROM web_clickstreams
  WHERE wcs_user_sk IS NOT NULL AND wcs_item_sk IS NOT NULL
    AND wcs_click_date_sk IS NOT NULL AND wcs_click_time_sk IS NOT NULL
),
numbered AS (
  SELECT user_sk, item_sk, click_date_sk, click_ts, is_view,
         SUM(is_view) OVER (PARTITION BY user_sk ORDER BY click_ts, is_view, item_sk
                            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS views_so_far
  FROM clicks
),
purchases AS (
  SELECT n.user_sk, n.click_ts, n.views_so_far
  FROM numbered n
  JOIN item i ON n.item_sk = i.i_item_sk
  JOIN date_dim d ON n.click_date_sk = d.d_date_sk
  WHERE n.is_view = 0
    AND i.i_category = '${hivevar:category}'
    AND d.d_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
),
views AS (
  SELECT user_sk, item_sk, click_ts, views_so_far FROM numbered WHERE is_view = 1
),
last_views AS (
  SELECT v.item_sk AS viewed_item_sk, COUNT(*) AS purchases
  FROM purchases p
  JOIN views v ON p.user_sk = v.user_sk
  WHERE v.views_so_far > p.views_so_far - ${hivevar:views_before}
    AND v.views_so_far <= p.views_so_far
    AND v.click_ts < p.click_ts
    AND p.click_ts - v.click_ts <= ${hivevar:max_seconds_before}
  GROUP BY v.item_sk
)
SELECT viewed_item_sk, purchases
FROM last_views
ORDER BY purchases DESC, viewed_item_sk
LIMIT ${hivevar:top_n};
