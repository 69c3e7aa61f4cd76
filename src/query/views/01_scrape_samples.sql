-- Rows of committed runs only: a run becomes visible when its `runs` file lands (written last).
CREATE VIEW scrape_samples AS
SELECT t.* FROM raw_scrape_samples t WHERE t.run_id IN (SELECT run_id FROM raw_runs)
