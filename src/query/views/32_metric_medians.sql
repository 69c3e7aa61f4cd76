-- Per run × arm × params × scalar metric: median over kept trials (see `trials.kept`);
-- `restates_requests` as in `trial_metrics`.
CREATE VIEW metric_medians AS
SELECT t.suite, t.run_id, t.arm, t.params, m.name, m.unit, m.better,
       count(*) AS n_trials,
       -- quantile_cont, not median(): DataFusion's median of two values near f64::MAX
       -- overflows to inf ((a + b) / 2); quantile_cont interpolates without overflowing.
       quantile_cont(m.value, 0.5) AS median,
       min(m.value) AS min,
       max(m.value) AS max,
       bool_or(m.restates_requests) AS restates_requests,
       -- The benchmark's code version (one per run where the tool records it).
       max(m.version) AS version
FROM trial_metrics m
JOIN trials t ON m.run_id = t.run_id AND m.trial_id = t.trial_id
WHERE t.kept
GROUP BY t.suite, t.run_id, t.arm, t.params, m.name, m.unit, m.better
