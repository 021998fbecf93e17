-- Q29: category affinity of products bought together: pairs of different item categories found
-- in the same web order, counted once per order; the top_n pairs.
WITH order_categories AS (
  SELECT DISTINCT ws.ws_order_number AS order_number, i.i_category_id AS category_id, i.i_category AS category
  FROM web_sales ws JOIN item i ON ws.ws_item_sk = i.i_item_sk
  WHERE ws.ws_order_number IS NOT NULL AND i.i_category_id IS NOT NULL
),
pairs AS (
  SELECT first_cat.category_id AS category_id_1, first_cat.category AS category_1,
         second_cat.category_id AS category_id_2, second_cat.category AS category_2, COUNT(*) AS orders
  FROM order_categories first_cat
  JOIN order_categories second_cat ON first_cat.order_number = second_cat.order_number
  WHERE first_cat.category_id < second_cat.category_id
  GROUP BY first_cat.category_id, first_cat.category, second_cat.category_id, second_cat.category
)
SELECT category_id_1, category_1, category_id_2, category_2, orders
FROM pairs
ORDER BY orders DESC, category_id_1, category_id_2
LIMIT ${hivevar:top_n};
