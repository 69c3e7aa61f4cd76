-- Per sampled process (scope proc:<name>:<pid>, all pids of a name summed), over the samples
-- trial_cpu_samples counts (the measured request window where there is one):
-- proc_cores = Δ(utime+stime) / CLK_TCK ÷ wall seconds, with CLK_TCK = USER_HZ = 100 on Linux;
-- cpu_ms_per_req = process CPU ms ÷ completed requests of the trial.
CREATE VIEW trial_proc AS
WITH per_pid AS (
    SELECT run_id, trial_id, split_part(scope, ':', 2) AS process,
           max(user_ticks + system_ticks) - min(user_ticks + system_ticks) AS d_ticks,
           min(t_ns) AS t0, max(t_ns) AS t1
    FROM trial_cpu_samples
    WHERE scope LIKE 'proc:%'
    GROUP BY run_id, trial_id, scope
),
per_name AS (
    SELECT run_id, trial_id, process,
           CAST(sum(d_ticks) AS DOUBLE) / 100.0 AS cpu_s,
           CAST(max(t1) - min(t0) AS DOUBLE) / 1e9 AS wall_s
    FROM per_pid GROUP BY run_id, trial_id, process
)
SELECT p.run_id, p.trial_id, p.process, p.cpu_s, p.wall_s,
       p.cpu_s / p.wall_s AS proc_cores,
       p.cpu_s * 1000.0 / r.completed AS cpu_ms_per_req
FROM per_name p
LEFT JOIN trial_requests r ON p.run_id = r.run_id AND p.trial_id = r.trial_id
