//! Service-level objectives of LLM serving, and the `slo` table the goodput views join.
//!
//! An SLO is `METRIC<=MS` (every request must meet it: TTFT, ITL or end-to-end latency) or
//! `pNN(METRIC)<=MS` (a percentile of a trial must: p50, p90 or p99). METRIC is `ttft_ms`,
//! `itl_ms` (the request's mean inter-token latency, vLLM's TPOT) or `latency_ms` (end to end).
//! They come from `--slo` (every suite) or else from the newest run of a suite with an `slo`
//! label (a plan's `slo = [...]`, or `--label slo=ttft_ms<=200,itl_ms<=20`).
//!
//! Per-request SLOs give, per trial (views `trial_goodput` → `trial_figures`):
//! - **goodput**: completed requests that met every per-request SLO, per second of the trial's
//!   measured window (`goodput_rps`), and their output tokens per second (`goodput_tps`), as
//!   vLLM's `--goodput` and DistServe define it;
//! - **SLO attainment**: those requests as a share of all measured requests, in % (an error or a
//!   cancelled request misses its SLO; a request without the measured value, e.g. no TTFT in a
//!   non-streaming run, is not counted as meeting it).
//!
//! Percentile SLOs are judged on trial and arm figures (`perfhouse sweep`: capacity at SLO).

use std::fmt;
use std::str::FromStr;

/// What an SLO bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SloMetric {
    Ttft,
    Itl,
    Latency,
}

impl SloMetric {
    pub fn name(self) -> &'static str {
        match self {
            SloMetric::Ttft => "ttft_ms",
            SloMetric::Itl => "itl_ms",
            SloMetric::Latency => "latency_ms",
        }
    }

    /// The `trial_figures` column of a percentile of it.
    pub fn column(self, percentile: u32) -> String {
        let stem = match self {
            SloMetric::Ttft => "ttft",
            SloMetric::Itl => "itl",
            SloMetric::Latency => "latency",
        };
        format!("{stem}_p{percentile}_ms")
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Slo {
    pub metric: SloMetric,
    /// `None`: every request; `Some(99)`: the trial's p99.
    pub percentile: Option<u32>,
    /// The bound, in ms (met when the value is ≤ it).
    pub max_ms: f64,
}

impl fmt::Display for Slo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.percentile {
            None => write!(f, "{}<={}", self.metric.name(), self.max_ms),
            Some(p) => write!(f, "p{p}({})<={}", self.metric.name(), self.max_ms),
        }
    }
}

impl FromStr for Slo {
    type Err = String;

    fn from_str(s: &str) -> Result<Slo, String> {
        let expected = "expected METRIC<=MS or pNN(METRIC)<=MS with METRIC one of ttft_ms, \
                        itl_ms, latency_ms and NN one of 50, 90, 99 (e.g. ttft_ms<=200, \
                        p99(ttft_ms)<=500)";
        let (lhs, rhs) = s
            .split_once("<=")
            .ok_or_else(|| format!("SLO {s:?}: {expected}"))?;
        let max_ms: f64 = rhs
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v > 0.0)
            .ok_or_else(|| format!("SLO {s:?}: bound {rhs:?} is not a positive number of ms"))?;
        let lhs = lhs.trim();
        let (percentile, name) = match lhs.strip_prefix('p').and_then(|r| r.split_once('(')) {
            Some((p, rest)) if rest.ends_with(')') => {
                let p: u32 = p
                    .parse()
                    .ok()
                    .filter(|p| [50, 90, 99].contains(p))
                    .ok_or_else(|| format!("SLO {s:?}: {expected}"))?;
                (Some(p), &rest[..rest.len() - 1])
            }
            _ => (None, lhs),
        };
        let metric = match name {
            "ttft_ms" => SloMetric::Ttft,
            "itl_ms" | "tpot_ms" => SloMetric::Itl,
            "latency_ms" | "e2el_ms" => SloMetric::Latency,
            _ => return Err(format!("SLO {s:?}: {expected}")),
        };
        Ok(Slo {
            metric,
            percentile,
            max_ms,
        })
    }
}

/// A set of SLOs (all must hold).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Slos(pub Vec<Slo>);

impl Slos {
    /// `ttft_ms<=200,itl_ms<=20` (the `slo` label), or several `--slo` values.
    pub fn parse<'a>(items: impl IntoIterator<Item = &'a str>) -> Result<Slos, String> {
        let mut out = Vec::new();
        for item in items {
            for part in item.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                out.push(part.parse()?);
            }
        }
        Ok(Slos(out))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The per-request bound of `metric` in ns (the tightest where given twice).
    pub fn per_request_ns(&self, metric: SloMetric) -> Option<f64> {
        self.0
            .iter()
            .filter(|s| s.metric == metric && s.percentile.is_none())
            .map(|s| s.max_ms * 1e6)
            .reduce(f64::min)
    }

    pub fn has_per_request(&self) -> bool {
        self.0.iter().any(|s| s.percentile.is_none())
    }

    /// The percentile SLOs as (`trial_figures` column, bound in ms).
    pub fn percentiles(&self) -> Vec<(String, f64)> {
        self.0
            .iter()
            .filter_map(|s| s.percentile.map(|p| (s.metric.column(p), s.max_ms)))
            .collect()
    }
}

impl fmt::Display for Slos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(Slo::to_string).collect();
        f.write_str(&parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_per_request_and_percentile_slos() {
        let s = Slos::parse(["ttft_ms<=200, itl_ms<=20", "p99(latency_ms)<=2000"]).unwrap();
        assert_eq!(s.0.len(), 3);
        assert_eq!(s.per_request_ns(SloMetric::Ttft), Some(200e6));
        assert_eq!(s.per_request_ns(SloMetric::Itl), Some(20e6));
        assert_eq!(s.per_request_ns(SloMetric::Latency), None);
        assert_eq!(
            s.percentiles(),
            vec![("latency_p99_ms".to_string(), 2000.0)]
        );
        assert_eq!(
            s.to_string(),
            "ttft_ms<=200,itl_ms<=20,p99(latency_ms)<=2000"
        );
        assert_eq!(Slos::parse([s.to_string().as_str()]).unwrap(), s);
        for bad in [
            "ttft<=200",
            "ttft_ms<200",
            "p95(ttft_ms)<=1",
            "ttft_ms<=-1",
            "ttft_ms<=x",
        ] {
            let e = Slos::parse([bad]).unwrap_err();
            assert!(e.contains(bad), "{e}");
        }
    }
}
