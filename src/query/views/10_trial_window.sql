-- Measured window of a trial: first measured request's start to last measured request's end.
CREATE VIEW trial_window AS
SELECT run_id, trial_id,
       min(start_ns) AS window_start_ns,
       max(end_ns) AS window_end_ns,
       CAST(max(end_ns) - min(start_ns) AS DOUBLE) / 1e9 AS window_s
FROM measured_requests
GROUP BY run_id, trial_id
