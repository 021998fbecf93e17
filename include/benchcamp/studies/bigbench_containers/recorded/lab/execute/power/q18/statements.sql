-- BENCHCAMP_STATEMENT use
USE bb_07e677a75592;
-- BENCHCAMP_STATEMENT setting_0
SET hive.query.results.cache.enabled=false;
-- BENCHCAMP_STATEMENT set_0
SET hivevar:start_date=2002-01-01;
-- BENCHCAMP_STATEMENT set_1
SET hivevar:end_date=2002-12-31;
-- BENCHCAMP_STATEMENT set_2
SET hivevar:udf_jar=/tmp/benchcamp-bigbench-udf-zg_kqgms/bigbench-udf-0-q18.jar;
-- BENCHCAMP_STATEMENT q18_0
ADD JAR ${hivevar:udf_jar};
-- BENCHCAMP_STATEMENT q18_1
CREATE TEMPORARY FUNCTION bb_sentences AS 'benchcamp.bigbench.text.SentencesUDTF';
-- BENCHCAMP_STATEMENT q18_2
CREATE TEMPORARY FUNCTION bb_mentions AS 'benchcamp.bigbench.text.MentionsUDF';
-- BENCHCAMP_STATEMENT q18_3
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
ORDER BY st.s_store_sk, neg.pr_review_sk, neg.sentence_no;
