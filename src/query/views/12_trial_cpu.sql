-- cores_busy = Σ over sampled cores (scopes cpu0, cpu1, …) of (1 − Δidle/Δtotal) across the
-- trial's counted samples. Tick counters only grow, so Δ = max − min.
CREATE VIEW trial_cpu AS
WITH per_core AS (
    SELECT run_id, trial_id, scope,
           max(idle_ticks) - min(idle_ticks) AS d_idle,
           max(total_ticks) - min(total_ticks) AS d_total
    FROM trial_cpu_samples
    WHERE scope LIKE 'cpu%' AND scope <> 'cpu'
    GROUP BY run_id, trial_id, scope
)
SELECT run_id, trial_id,
       count(*) AS cores_sampled,
       sum(1.0 - CAST(d_idle AS DOUBLE) / CAST(d_total AS DOUBLE)) AS cores_busy
FROM per_core WHERE d_total > 0
GROUP BY run_id, trial_id
