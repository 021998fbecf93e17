-- q19: which items come back most, and what do their negative reviews say? The top_items items
-- with the most units returned (store_returns plus web_returns, by return date) between
-- start_date and end_date (ties by the lower item key), and every negative sentence (as in q18)
-- of any review of those items.
ADD JAR ${hivevar:udf_jar};
CREATE TEMPORARY FUNCTION bb_sentences AS 'benchcamp.bigbench.text.SentencesUDTF';
WITH returned_units AS (
    SELECT sr.sr_item_sk AS item_sk, sr.sr_return_quantity AS quantity
    FROM store_returns sr
    JOIN date_dim d ON sr.sr_returned_date_sk = d.d_date_sk
    WHERE d.d_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
    UNION ALL
    SELECT wr.wr_item_sk AS item_sk, wr.wr_return_quantity AS quantity
    FROM web_returns wr
    JOIN date_dim d ON wr.wr_returned_date_sk = d.d_date_sk
    WHERE d.d_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
),
most_returned AS (
    SELECT item_sk, SUM(quantity) AS returned_units
    FROM returned_units
    WHERE item_sk IS NOT NULL
    GROUP BY item_sk
    ORDER BY returned_units DESC, item_sk
    LIMIT ${hivevar:top_items}
),
their_reviews AS (
    SELECT pr.pr_review_sk, pr.pr_item_sk, pr.pr_review_rating, pr.pr_review_content, top.returned_units
    FROM product_reviews pr
    JOIN most_returned top ON pr.pr_item_sk = top.item_sk
)
SELECT r.pr_item_sk,
       r.returned_units,
       r.pr_review_sk,
       r.pr_review_rating,
       sentences.sentence_no,
       sentences.sentence
FROM their_reviews r
LATERAL VIEW bb_sentences(r.pr_review_content) sentences AS sentence_no, sentence, polarity, score
WHERE sentences.polarity = 'NEG'
ORDER BY r.returned_units DESC, r.pr_item_sk, r.pr_review_sk, sentences.sentence_no
