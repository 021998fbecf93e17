-- Q08: do customers who read reviews spend differently? Web orders placed between start_date and
-- end_date, split by whether the buyer clicked a page of type review_page_type on the order's day
-- or up to days_before days earlier: orders, buyers and net paid per segment.
WITH review_visits AS (
  SELECT DISTINCT c.wcs_user_sk AS user_sk, c.wcs_click_date_sk AS visit_date_sk
  FROM web_clickstreams c
  JOIN web_page p ON c.wcs_web_page_sk = p.wp_web_page_sk
  WHERE p.wp_type = '${hivevar:review_page_type}' AND c.wcs_user_sk IS NOT NULL
),
orders AS (
  SELECT ws.ws_order_number AS order_number, MIN(ws.ws_bill_customer_sk) AS customer_sk,
         MIN(ws.ws_sold_date_sk) AS sold_date_sk, SUM(ws.ws_net_paid) AS net_paid
  FROM web_sales ws JOIN date_dim d ON ws.ws_sold_date_sk = d.d_date_sk
  WHERE d.d_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
    AND ws.ws_bill_customer_sk IS NOT NULL
  GROUP BY ws.ws_order_number
),
reader_orders AS (
  SELECT DISTINCT o.order_number
  FROM orders o JOIN review_visits r ON o.customer_sk = r.user_sk
  WHERE r.visit_date_sk <= o.sold_date_sk
    AND r.visit_date_sk >= o.sold_date_sk - ${hivevar:days_before}
),
segmented AS (
  SELECT CASE WHEN r.order_number IS NULL THEN 'no_reviews' ELSE 'read_reviews' END AS segment,
         o.customer_sk, o.net_paid
  FROM orders o LEFT JOIN reader_orders r ON o.order_number = r.order_number
)
SELECT segment, COUNT(*) AS orders, COUNT(DISTINCT customer_sk) AS customers, SUM(net_paid) AS net_paid
FROM segmented
GROUP BY segment
ORDER BY segment;
