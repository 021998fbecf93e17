-- BENCHCAMP_STATEMENT query
INSERT OVERWRITE TABLE probe_aggre SELECT sourceIP, SUM(adRevenue) FROM probe_uv GROUP BY sourceIP;
-- BENCHCAMP_STATEMENT check_rows
SELECT COUNT(*) FROM probe_aggre;
