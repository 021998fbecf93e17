-- Q04: shopping-cart abandonment. Sessions (a user's clicks less than session_timeout_s apart)
-- that reached a page of type cart_page_type but contained no purchase click (wcs_sales_sk) are
-- abandoned carts. Per year of the session's first click (between start_date and end_date):
-- sessions with a cart, abandoned ones, their share in %, and their clicks (total and mean).
WITH clicks AS (
  SELECT c.wcs_user_sk AS user_sk, c.wcs_item_sk AS item_sk, c.wcs_click_date_sk AS click_date_sk,
         c.wcs_click_date_sk * 86400 + c.wcs_click_time_sk AS click_ts,
         CASE WHEN p.wp_type = '${hivevar:cart_page_type}' THEN 1 ELSE 0 END AS is_cart,
         CASE WHEN c.wcs_sales_sk IS NOT NULL THEN 1 ELSE 0 END AS is_purchase
  FROM web_clickstreams c
  LEFT JOIN web_page p ON c.wcs_web_page_sk = p.wp_web_page_sk
  WHERE c.wcs_user_sk IS NOT NULL
    AND c.wcs_click_date_sk IS NOT NULL AND c.wcs_click_time_sk IS NOT NULL
),
flagged AS (
  SELECT user_sk, click_date_sk, click_ts, is_cart, is_purchase,
         CASE WHEN click_ts - LAG(click_ts) OVER (PARTITION BY user_sk ORDER BY click_ts, item_sk)
                   < ${hivevar:session_timeout_s}
              THEN 0 ELSE 1 END AS starts_session,
         item_sk
  FROM clicks
),
numbered AS (
  SELECT user_sk, click_date_sk, is_cart, is_purchase,
         SUM(starts_session) OVER (PARTITION BY user_sk ORDER BY click_ts, item_sk
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS session_no
  FROM flagged
),
sessions AS (
  SELECT user_sk, session_no, MIN(click_date_sk) AS first_date_sk, COUNT(*) AS clicks,
         MAX(is_cart) AS has_cart, MAX(is_purchase) AS has_purchase
  FROM numbered
  GROUP BY user_sk, session_no
),
carts AS (
  SELECT d.d_year AS session_year, s.clicks,
         CASE WHEN s.has_purchase = 0 THEN 1 ELSE 0 END AS abandoned
  FROM sessions s
  JOIN date_dim d ON s.first_date_sk = d.d_date_sk
  WHERE s.has_cart = 1
    AND d.d_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
),
per_year AS (
  SELECT session_year, COUNT(*) AS cart_sessions, SUM(abandoned) AS abandoned_sessions,
         SUM(abandoned * clicks) AS abandoned_clicks
  FROM carts
  GROUP BY session_year
)
SELECT session_year, cart_sessions, abandoned_sessions,
       ROUND(100 * CAST(abandoned_sessions AS DOUBLE) / cart_sessions, 2) AS abandoned_pct,
       abandoned_clicks,
       CASE WHEN abandoned_sessions = 0 THEN NULL
            ELSE ROUND(CAST(abandoned_clicks AS DOUBLE) / abandoned_sessions, 2) END AS clicks_per_abandoned
FROM per_year
ORDER BY session_year;
