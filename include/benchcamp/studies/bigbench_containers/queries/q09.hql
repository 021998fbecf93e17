-- Q09: total quantity sold in stores during year, at sales prices between min_price and
-- max_price, to buyers whose address (at the sale) is in country, by combination of the buyer's
-- gender, marital status and education.
SELECT cd.cd_gender AS gender, cd.cd_marital_status AS marital_status, cd.cd_education_status AS education_status,
       SUM(ss.ss_quantity) AS quantity, COUNT(*) AS sale_lines
FROM store_sales ss
JOIN date_dim d ON ss.ss_sold_date_sk = d.d_date_sk
JOIN customer_demographics cd ON ss.ss_cdemo_sk = cd.cd_demo_sk
JOIN customer_address ca ON ss.ss_addr_sk = ca.ca_address_sk
WHERE d.d_year = ${hivevar:year}
  AND ss.ss_sales_price BETWEEN ${hivevar:min_price} AND ${hivevar:max_price}
  AND ca.ca_country = '${hivevar:country}'
GROUP BY cd.cd_gender, cd.cd_marital_status, cd.cd_education_status
ORDER BY gender, marital_status, education_status;
