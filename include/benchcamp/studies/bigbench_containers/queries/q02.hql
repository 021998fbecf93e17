-- Q02: which products are viewed online in the same session as a given product? A session is
-- one user's clicks with less than session_timeout_s seconds between consecutive clicks; for
-- every session that viewed item_sk, each other item viewed in it counts once. Top top_n.
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
viewed AS (
  SELECT DISTINCT user_sk, session_no, item_sk FROM sessions
),
together AS (
  SELECT other.item_sk AS viewed_with_sk, COUNT(*) AS sessions
  FROM viewed given
  JOIN viewed other ON given.user_sk = other.user_sk AND given.session_no = other.session_no
  WHERE given.item_sk = ${hivevar:item_sk} AND other.item_sk <> ${hivevar:item_sk}
  GROUP BY other.item_sk
)
SELECT viewed_with_sk, sessions
FROM together
ORDER BY sessions DESC, viewed_with_sk
LIMIT ${hivevar:top_n};
