-- One row per trial with every derived figure. littles_law_ratio = throughput × mean latency ÷
-- concurrency: ≈ 1 in a healthy closed loop, far below 1 when the client is the bottleneck.
-- goodput_rps / goodput_tps / slo_attainment_pct: under the suite's SLOs (`trial_goodput`),
-- NULL where none is set; `slo` says which.
CREATE VIEW trial_figures AS
SELECT t.suite, t.run_id, t.trial_id, t.arm, t.params, t.repeat, t.seq, t.phase,
       t.discarded, t.discard_reason, t.status, t.exit_code, t.concurrency, t.kept,
       r.requests, r.completed, r.errors, r.cancelled, r.window_s,
       r.throughput_rps, r.output_tps,
       r.latency_mean_ms, r.latency_p50_ms, r.latency_p90_ms, r.latency_p99_ms,
       r.ttft_p50_ms, r.ttft_p90_ms, r.ttft_p99_ms,
       r.itl_p50_ms, r.itl_p90_ms, r.itl_p99_ms,
       r.client_delay_p50_ms, r.client_delay_p99_ms,
       c.cores_busy,
       g.slo,
       g.good / r.window_s AS goodput_rps,
       g.good_tokens / r.window_s AS goodput_tps,
       100.0 * g.good / g.measured AS slo_attainment_pct,
       r.throughput_rps * (r.latency_mean_ms / 1000.0) / CAST(t.concurrency AS DOUBLE) AS littles_law_ratio
FROM trials t
LEFT JOIN trial_requests r ON t.run_id = r.run_id AND t.trial_id = r.trial_id
LEFT JOIN trial_cpu c ON t.run_id = c.run_id AND t.trial_id = c.trial_id
LEFT JOIN trial_goodput g ON t.run_id = g.run_id AND t.trial_id = g.trial_id
