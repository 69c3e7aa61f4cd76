//! Catch2 XML reporter output (`-r xml`, `--reporter XML::out=…`), v2 and v3: the root is
//! `<Catch name=…>` (v2, test cases under `<Group>`) or `<Catch2TestRun name=…>` (v3); each
//! `BENCHMARK` is a `<BenchmarkResults name=… samples=… resamples=… iterations=…
//! clockResolution=… estimatedDuration=…>` holding `<mean value=… lowerBound=… upperBound=…
//! ci=…/>`, `<standardDeviation …/>` and `<outliers …/>`, all in nanoseconds ("All values in
//! nano seconds", Catch2's `XmlReporter::benchmarkStarting`), or `<failed message=…/>`.
//!
//! Each benchmark is one trial, named as the console reporter's adapter (`catch2`) names it:
//! the arm is its name, param `test_case` the `<TestCase>` name and the names of the
//! `<Section>`s around the benchmark, joined with ` / `. Metrics, the console adapter's where
//! they mean the same (ns, lower is better): `mean_time`, `mean_time_low`, `mean_time_high`
//! (the bootstrap bounds of the mean at confidence `ci`), `std_dev_time`, `std_dev_time_low`,
//! `std_dev_time_high`; and, which the console table shows too but its adapter does not keep,
//! `samples` (how many samples Catch2 took, each of `iterations` runs; count, higher is
//! better as pytest-benchmark's `rounds`). Resamples, iterations, clock resolution, estimated
//! duration and outlier counts are not kept. A benchmark with `<failed>` lands as a failed
//! trial without figures, all of them said in one warning; a file whose every benchmark
//! failed, or that holds none, is refused. A report cut short (no closing root element, as a
//! crashed run leaves it) lands the benchmarks it finished, with a warning.

use std::path::Path;

use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};

use super::adapter::Parsed;
use super::text::{line_error, metric};
use super::{IngestError, ParsedTrial};
use crate::model::Better;

/// The root element of a Catch2 XML report: v3's, then v2's.
const ROOTS: [&str; 2] = ["Catch2TestRun", "Catch"];

/// The name of the first element of `text`, past the XML declaration, processing
/// instructions (a stylesheet), comments and a doctype.
fn root_name(text: &str) -> Option<&str> {
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("<?") {
            rest = r.split_once("?>")?.1.trim_start();
        } else if let Some(r) = rest.strip_prefix("<!--") {
            rest = r.split_once("-->")?.1.trim_start();
        } else if let Some(r) = rest.strip_prefix("<!") {
            rest = r.split_once('>')?.1.trim_start();
        } else {
            break;
        }
    }
    let r = rest.strip_prefix('<')?;
    let end = r.find(|c: char| c.is_whitespace() || c == '>' || c == '/')?;
    Some(&r[..end])
}

pub fn sniff(text: &str) -> bool {
    // The root is near the top; a report of test cases without benchmarks is still Catch2's
    // (parse then says it holds no benchmark).
    let head = match text.char_indices().nth(4096) {
        Some((i, _)) => &text[..i],
        None => text,
    };
    root_name(head).is_some_and(|r| ROOTS.contains(&r))
}

/// 1-based line of byte offset `pos` of `text`.
fn line_at(text: &str, pos: u64) -> usize {
    let pos = (pos as usize).min(text.len());
    text.as_bytes()[..pos].iter().filter(|b| **b == b'\n').count() + 1
}

/// One `<BenchmarkResults>` being read.
struct Bench {
    name: String,
    line: usize,
    samples: Option<f64>,
    mean: Option<[f64; 3]>,
    std_dev: Option<[f64; 3]>,
    failed: Option<String>,
}

/// Attribute `key` of element `e` at `line`, unescaped.
fn attr(path: &Path, line: usize, e: &BytesStart, key: &str) -> Result<Option<String>, IngestError> {
    for a in e.attributes() {
        let a = a.map_err(|x| line_error(path, line, format!("{x} (expected XML attributes)")))?;
        if a.key.as_ref() == key.as_bytes() {
            let v = a
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|x| line_error(path, line, format!("attribute `{key}`: {x}")))?;
            return Ok(Some(v.into_owned()));
        }
    }
    Ok(None)
}

/// The number (ns) attribute `key` of the `<mean>` or `<standardDeviation>` element `e`.
fn bound(path: &Path, line: usize, e: &BytesStart, elem: &str, key: &str) -> Result<f64, IngestError> {
    let v = attr(path, line, e, key)?.ok_or_else(|| {
        line_error(
            path,
            line,
            format!("`<{elem}>` has no `{key}` (expected `<{elem} value=… lowerBound=… upperBound=…/>`, in ns)"),
        )
    })?;
    v.trim().parse::<f64>().map_err(|_| {
        line_error(
            path,
            line,
            format!("`<{elem} {key}=\"{v}\">`: expected a number (ns)"),
        )
    })
}

/// Where the reading of a report stands: the root element, the test case and sections
/// around the benchmark being read, and the trials so far.
struct Report<'p> {
    path: &'p Path,
    root: Option<String>,
    /// The root element was closed (the run was not cut short).
    closed: bool,
    test_case: Option<String>,
    sections: Vec<String>,
    bench: Option<Bench>,
    trials: Vec<ParsedTrial>,
    /// The benchmarks that failed: `` `name` (line n): message ``.
    failed: Vec<String>,
}

impl<'p> Report<'p> {
    fn new(path: &'p Path) -> Report<'p> {
        Report {
            path,
            root: None,
            closed: false,
            test_case: None,
            sections: Vec::new(),
            bench: None,
            trials: Vec::new(),
            failed: Vec::new(),
        }
    }

    /// An element opened at `line` (`empty`: it closed at once, `<…/>`).
    fn start(&mut self, e: &BytesStart, empty: bool, line: usize) -> Result<(), IngestError> {
        let path = self.path;
        let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        if self.root.is_none() {
            if !ROOTS.contains(&name.as_str()) {
                return Err(line_error(
                    path,
                    line,
                    format!(
                        "the root element is `<{name}>` (expected a Catch2 XML report: `<Catch2TestRun>` or, Catch2 v2, `<Catch>`)"
                    ),
                ));
            }
            self.closed = empty;
            self.root = Some(name);
            return Ok(());
        }
        match name.as_str() {
            "TestCase" if !empty => {
                self.test_case = attr(path, line, e, "name")?;
                self.sections.clear();
            }
            "Section" if !empty => self
                .sections
                .push(attr(path, line, e, "name")?.unwrap_or_default()),
            "BenchmarkResults" => {
                let b = self.bench_start(e, line)?;
                if empty {
                    self.finish(b)?;
                } else {
                    self.bench = Some(b);
                }
            }
            "mean" | "standardDeviation" => {
                if let Some(b) = self.bench.as_mut() {
                    let v = [
                        bound(path, line, e, &name, "value")?,
                        bound(path, line, e, &name, "lowerBound")?,
                        bound(path, line, e, &name, "upperBound")?,
                    ];
                    if name == "mean" {
                        b.mean = Some(v);
                    } else {
                        b.std_dev = Some(v);
                    }
                }
            }
            "failed" => {
                if let Some(b) = self.bench.as_mut() {
                    b.failed = Some(attr(path, line, e, "message")?.unwrap_or_default());
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A `<BenchmarkResults>` opened at `line`, not inside another.
    fn bench_start(&self, e: &BytesStart, line: usize) -> Result<Bench, IngestError> {
        let path = self.path;
        if let Some(open) = &self.bench {
            return Err(line_error(
                path,
                line,
                format!(
                    "`<BenchmarkResults>` inside `<BenchmarkResults name=\"{}\">` of line {} (expected `</BenchmarkResults>` first)",
                    open.name, open.line
                ),
            ));
        }
        let name = attr(path, line, e, "name")?.ok_or_else(|| {
            line_error(
                path,
                line,
                "`<BenchmarkResults>` has no `name` (expected the benchmark's name)",
            )
        })?;
        let samples = match attr(path, line, e, "samples")? {
            Some(s) => Some(s.trim().parse::<f64>().map_err(|_| {
                line_error(
                    path,
                    line,
                    format!("`samples=\"{s}\"`: expected a count of samples"),
                )
            })?),
            None => None,
        };
        Ok(Bench {
            name,
            line,
            samples,
            mean: None,
            std_dev: None,
            failed: None,
        })
    }

    /// The trial of one closed `<BenchmarkResults>`.
    fn finish(&mut self, b: Bench) -> Result<(), IngestError> {
        let mut t = ParsedTrial {
            arm: Some(b.name.clone()),
            ..Default::default()
        };
        if let Some(tc) = &self.test_case {
            let title: Vec<&str> = std::iter::once(tc.trim())
                .chain(self.sections.iter().map(|s| s.trim()))
                .collect();
            t.params.insert("test_case".to_string(), title.join(" / "));
        }
        if let Some(message) = b.failed {
            self.failed
                .push(format!("`{}` (line {}): {message}", b.name, b.line));
            t.failed = true;
            self.trials.push(t);
            return Ok(());
        }
        let mean = b.mean.ok_or_else(|| {
            line_error(
                self.path,
                b.line,
                format!(
                    "`<BenchmarkResults name=\"{}\">` has neither `<mean …/>` nor `<failed …/>` (expected `<mean value=… lowerBound=… upperBound=…/>`, in ns)",
                    b.name
                ),
            )
        })?;
        let m = |n: &str, v: f64| metric("catch2", n, v, "ns", Better::Lower);
        t.metrics = vec![
            m("mean_time", mean[0]),
            m("mean_time_low", mean[1]),
            m("mean_time_high", mean[2]),
        ];
        if let Some(sd) = b.std_dev {
            t.metrics.extend([
                m("std_dev_time", sd[0]),
                m("std_dev_time_low", sd[1]),
                m("std_dev_time_high", sd[2]),
            ]);
        }
        if let Some(s) = b.samples {
            t.metrics
                .push(metric("catch2", "samples", s, "count", Better::Higher));
        }
        self.trials.push(t);
        Ok(())
    }

    /// An element closed.
    fn end(&mut self, name: &[u8]) -> Result<(), IngestError> {
        match name {
            b"BenchmarkResults" => {
                if let Some(b) = self.bench.take() {
                    self.finish(b)?;
                }
            }
            b"Section" => {
                self.sections.pop();
            }
            b"TestCase" => {
                self.test_case = None;
                self.sections.clear();
            }
            n if self.root.as_deref().is_some_and(|r| r.as_bytes() == n) => self.closed = true,
            _ => {}
        }
        Ok(())
    }

    /// The trials of the whole report: refused when it has no root, no benchmark or only
    /// failed ones; warned when it was cut short or some failed.
    fn parsed(self) -> Result<Parsed, IngestError> {
        let path = self.path;
        if self.root.is_none() {
            return Err(line_error(
                path,
                1,
                "no root element (expected a Catch2 XML report: `<Catch2TestRun>` or `<Catch>`)",
            ));
        }
        let mut warnings = Vec::new();
        if !self.closed {
            let cut = match &self.bench {
                Some(b) => format!(
                    "; `<BenchmarkResults name=\"{}\">` of line {} has no results and is left out",
                    b.name, b.line
                ),
                None => String::new(),
            };
            warnings.push(format!(
                "{}: the report ends before `</{}>` (the run was cut short): the {} benchmark(s) it finished land{cut}",
                path.display(),
                self.root.as_deref().unwrap_or("Catch2TestRun"),
                self.trials.len()
            ));
        }
        if self.trials.iter().all(|t: &ParsedTrial| t.failed) {
            let message = if self.trials.is_empty() {
                "no benchmark results found (expected `<BenchmarkResults>` elements: the test cases ran no BENCHMARK; run the benchmarks, without --skip-benchmarks)".to_string()
            } else {
                format!(
                    "every benchmark failed, nothing to land: {} (fix the benchmarks and run them again)",
                    self.failed.join("; ")
                )
            };
            return Err(line_error(path, 1, message));
        }
        if !self.failed.is_empty() {
            warnings.push(format!(
                "{}: {} benchmark(s) failed in Catch2 and land as failed trials without figures: {}",
                path.display(),
                self.failed.len(),
                self.failed.join("; ")
            ));
        }
        Ok(Parsed::with_warnings(self.trials, warnings))
    }
}

pub fn parse(path: &Path, text: &str) -> Result<Parsed, IngestError> {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut report = Report::new(path);
    loop {
        let pos = reader.buffer_position();
        let event = reader.read_event().map_err(|e| {
            line_error(
                path,
                line_at(text, reader.error_position()),
                format!("{e} (expected a Catch2 XML report)"),
            )
        })?;
        let line = line_at(text, pos);
        match event {
            Event::Eof => break,
            Event::Start(ref e) => report.start(e, false, line)?,
            Event::Empty(ref e) => report.start(e, true, line)?,
            Event::End(ref e) => report.end(e.name().as_ref())?,
            _ => {}
        }
    }
    report.parsed()
}

/// `*.xml` files.
fn xml_file(_: &Path, name: &str) -> bool {
    name.ends_with(".xml")
}

/// Catch2's XML reporter output as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::Document {
    name: "catch2-xml",
    description: "Catch2 XML reporter (`-r xml`, v2/v3) benchmark results: each <BenchmarkResults> is a trial",
    hint: "Catch2 `-r xml` report",
    claims: super::adapter::no_name,
    walks: xml_file,
    sniff: |input| input.doc().is_none() && input.text().is_some_and(sniff),
    parse: super::adapter::Reader::Text(parse),
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Catch2 v2's shape (`XmlReporter::testRunStarting`/`testGroupStarting`: `<Catch>`, then
    /// `<Group>`), written by hand (a real one, Catch2 2.13.10's, is made here and tested in
    /// tests/it/made_here.rs); the first benchmark's numbers are those of a v2 run quoted in a
    /// project's build script.
    const V2: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<Catch name="Test">
  <Group name="Test">
    <TestCase name="read" filename="Main.cpp" line="209">
      <Section name="buffered &amp; big" filename="Main.cpp" line="210">
        <BenchmarkResults name="read &lt;5k&gt;" samples="100" resamples="100000" iterations="1" clockResolution="49" estimatedDuration="39510700">
          <!--All values in nano seconds-->
          <mean value="445059" lowerBound="431008" upperBound="464146" ci="0.95"/>
          <standardDeviation value="83000.9" lowerBound="65483.3" upperBound="108780" ci="0.95"/>
          <outliers variance="0.93603" lowMild="0" lowSevere="0" highMild="3" highSevere="2"/>
        </BenchmarkResults>
        <OverallResults successes="0" failures="0" expectedFailures="0"/>
      </Section>
      <BenchmarkResults name="broken" samples="100" resamples="100000" iterations="1" clockResolution="49" estimatedDuration="1">
        <!--All values in nano seconds-->
        <failed message="boom"/>
      </BenchmarkResults>
      <OverallResult success="false"/>
    </TestCase>
  </Group>
</Catch>
"#;

    #[test]
    fn v2_root_sections_escapes_and_a_failed_benchmark() {
        assert!(sniff(V2));
        let p = parse(Path::new("x.xml"), V2).unwrap();
        assert_eq!(p.trials.len(), 2);
        let t = &p.trials[0];
        assert_eq!(t.arm.as_deref(), Some("read <5k>"));
        assert_eq!(t.params["test_case"], "read / buffered & big");
        let v: Vec<(&str, f64)> = t.metrics.iter().map(|m| (m.name.as_str(), m.value)).collect();
        assert_eq!(
            v,
            [
                ("mean_time", 445059.0),
                ("mean_time_low", 431008.0),
                ("mean_time_high", 464146.0),
                ("std_dev_time", 83000.9),
                ("std_dev_time_low", 65483.3),
                ("std_dev_time_high", 108780.0),
                ("samples", 100.0),
            ]
        );
        assert!(p.trials[1].failed && p.trials[1].metrics.is_empty());
        assert_eq!(p.trials[1].params["test_case"], "read");
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(
            p.warnings[0].contains("1 benchmark(s) failed") && p.warnings[0].contains("`broken` (line 14): boom"),
            "{}",
            p.warnings[0]
        );
    }

    #[test]
    fn refusals_name_the_line_and_what_was_expected() {
        let no_mean = "<Catch2TestRun name=\"t\">\n<TestCase name=\"c\">\n<BenchmarkResults name=\"b\" samples=\"3\">\n</BenchmarkResults>\n</TestCase>\n</Catch2TestRun>\n";
        let e = parse(Path::new("r.xml"), no_mean).unwrap_err().to_string();
        assert!(e.starts_with("r.xml:3: ") && e.contains("neither `<mean"), "{e}");

        let bad = no_mean.replace(
            "samples=\"3\">\n",
            "samples=\"3\">\n<mean value=\"x\" lowerBound=\"1\" upperBound=\"2\"/>",
        );
        let e = parse(Path::new("r.xml"), &bad).unwrap_err().to_string();
        assert!(e.starts_with("r.xml:4: ") && e.contains("expected a number"), "{e}");

        let none = "<?xml version=\"1.0\"?>\n<Catch2TestRun name=\"t\">\n<TestCase name=\"c\"><OverallResult success=\"true\"/></TestCase>\n</Catch2TestRun>\n";
        assert!(sniff(none));
        let e = parse(Path::new("r.xml"), none).unwrap_err().to_string();
        assert!(e.contains("no benchmark results found"), "{e}");

        let all_failed = "<Catch2TestRun>\n<TestCase name=\"c\">\n<BenchmarkResults name=\"b\">\n<failed message=\"threw\"/>\n</BenchmarkResults>\n</TestCase>\n</Catch2TestRun>\n";
        let e = parse(Path::new("r.xml"), all_failed).unwrap_err().to_string();
        assert!(e.contains("every benchmark failed") && e.contains("`b` (line 3): threw"), "{e}");

        assert!(!sniff("<testsuites><testsuite name=\"x\"/></testsuites>"));
        assert!(!sniff("<Catch2TestRunner/>"));
        assert!(!sniff("benchmark name  samples"));
    }

    #[test]
    fn a_report_cut_short_lands_what_it_finished() {
        let cut = "<Catch2TestRun name=\"t\">\n<TestCase name=\"c\">\n<BenchmarkResults name=\"a\" samples=\"2\">\n<mean value=\"10\" lowerBound=\"9\" upperBound=\"11\" ci=\"0.95\"/>\n</BenchmarkResults>\n<BenchmarkResults name=\"b\" samples=\"2\">\n";
        let p = parse(Path::new("c.xml"), cut).unwrap();
        assert_eq!(p.trials.len(), 1);
        assert_eq!(p.trials[0].metrics.len(), 4, "mean, its bounds, samples");
        assert!(
            p.warnings[0].contains("cut short") && p.warnings[0].contains("`<BenchmarkResults name=\"b\">` of line 6"),
            "{:?}",
            p.warnings
        );
    }
}
