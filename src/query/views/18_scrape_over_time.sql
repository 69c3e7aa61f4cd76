-- Scraped metrics per scrape interval of every trial (what the run page's "Server metrics over
-- time" charts draw), each at the interval's end (t_ns), every label set of a target summed:
-- stat 'rate' for counters and the `_count` of histograms and summaries (increase ÷ seconds
-- since the previous scrape; a fall counts from zero), 'mean' for histograms and summaries
-- (increase of `_sum` ÷ increase of `_count` in the interval), 'value' for gauges and untyped.
-- `metric` as in trial_scrape_samples. trial_server is the same over the measured window.
CREATE VIEW scrape_over_time AS
WITH s AS (
    SELECT run_id, trial_id, target, kind, family, name, labels, le, t_ns, value,
           CASE WHEN kind IN ('histogram', 'summary') THEN family ELSE name END AS metric
    FROM scrape_samples
),
d AS (
    SELECT run_id, trial_id, target, kind, family, metric, name, t_ns,
           CASE WHEN value >= lag(value) OVER w THEN value - lag(value) OVER w ELSE value END AS inc,
           CAST(t_ns - lag(t_ns) OVER w AS DOUBLE) / 1e9 AS dt_s
    FROM s
    WHERE (kind = 'counter' OR (kind IN ('histogram', 'summary') AND name <> family)) AND le IS NULL
    WINDOW w AS (PARTITION BY run_id, trial_id, target, name, labels ORDER BY t_ns)
)
SELECT run_id, trial_id, target, t_ns, metric, 'rate' AS stat, sum(inc / dt_s) AS value
FROM d
WHERE dt_s > 0 AND (kind = 'counter' OR name = family || '_count')
GROUP BY run_id, trial_id, target, t_ns, metric
UNION ALL
SELECT run_id, trial_id, target, t_ns, metric, 'mean' AS stat,
       sum(CASE WHEN name = family || '_sum' THEN inc END)
         / nullif(sum(CASE WHEN name = family || '_count' THEN inc END), 0) AS value
FROM d
WHERE dt_s > 0 AND kind IN ('histogram', 'summary')
GROUP BY run_id, trial_id, target, t_ns, metric
UNION ALL
SELECT run_id, trial_id, target, t_ns, metric, 'value' AS stat, sum(value) AS value
FROM s
WHERE kind IN ('gauge', 'untyped')
GROUP BY run_id, trial_id, target, t_ns, metric
