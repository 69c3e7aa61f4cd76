-- Committed runs, numbered within their suite by start time (#1, #2, …). Numbers are derived,
-- never stored, so concurrent writers cannot race for one.
CREATE VIEW runs AS
SELECT r.*,
       row_number() OVER (PARTITION BY r.suite ORDER BY r.started_at, r.run_id) AS run_no
FROM raw_runs r
