-- Per run × arm × params × sampled process: medians of proc_cores and cpu_ms_per_req.
CREATE VIEW arm_proc_medians AS
SELECT t.suite, t.run_id, t.arm, t.params, p.process,
       count(*) AS n_trials,
       median(p.proc_cores) AS proc_cores,
       median(p.cpu_ms_per_req) AS cpu_ms_per_req
FROM trial_proc p
JOIN trials t ON p.run_id = t.run_id AND p.trial_id = t.trial_id
WHERE t.kept
GROUP BY t.suite, t.run_id, t.arm, t.params, p.process
