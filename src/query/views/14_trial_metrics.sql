-- Metrics with one derived flag: `restates_requests` marks aiperf's and GuideLLM's own summary
-- figures (origins aiperf-summary, guidellm-summary) of a trial whose request records are in the warehouse. They restate
-- the per-request figures ~600 ways (min, max, std of every statistic), so comparisons,
-- histories and run pages leave them out; they stay queryable for cross-checks.
CREATE VIEW trial_metrics AS
SELECT m.*, (m.origin IN ('aiperf-summary', 'guidellm-summary') AND w.trial_id IS NOT NULL) AS restates_requests
FROM metrics m
LEFT JOIN trial_window w ON m.run_id = w.run_id AND m.trial_id = w.trial_id
