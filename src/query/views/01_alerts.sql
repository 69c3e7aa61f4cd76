-- Rows of committed runs only: a run becomes visible when its `runs` file lands (written last).
CREATE VIEW alerts AS
SELECT t.* FROM raw_alerts t WHERE t.run_id IN (SELECT run_id FROM raw_runs)
