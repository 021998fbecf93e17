-- q10: which sentences of the product reviews carry sentiment, and which word carries it? For each
-- review written between start_date and end_date, every sentence holding a word of our positive
-- or negative list (words/positive.txt, words/negative.txt), one row per such word: the word, its
-- polarity (POS or NEG) and whether a negation before it ("not", "never", "isn't": words/
-- negations.txt) flipped it. Sentences come from OpenNLP's English sentence model, words from its
-- SimpleTokenizer, in the project's UDF jar (lab/bigbench-udf).
ADD JAR ${hivevar:udf_jar};
CREATE TEMPORARY FUNCTION bb_sentiment_words AS 'benchcamp.bigbench.text.SentimentWordsUDTF';
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
ORDER BY pr.pr_item_sk, pr.pr_review_sk, words.sentence_no, words.sentiment_word
