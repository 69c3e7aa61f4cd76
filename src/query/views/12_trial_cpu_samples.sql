-- Samples that count for a trial: those inside its measured request window (first measured
-- request's start to last one's end) where it has requests, else all of them. A load
-- generator's own start-up (aiperf spends most of a short trial importing Python) is not load.
CREATE VIEW trial_cpu_samples AS
SELECT c.* FROM cpu_samples c
LEFT JOIN trial_window w ON c.run_id = w.run_id AND c.trial_id = w.trial_id
WHERE w.window_start_ns IS NULL OR (c.t_ns >= w.window_start_ns AND c.t_ns <= w.window_end_ns)
