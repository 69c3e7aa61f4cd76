-- Load-test figures per trial over measured requests. A request is completed when it has no
-- error and was not cancelled; latency percentiles are over completed requests (as aiperf's
-- own summary) with perfhouse's exact quantile_cont (linear interpolation, as DuckDB and numpy).
CREATE VIEW trial_requests AS
WITH m AS (
    SELECT *, completed AS ok FROM measured_requests
),
counts AS (
    SELECT run_id, trial_id,
           count(*) AS requests,
           sum(CASE WHEN ok THEN 1 ELSE 0 END) AS completed,
           sum(CASE WHEN NOT ok AND NOT cancelled THEN 1 ELSE 0 END) AS errors,
           sum(CASE WHEN cancelled THEN 1 ELSE 0 END) AS cancelled,
           sum(CASE WHEN ok THEN output_tokens ELSE 0 END) AS output_tokens
    FROM m GROUP BY run_id, trial_id
),
lat AS (
    SELECT run_id, trial_id,
           avg(latency_ns) / 1e6 AS latency_mean_ms,
           quantile_cont(latency_ns, 0.5) / 1e6 AS latency_p50_ms,
           quantile_cont(latency_ns, 0.9) / 1e6 AS latency_p90_ms,
           quantile_cont(latency_ns, 0.99) / 1e6 AS latency_p99_ms,
           quantile_cont(ttft_ns, 0.5) / 1e6 AS ttft_p50_ms,
           quantile_cont(ttft_ns, 0.9) / 1e6 AS ttft_p90_ms,
           quantile_cont(ttft_ns, 0.99) / 1e6 AS ttft_p99_ms,
           quantile_cont(itl_ns, 0.5) / 1e6 AS itl_p50_ms,
           quantile_cont(itl_ns, 0.9) / 1e6 AS itl_p90_ms,
           quantile_cont(itl_ns, 0.99) / 1e6 AS itl_p99_ms,
           quantile_cont(start_ns - credit_ns, 0.5) / 1e6 AS client_delay_p50_ms,
           quantile_cont(start_ns - credit_ns, 0.99) / 1e6 AS client_delay_p99_ms
    FROM m WHERE ok GROUP BY run_id, trial_id
)
SELECT c.run_id, c.trial_id, c.requests, c.completed, c.errors, c.cancelled, c.output_tokens,
       w.window_start_ns, w.window_end_ns, w.window_s,
       c.completed / w.window_s AS throughput_rps,
       c.output_tokens / w.window_s AS output_tps,
       l.latency_mean_ms, l.latency_p50_ms, l.latency_p90_ms, l.latency_p99_ms,
       l.ttft_p50_ms, l.ttft_p90_ms, l.ttft_p99_ms,
       l.itl_p50_ms, l.itl_p90_ms, l.itl_p99_ms,
       l.client_delay_p50_ms, l.client_delay_p99_ms
FROM counts c
JOIN trial_window w ON c.run_id = w.run_id AND c.trial_id = w.trial_id
LEFT JOIN lat l ON c.run_id = l.run_id AND c.trial_id = l.trial_id
