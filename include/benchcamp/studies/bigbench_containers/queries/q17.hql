-- Q17: the share of store sales made under a promotion (one announced by direct mail, e-mail or
-- TV) in one month (year, month) of one time zone (stores and buyers at gmt_offset), for items of
-- category: promoted and total extended sales price, and promoted in % of total.
WITH sales AS (
  SELECT ss.ss_ext_sales_price AS sales_price, ss.ss_promo_sk AS promo_sk
  FROM store_sales ss
  JOIN date_dim d ON ss.ss_sold_date_sk = d.d_date_sk
  JOIN store s ON ss.ss_store_sk = s.s_store_sk
  JOIN customer c ON ss.ss_customer_sk = c.c_customer_sk
  JOIN customer_address ca ON c.c_current_addr_sk = ca.ca_address_sk
  JOIN item i ON ss.ss_item_sk = i.i_item_sk
  WHERE d.d_year = ${hivevar:year} AND d.d_moy = ${hivevar:month}
    AND s.s_gmt_offset = ${hivevar:gmt_offset} AND ca.ca_gmt_offset = ${hivevar:gmt_offset}
    AND i.i_category = '${hivevar:category}'
),
announced AS (
  SELECT p_promo_sk AS promo_sk
  FROM promotion
  WHERE p_channel_dmail = 'Y' OR p_channel_email = 'Y' OR p_channel_tv = 'Y'
),
totals AS (
  SELECT SUM(CASE WHEN a.promo_sk IS NOT NULL THEN s.sales_price ELSE 0 END) AS promoted_sales,
         SUM(s.sales_price) AS total_sales
  FROM sales s LEFT JOIN announced a ON s.promo_sk = a.promo_sk
)
SELECT promoted_sales, total_sales,
       CASE WHEN total_sales = 0 THEN NULL
            ELSE ROUND(100 * CAST(promoted_sales AS DOUBLE) / CAST(total_sales AS DOUBLE), 2) END AS promoted_pct
FROM totals;
