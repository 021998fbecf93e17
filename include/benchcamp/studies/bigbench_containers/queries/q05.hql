-- q05: would a registered web visitor be interested in a given category? For every customer who
-- clicked on items: the label is 1 when they clicked at least min_clicks times on items of the
-- category `category`, else 0; the features are their clicks on each of the ten categories (the
-- target category's own column stays 0: its clicks make the label), their gender, their
-- education as a rank and their number of dependants. The Spark step fits a logistic regression
-- on part of the visitors and reports precision, recall and accuracy on the others.
INSERT OVERWRITE DIRECTORY '${hivevar:output_dir}'
ROW FORMAT DELIMITED FIELDS TERMINATED BY '|'
SELECT visitor.user_sk,
       IF(visitor.target_clicks >= ${hivevar:min_clicks}, 1, 0) AS interested,
       visitor.clicks_category_01,
       visitor.clicks_category_02,
       visitor.clicks_category_03,
       visitor.clicks_category_04,
       visitor.clicks_category_05,
       visitor.clicks_category_06,
       visitor.clicks_category_07,
       visitor.clicks_category_08,
       visitor.clicks_category_09,
       visitor.clicks_category_10,
       IF(cd.cd_gender = 'M', 1, 0) AS male,
       CASE cd.cd_education_status
            WHEN 'Primary' THEN 1
            WHEN 'Secondary' THEN 2
            WHEN 'College' THEN 3
            WHEN '2 yr Degree' THEN 4
            WHEN '4 yr Degree' THEN 5
            WHEN 'Advanced Degree' THEN 6
            ELSE 0 END AS education_rank,
       COALESCE(cd.cd_dep_count, 0) AS dependants
FROM (SELECT wcs.wcs_user_sk AS user_sk,
             SUM(IF(i.i_category = '${hivevar:category}', 1, 0)) AS target_clicks,
             SUM(IF(i.i_category_id = 1 AND i.i_category <> '${hivevar:category}', 1, 0)) AS clicks_category_01,
             SUM(IF(i.i_category_id = 2 AND i.i_category <> '${hivevar:category}', 1, 0)) AS clicks_category_02,
             SUM(IF(i.i_category_id = 3 AND i.i_category <> '${hivevar:category}', 1, 0)) AS clicks_category_03,
             SUM(IF(i.i_category_id = 4 AND i.i_category <> '${hivevar:category}', 1, 0)) AS clicks_category_04,
             SUM(IF(i.i_category_id = 5 AND i.i_category <> '${hivevar:category}', 1, 0)) AS clicks_category_05,
             SUM(IF(i.i_category_id = 6 AND i.i_category <> '${hivevar:category}', 1, 0)) AS clicks_category_06,
             SUM(IF(i.i_category_id = 7 AND i.i_category <> '${hivevar:category}', 1, 0)) AS clicks_category_07,
             SUM(IF(i.i_category_id = 8 AND i.i_category <> '${hivevar:category}', 1, 0)) AS clicks_category_08,
             SUM(IF(i.i_category_id = 9 AND i.i_category <> '${hivevar:category}', 1, 0)) AS clicks_category_09,
             SUM(IF(i.i_category_id = 10 AND i.i_category <> '${hivevar:category}', 1, 0)) AS clicks_category_10
      FROM web_clickstreams wcs
      JOIN item i ON wcs.wcs_item_sk = i.i_item_sk
      WHERE wcs.wcs_user_sk IS NOT NULL
      GROUP BY wcs.wcs_user_sk) visitor
JOIN customer c ON visitor.user_sk = c.c_customer_sk
LEFT JOIN customer_demographics cd ON c.c_current_cdemo_sk = cd.cd_demo_sk;
