-- CPU per sample interval of every trial (what the run page's "CPU over time" charts draw):
-- series 'cores busy' = Σ over sampled cores (cpu0, cpu1, …) of 1 − Δidle/Δtotal, and one
-- series per sampled process name = Δ(utime+stime) / USER_HZ (100 on Linux) ÷ Δt, all its
-- pids summed; each at the interval's end (t_ns). trial_cpu and trial_proc are the same
-- figures over the whole counted window.
CREATE VIEW cpu_over_time AS
WITH d AS (
    SELECT run_id, trial_id, scope, t_ns,
           t_ns - lag(t_ns) OVER (PARTITION BY run_id, trial_id, scope ORDER BY t_ns) AS dt_ns,
           idle_ticks - lag(idle_ticks) OVER (PARTITION BY run_id, trial_id, scope ORDER BY t_ns) AS d_idle,
           total_ticks - lag(total_ticks) OVER (PARTITION BY run_id, trial_id, scope ORDER BY t_ns) AS d_total,
           (user_ticks + system_ticks)
             - lag(user_ticks + system_ticks) OVER (PARTITION BY run_id, trial_id, scope ORDER BY t_ns) AS d_busy
    FROM cpu_samples
    WHERE scope <> 'cpu'
)
SELECT run_id, trial_id, t_ns, 'cores busy' AS series,
       sum(1.0 - CAST(d_idle AS DOUBLE) / CAST(d_total AS DOUBLE)) AS cores
FROM d
WHERE scope LIKE 'cpu%' AND dt_ns > 0 AND d_total > 0
GROUP BY run_id, trial_id, t_ns
UNION ALL
SELECT run_id, trial_id, t_ns, split_part(scope, ':', 2) AS series,
       sum(CAST(d_busy AS DOUBLE) / 100.0 / (CAST(dt_ns AS DOUBLE) / 1e9)) AS cores
FROM d
WHERE scope LIKE 'proc:%' AND dt_ns > 0
GROUP BY run_id, trial_id, t_ns, split_part(scope, ':', 2)
