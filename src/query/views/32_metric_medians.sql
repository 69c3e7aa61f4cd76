-- Per run × arm × params × scalar metric: median over kept trials (see `trials.kept`);
-- `restates_requests` as in `trial_metrics`.
CREATE VIEW metric_medians AS
SELECT t.suite, t.run_id, t.arm, t.params, m.name, m.unit, m.better,
       count(*) AS n_trials,
       median(m.value) AS median,
       min(m.value) AS min,
       max(m.value) AS max,
       bool_or(m.restates_requests) AS restates_requests
FROM trial_metrics m
JOIN trials t ON m.run_id = t.run_id AND m.trial_id = t.trial_id
WHERE t.kept
GROUP BY t.suite, t.run_id, t.arm, t.params, m.name, m.unit, m.better
