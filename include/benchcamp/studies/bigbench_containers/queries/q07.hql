-- Q07: the top_n states with at least min_customers customers (by their current address) who
-- bought, in a store during year, an item priced more than price_factor times the average price
-- of its category.
WITH category_price AS (
  SELECT i_category_id AS category_id, AVG(i_current_price) AS average_price
  FROM item
  WHERE i_category_id IS NOT NULL
  GROUP BY i_category_id
),
pricey_items AS (
  SELECT i.i_item_sk AS item_sk
  FROM item i JOIN category_price cp ON i.i_category_id = cp.category_id
  WHERE i.i_current_price > ${hivevar:price_factor} * cp.average_price
),
buyers AS (
  SELECT DISTINCT ss.ss_customer_sk AS customer_sk
  FROM store_sales ss
  JOIN pricey_items p ON ss.ss_item_sk = p.item_sk
  JOIN date_dim d ON ss.ss_sold_date_sk = d.d_date_sk
  WHERE d.d_year = ${hivevar:year}
),
per_state AS (
  SELECT a.ca_state AS state, COUNT(*) AS customers
  FROM buyers b
  JOIN customer c ON b.customer_sk = c.c_customer_sk
  JOIN customer_address a ON c.c_current_addr_sk = a.ca_address_sk
  WHERE a.ca_state IS NOT NULL
  GROUP BY a.ca_state
)
SELECT state, customers
FROM per_state
WHERE customers >= ${hivevar:min_customers}
ORDER BY customers DESC, state
LIMIT ${hivevar:top_n};
