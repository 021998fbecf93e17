-- Q14: for web sales shipped to households with dependents dependents, the ratio of sale lines sold
-- in the morning (hours morning_start..morning_end) to those sold in the evening
-- (evening_start..evening_end), over pages with between min_chars and max_chars characters.
WITH sales AS (
  SELECT t.t_hour AS sale_hour
  FROM web_sales ws
  JOIN household_demographics hd ON ws.ws_ship_hdemo_sk = hd.hd_demo_sk
  JOIN time_dim t ON ws.ws_sold_time_sk = t.t_time_sk
  JOIN web_page wp ON ws.ws_web_page_sk = wp.wp_web_page_sk
  WHERE hd.hd_dep_count = ${hivevar:dependents}
    AND wp.wp_char_count BETWEEN ${hivevar:min_chars} AND ${hivevar:max_chars}
),
counts AS (
  SELECT SUM(CASE WHEN sale_hour BETWEEN ${hivevar:morning_start} AND ${hivevar:morning_end} THEN 1 ELSE 0 END) AS morning_sales,
         SUM(CASE WHEN sale_hour BETWEEN ${hivevar:evening_start} AND ${hivevar:evening_end} THEN 1 ELSE 0 END) AS evening_sales
  FROM sales
)
SELECT morning_sales, evening_sales,
       CASE WHEN evening_sales = 0 THEN NULL
            ELSE ROUND(CAST(morning_sales AS DOUBLE) / evening_sales, 4) END AS morning_evening_ratio
FROM counts;
