-- One row per trial with every derived figure. littles_law_ratio = throughput × mean latency ÷
-- concurrency: ≈ 1 in a healthy closed loop, far below 1 when the client is the bottleneck.
-- goodput_rps / goodput_tps / slo_attainment_pct: under the suite's SLOs (`trial_goodput`),
-- NULL where none is set; `slo` says which.
-- The measured command's own cost, where the runner recorded its resource usage (`wait4`'s
-- rusage of the command and the descendants it waited for; NULL for ingested trials, whose
-- wall_ns spans their requests): wall_ms, cpu_ms = user + system, peak_rss_bytes = the
-- largest resident set of one process of the command's tree (`/usr/bin/time -f %M`),
-- cgroup_memory_peak_bytes = the trial cgroup's memory.peak (every process of the trial,
-- page cache included; NULL without the cgroup memory controller), context switches and
-- page faults.
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
       r.throughput_rps * (r.latency_mean_ms / 1000.0) / CAST(t.concurrency AS DOUBLE) AS littles_law_ratio,
       CASE WHEN t.user_cpu_ns IS NOT NULL THEN CAST(t.wall_ns AS DOUBLE) / 1e6 END AS wall_ms,
       CAST(t.user_cpu_ns + t.system_cpu_ns AS DOUBLE) / 1e6 AS cpu_ms,
       CAST(t.user_cpu_ns AS DOUBLE) / 1e6 AS user_cpu_ms,
       CAST(t.system_cpu_ns AS DOUBLE) / 1e6 AS system_cpu_ms,
       CAST(t.peak_rss_bytes AS DOUBLE) AS peak_rss_bytes,
       CAST(t.cgroup_memory_peak_bytes AS DOUBLE) AS cgroup_memory_peak_bytes,
       CAST(t.voluntary_ctx_switches AS DOUBLE) AS voluntary_ctx_switches,
       CAST(t.involuntary_ctx_switches AS DOUBLE) AS involuntary_ctx_switches,
       CAST(t.major_faults AS DOUBLE) AS major_faults,
       CAST(t.minor_faults AS DOUBLE) AS minor_faults
FROM trials t
LEFT JOIN trial_requests r ON t.run_id = r.run_id AND t.trial_id = r.trial_id
LEFT JOIN trial_cpu c ON t.run_id = c.run_id AND t.trial_id = c.trial_id
LEFT JOIN trial_goodput g ON t.run_id = g.run_id AND t.trial_id = g.trial_id
