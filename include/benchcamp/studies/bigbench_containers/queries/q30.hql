-- Q30: category affinity of products viewed together: pairs of different item categories viewed
-- in the same session (a user's clicks less than session_timeout_s apart), counted once per
-- session; the top_n pairs.
WITH clicks AS (
  SELECT wcs_user_sk AS user_sk, wcs_item_sk AS item_sk,
         wcs_click_date_sk * 86400 + wcs_click_time_sk AS click_ts
  FROM web_clickstreams
  WHERE wcs_user_sk IS NOT NULL AND wcs_item_sk IS NOT NULL
    AND wcs_click_date_sk IS NOT NULL AND wcs_click_time_sk IS NOT NULL
),
flagged AS (
  SELECT user_sk, item_sk, click_ts,
         CASE WHEN click_ts - LAG(click_ts) OVER (PARTITION BY user_sk ORDER BY click_ts, item_sk)
                   < ${hivevar:session_timeout_s}
              THEN 0 ELSE 1 END AS starts_session
  FROM clicks
),
sessions AS (
  SELECT user_sk, item_sk,
         SUM(starts_session) OVER (PARTITION BY user_sk ORDER BY click_ts, item_sk
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS session_no
  FROM flagged
),
session_categories AS (
  SELECT DISTINCT s.user_sk, s.session_no, i.i_category_id AS category_id, i.i_category AS category
  FROM sessions s JOIN item i ON s.item_sk = i.i_item_sk
  WHERE i.i_category_id IS NOT NULL
),
pairs AS (
  SELECT first_cat.category_id AS category_id_1, first_cat.category AS category_1,
         second_cat.category_id AS category_id_2, second_cat.category AS category_2, COUNT(*) AS sessions
  FROM session_categories first_cat
  JOIN session_categories second_cat
    ON first_cat.user_sk = second_cat.user_sk AND first_cat.session_no = second_cat.session_no
  WHERE first_cat.category_id < second_cat.category_id
  GROUP BY first_cat.category_id, first_cat.category, second_cat.category_id, second_cat.category
)
SELECT category_id_1, category_1, category_id_2, category_2, sessions
FROM pairs
ORDER BY sessions DESC, category_id_1, category_id_2
LIMIT ${hivevar:top_n};
