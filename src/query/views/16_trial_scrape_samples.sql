-- Scraped samples that count for a trial: those inside its measured request window (first
-- measured request's start to last one's end) where it has requests, else all of them (as
-- trial_cpu_samples). `metric` is what a server figure names: the sample's own name for
-- counters and gauges, the family's for histograms and summaries.
CREATE VIEW trial_scrape_samples AS
SELECT s.*,
       CASE WHEN s.kind IN ('histogram', 'summary') THEN s.family ELSE s.name END AS metric
FROM scrape_samples s
LEFT JOIN trial_window w ON s.run_id = w.run_id AND s.trial_id = w.trial_id
WHERE w.window_start_ns IS NULL OR (s.t_ns >= w.window_start_ns AND s.t_ns <= w.window_end_ns)
