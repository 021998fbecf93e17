-- q27: which competitors do reviewers name? For the reviews of items of category `category`
-- written between start_date and end_date: every sentence naming a competitor, one row per
-- competitor named. The competitors are those the market-price table tracks (the distinct
-- item_marketprices.imp_competitor values), found as whole words in any case, so the query needs
-- no list of its own and follows whatever names the data holds.
ADD JAR ${hivevar:udf_jar};
CREATE TEMPORARY FUNCTION bb_name_mentions AS 'benchcamp.bigbench.text.NameMentionsUDTF';
WITH competitors AS (
    SELECT COLLECT_SET(imp.imp_competitor) AS names
    FROM item_marketprices imp
    WHERE imp.imp_competitor IS NOT NULL
),
category_reviews AS (
    SELECT pr.pr_review_sk, pr.pr_item_sk, pr.pr_review_content, c.names
    FROM product_reviews pr
    JOIN item i ON pr.pr_item_sk = i.i_item_sk
    CROSS JOIN competitors c
    WHERE i.i_category = '${hivevar:category}'
      AND pr.pr_review_date BETWEEN CAST('${hivevar:start_date}' AS DATE) AND CAST('${hivevar:end_date}' AS DATE)
)
SELECT r.pr_item_sk,
       r.pr_review_sk,
       mentions.sentence_no,
       mentions.name AS competitor,
       mentions.sentence
FROM category_reviews r
LATERAL VIEW bb_name_mentions(r.pr_review_content, r.names) mentions AS sentence_no, sentence, name
ORDER BY r.pr_item_sk, r.pr_review_sk, mentions.sentence_no, competitor
