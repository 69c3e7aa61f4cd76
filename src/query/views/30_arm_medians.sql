-- Per run × arm × params: medians over kept trials (see `trials.kept`).
CREATE VIEW arm_medians AS
SELECT suite, run_id, arm, params,
       count(*) AS n_trials,
       median(throughput_rps) AS throughput_rps,
       median(output_tps) AS output_tps,
       median(latency_mean_ms) AS latency_mean_ms,
       median(latency_p50_ms) AS latency_p50_ms,
       median(latency_p99_ms) AS latency_p99_ms,
       median(ttft_p50_ms) AS ttft_p50_ms,
       median(ttft_p99_ms) AS ttft_p99_ms,
       median(itl_p50_ms) AS itl_p50_ms,
       median(itl_p99_ms) AS itl_p99_ms,
       median(cores_busy) AS cores_busy,
       median(littles_law_ratio) AS littles_law_ratio
FROM trial_figures
WHERE kept
GROUP BY suite, run_id, arm, params
