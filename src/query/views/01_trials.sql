-- Trials of committed runs only: a run becomes visible when its `runs` file lands (written
-- last). `kept` is the one definition of a trial that counts in medians and comparisons:
-- measured (not warmup), not discarded as a cold start, and successful.
CREATE VIEW trials AS
SELECT t.*,
       (t.phase = 'measured' AND NOT t.discarded AND t.status = 'ok') AS kept
FROM raw_trials t WHERE t.run_id IN (SELECT run_id FROM raw_runs)
