-- q26: cluster the store customers by what kind of books they buy. For every customer who bought
-- at least min_book_items book items (category `category`) in stores: the number of items they
-- bought in each of the category's sub-categories (i_class_id 1..8). The Spark step clusters
-- these with k-means; the result is each cluster's centre and size.
INSERT OVERWRITE DIRECTORY '${hivevar:output_dir}'
ROW FORMAT DELIMITED FIELDS TERMINATED BY '|'
SELECT ss.ss_customer_sk,
       SUM(IF(i.i_class_id = 1, ss.ss_quantity, 0)) AS books_class_01,
       SUM(IF(i.i_class_id = 2, ss.ss_quantity, 0)) AS books_class_02,
       SUM(IF(i.i_class_id = 3, ss.ss_quantity, 0)) AS books_class_03,
       SUM(IF(i.i_class_id = 4, ss.ss_quantity, 0)) AS books_class_04,
       SUM(IF(i.i_class_id = 5, ss.ss_quantity, 0)) AS books_class_05,
       SUM(IF(i.i_class_id = 6, ss.ss_quantity, 0)) AS books_class_06,
       SUM(IF(i.i_class_id = 7, ss.ss_quantity, 0)) AS books_class_07,
       SUM(IF(i.i_class_id = 8, ss.ss_quantity, 0)) AS books_class_08
FROM store_sales ss
JOIN item i ON ss.ss_item_sk = i.i_item_sk
WHERE i.i_category = '${hivevar:category}'
  AND ss.ss_customer_sk IS NOT NULL
GROUP BY ss.ss_customer_sk
HAVING SUM(ss.ss_quantity) >= ${hivevar:min_book_items};
