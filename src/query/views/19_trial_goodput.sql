-- Goodput under the suite's per-request SLOs (the `slo` table: one row per suite from its newest
-- run's `slo` label, or one row '*' from `--slo`; see `query::slo`). A request is good when it
-- completed and met every bound given (NULL bound: none; a NULL value does not meet a bound).
-- Its trial's goodput and SLO attainment are in `trial_figures`.
CREATE VIEW trial_goodput AS
WITH g AS (
    SELECT m.run_id, m.trial_id, s.slo, m.output_tokens,
           (m.completed
            AND (s.ttft_ns IS NULL OR coalesce(m.ttft_ns <= s.ttft_ns, false))
            AND (s.itl_ns IS NULL OR coalesce(m.itl_ns <= s.itl_ns, false))
            AND (s.latency_ns IS NULL OR coalesce(m.latency_ns <= s.latency_ns, false))) AS good
    -- The SLOs first, and the request's suite from its own partition: the join's build side is
    -- then the few SLO rows, never the requests (100 million request rows as a build side
    -- overflowed Arrow's 2 GiB string offsets). `--slo` gives every suite a row of its own,
    -- so an equality is the whole join condition (a hash join, not a nested loop).
    FROM slo s
    -- Only SLOs with a per-request bound give goodput (percentile-only SLOs do not).
    JOIN measured_requests m ON s.suite = m.suite
               AND (s.ttft_ns IS NOT NULL OR s.itl_ns IS NOT NULL OR s.latency_ns IS NOT NULL)
)
SELECT run_id, trial_id, slo,
       count(*) AS measured,
       sum(CASE WHEN good THEN 1 ELSE 0 END) AS good,
       sum(CASE WHEN good THEN coalesce(output_tokens, 0) ELSE 0 END) AS good_tokens
FROM g
GROUP BY run_id, trial_id, slo
