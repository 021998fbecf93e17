-- q28: the input of a review sentiment classifier. Each review with a rating and a text gets a
-- class from its rating: 0 negative (rating <= negative_max_rating), 2 positive
-- (rating >= positive_min_rating), 1 neutral in between. The Spark step trains naive Bayes on
-- part of the reviews (a seeded hash of the review key decides which) and reports precision,
-- recall and accuracy on the rest.
INSERT OVERWRITE DIRECTORY '${hivevar:output_dir}'
ROW FORMAT DELIMITED FIELDS TERMINATED BY '|'
SELECT pr_review_sk,
       CASE WHEN pr_review_rating <= ${hivevar:negative_max_rating} THEN 0
            WHEN pr_review_rating >= ${hivevar:positive_min_rating} THEN 2
            ELSE 1 END AS sentiment,
       -- the export is '|'-separated, one row a line: no field separator or line break in the text
       REGEXP_REPLACE(pr_review_content, '[|\\r\\n]', ' ') AS content
FROM product_reviews
WHERE pr_review_rating IS NOT NULL
  AND pr_review_content IS NOT NULL;
