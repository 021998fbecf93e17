-- q18: which stores are losing sales, and what do unhappy reviewers say about them? A store's
-- sales are declining when the least-squares slope of its daily net paid (store_sales.ss_net_paid
-- summed per day, against the day's number from start_date) between start_date and end_date is
-- negative. For those stores: every negative sentence (POS/NEG by the sign of its sentiment words'
-- sum, as in q10) of a review written in the same period that names the store (s_store_name as
-- whole words, any case). Slope in currency units per day.
ADD JAR ${hivevar:udf_jar};
CREATE TEMPORARY FUNCTION bb_sentences AS 'benchcamp.bigbench.text.SentencesUDTF';
CREATE TEMPORARY FUNCTION bb_mentions AS 'benchcamp.bigbench.text.MentionsUDF';
WITH daily_sales AS (
    SELECT ss.ss_store_sk AS store_sk,
           DATEDIFF(d.d_date, CAST('${hivevar:start_date}' AS DATE)) AS day_no,
           SUM(ss.ss_net_paid) AS net_paid
    FROM store_sales ss
    JOIN date_dim d ON ss.ss_sold_date_sk = d.d_date_sk
    WHERE d.d_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
      AND ss.ss_store_sk IS NOT NULL
    GROUP BY ss.ss_store_sk, d.d_date
),
declining_stores AS (
    SELECT s.s_store_sk, s.s_store_name, trend.slope
    FROM (SELECT store_sk, REGR_SLOPE(CAST(net_paid AS DOUBLE), CAST(day_no AS DOUBLE)) AS slope
          FROM daily_sales
          GROUP BY store_sk) trend
    JOIN store s ON s.s_store_sk = trend.store_sk
    WHERE trend.slope < 0
),
negative_sentences AS (
    SELECT pr.pr_review_sk, pr.pr_review_date, pr.pr_item_sk, sentences.sentence_no, sentences.sentence
    FROM product_reviews pr
    LATERAL VIEW bb_sentences(pr.pr_review_content) sentences AS sentence_no, sentence, polarity, score
    WHERE pr.pr_review_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
      AND sentences.polarity = 'NEG'
)
SELECT st.s_store_sk,
       st.s_store_name,
       ROUND(st.slope, 4) AS sales_slope_per_day,
       neg.pr_review_sk,
       neg.pr_review_date,
       neg.pr_item_sk,
       neg.sentence_no,
       neg.sentence
FROM negative_sentences neg
CROSS JOIN declining_stores st
WHERE bb_mentions(neg.sentence, st.s_store_name)
ORDER BY st.s_store_sk, neg.pr_review_sk, neg.sentence_no
