-- BENCHCAMP_STATEMENT use
USE bb_07e677a75592;
-- BENCHCAMP_STATEMENT setting_0
SET hive.query.results.cache.enabled=false;
-- BENCHCAMP_STATEMENT set_0
SET hivevar:start_date=2001-01-01;
-- BENCHCAMP_STATEMENT set_1
SET hivevar:end_date=2001-12-31;
-- BENCHCAMP_STATEMENT set_2
SET hivevar:udf_jar=/tmp/benchcamp-bigbench-udf-zg_kqgms/bigbench-udf-0-q10.jar;
-- BENCHCAMP_STATEMENT q10_0
ADD JAR ${hivevar:udf_jar};
-- BENCHCAMP_STATEMENT q10_1
CREATE TEMPORARY FUNCTION bb_sentiment_words AS 'benchcamp.bigbench.text.SentimentWordsUDTF';
-- BENCHCAMP_STATEMENT q10_2
SELECT pr.pr_item_sk,
       pr.pr_review_sk,
       words.sentence_no,
       words.sentence,
       words.polarity,
       words.sentiment_word,
       words.negated
FROM product_reviews pr
LATERAL VIEW bb_sentiment_words(pr.pr_review_content) words
     AS sentence_no, sentence, polarity, sentiment_word, negated
WHERE pr.pr_review_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
ORDER BY pr.pr_item_sk, pr.pr_review_sk, words.sentence_no, words.sentiment_word;
