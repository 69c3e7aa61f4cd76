-- Server figures per trial (`server.<metric>.<stat>`, see `query::figures::ServerFigure`) from
-- the scrapes inside its measured window (`trial_scrape_samples`), every target and label set
-- together:
--   rate  counters, and the `_count` of histograms and summaries: Σ over series of the
--         increase ÷ the seconds between the series' first and last scrape in the window. A
--         value below the one before (a restarted server) counts from zero, as Prometheus'
--         rate() does.
--   mean, max  gauges (and untyped): per scrape the sum over label sets, then its mean and
--         maximum over the window's scrapes (summed over targets).
--   mean  histograms and summaries: increase of `_sum` ÷ increase of `_count`.
--   p50, p90, p99  histograms: the buckets' increases summed over label sets and targets,
--         then Prometheus' histogram_quantile: rank = q × the +Inf bucket's count; the first
--         bucket whose cumulative count reaches the rank; linear interpolation between the
--         bucket's lower bound (the previous `le`, 0 for the first) and its `le`; the highest
--         finite `le` where the rank falls in the +Inf bucket; NULL without observations.
CREATE VIEW trial_server AS
WITH d AS (
    SELECT run_id, trial_id, target, kind, family, metric, name, labels, le, t_ns, value,
           value - lag(value) OVER (PARTITION BY run_id, trial_id, target, name, labels, le ORDER BY t_ns) AS dv
    FROM trial_scrape_samples
    WHERE kind = 'counter' OR (kind IN ('histogram', 'summary') AND name <> family)
),
incr AS (
    SELECT run_id, trial_id, target, kind, family, metric, name, labels, le,
           sum(CASE WHEN dv IS NULL THEN 0.0 WHEN dv >= 0 THEN dv ELSE value END) AS increase,
           CAST(max(t_ns) - min(t_ns) AS DOUBLE) / 1e9 AS span_s
    FROM d
    GROUP BY run_id, trial_id, target, kind, family, metric, name, labels, le
),
rates AS (
    SELECT run_id, trial_id, metric, 'rate' AS stat, sum(increase / span_s) AS value
    FROM incr
    WHERE span_s > 0 AND (kind = 'counter' OR name = family || '_count')
    GROUP BY run_id, trial_id, metric
),
observed AS (
    SELECT run_id, trial_id, metric, 'mean' AS stat,
           sum(CASE WHEN name = family || '_sum' THEN increase END)
             / nullif(sum(CASE WHEN name = family || '_count' THEN increase END), 0) AS value
    FROM incr
    WHERE kind IN ('histogram', 'summary') AND span_s > 0
    GROUP BY run_id, trial_id, metric
),
per_scrape AS (
    SELECT run_id, trial_id, target, metric, t_ns, sum(value) AS value
    FROM trial_scrape_samples
    WHERE kind IN ('gauge', 'untyped')
    GROUP BY run_id, trial_id, target, metric, t_ns
),
per_target AS (
    SELECT run_id, trial_id, target, metric, avg(value) AS mean, max(value) AS max
    FROM per_scrape GROUP BY run_id, trial_id, target, metric
),
gauges AS (
    SELECT run_id, trial_id, metric, 'mean' AS stat, sum(mean) AS value
    FROM per_target GROUP BY run_id, trial_id, metric
    UNION ALL
    SELECT run_id, trial_id, metric, 'max' AS stat, sum(max) AS value
    FROM per_target GROUP BY run_id, trial_id, metric
),
buckets AS (
    SELECT run_id, trial_id, metric, le, sum(increase) AS n
    FROM incr
    WHERE kind = 'histogram' AND le IS NOT NULL AND span_s > 0
    GROUP BY run_id, trial_id, metric, le
),
q AS (
    SELECT column1 AS stat, column2 AS q FROM (VALUES ('p50', 0.5), ('p90', 0.9), ('p99', 0.99))
),
ranked AS (
    SELECT b.run_id, b.trial_id, b.metric, q.stat, b.le, b.n,
           q.q * max(b.n) OVER (PARTITION BY b.run_id, b.trial_id, b.metric, q.stat) AS rank,
           max(b.le) OVER (PARTITION BY b.run_id, b.trial_id, b.metric, q.stat) AS top,
           lag(b.le) OVER (PARTITION BY b.run_id, b.trial_id, b.metric, q.stat ORDER BY b.le) AS prev_le,
           lag(b.n) OVER (PARTITION BY b.run_id, b.trial_id, b.metric, q.stat ORDER BY b.le) AS prev_n
    FROM buckets b CROSS JOIN q
),
hit AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, trial_id, metric, stat ORDER BY le) AS k
    FROM ranked
    WHERE rank > 0 AND n >= rank
),
quantiles AS (
    SELECT run_id, trial_id, metric, stat,
           CASE
               -- No +Inf bucket: not a histogram Prometheus would answer for.
               WHEN top < CAST('Infinity' AS DOUBLE) THEN NULL
               WHEN le = top THEN prev_le
               WHEN prev_le IS NULL AND le <= 0 THEN le
               ELSE coalesce(prev_le, 0.0)
                    + (le - coalesce(prev_le, 0.0)) * (rank - coalesce(prev_n, 0.0)) / (n - coalesce(prev_n, 0.0))
           END AS value
    FROM hit
    WHERE k = 1
)
SELECT run_id, trial_id, 'server.' || metric || '.' || stat AS figure, metric, stat, value
FROM (
    SELECT * FROM rates
    UNION ALL SELECT * FROM observed
    UNION ALL SELECT * FROM gauges
    UNION ALL SELECT * FROM quantiles
) f
WHERE value IS NOT NULL
