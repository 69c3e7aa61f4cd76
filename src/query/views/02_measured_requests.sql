-- The requests that count, defined once: measured ones (warm-up requests stay in `requests`
-- but are never counted; a record without a phase is measured), with `completed` = no error
-- and not cancelled. trial_window, trial_requests and the site's latency CDFs read this.
CREATE VIEW measured_requests AS
SELECT *, (error_code IS NULL AND NOT cancelled) AS completed
FROM requests
WHERE coalesce(phase, 'measured') = 'measured'
