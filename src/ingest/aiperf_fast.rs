//! A one-pass reader of the aiperf records that look as aiperf writes them, taken before
//! serde_json ([`record`]). It decodes only the fields the `requests` table reads and checks
//! the rest of the line against JSON's grammar without decoding it (no key matched against a
//! struct's fields, no number converted, no value built).
//!
//! It gives the same [`Record`] serde_json gives, or nothing: whatever it is not sure of (a
//! syntax error, an escape in a key or a read string, a `\u` escape anywhere, a duplicate
//! field, an integer past u64, `-0` or an exponent where a value is read, nesting deeper than
//! 100, a value of the wrong type) makes it return `None`, and the caller parses the line with
//! serde_json, which then decides, with its own message for a line that is wrong. So what it
//! accepts, serde_json accepts and reads the same; a proptest of mutated records holds the two
//! equal (`tests::the_fast_reader_agrees_with_serde_json`).

use super::{ErrorDetails, METRICS, Metadata, MetricEntry, Metrics, Record};

/// The record on `text` (one trimmed line), when it can be read without serde_json.
pub(super) fn record(text: &str) -> Option<Record> {
    let mut s = Scan {
        text,
        b: text.as_bytes(),
        i: 0,
    };
    let rec = s.record()?;
    s.ws();
    (s.i == s.b.len()).then_some(rec)
}

/// Deepest nesting skipped (serde_json stops at 128).
const MAX_DEPTH: usize = 100;

struct Scan<'a> {
    /// The line, sliced (never validated again: every slice taken is between ASCII bytes).
    text: &'a str,
    b: &'a [u8],
    i: usize,
}

/// A number as serde_json would hand it to a visitor.
enum Num {
    U(u64),
    I(i64),
    F(f64),
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    /// Skips whitespace and takes `c`.
    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.peek()? == c).then(|| self.i += 1)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.b[self.i..]
            .starts_with(word)
            .then(|| self.i += word.len())
    }

    /// Skips whitespace; takes `null` if it is next.
    fn null(&mut self) -> bool {
        self.ws();
        self.literal(b"null").is_some()
    }

    /// A string without escapes (the cursor on its opening quote), as the text between the
    /// quotes; `None` for one with an escape or a control character.
    fn plain_str(&mut self) -> Option<&'a str> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.i + 1;
        let end = start + self.string_body(start)?;
        if self.b[end] != b'"' {
            return None;
        }
        self.i = end + 1;
        Some(&self.text[start..end])
    }

    /// How many bytes from `at` are string content without `"`, `\` or a control character.
    fn string_body(&self, at: usize) -> Option<usize> {
        let rest = self.b.get(at..)?;
        let mut n = 0;
        // Eight bytes at a time: any byte that is `"`, `\` or below 0x20 ends the run.
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        while let Some(chunk) = rest.get(n..n + 8) {
            let v = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            let quote = v ^ (ONES * b'"' as u64);
            let slash = v ^ (ONES * b'\\' as u64);
            let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
            let below = v.wrapping_sub(ONES * 0x20) & !v & HIGH;
            if zero(quote) | zero(slash) | below != 0 {
                break;
            }
            n += 8;
        }
        while let Some(&c) = rest.get(n) {
            if c == b'"' || c == b'\\' || c < 0x20 {
                return Some(n);
            }
            n += 1;
        }
        None
    }

    /// Skips a string (the cursor on its opening quote): escapes as JSON has them, `\u` left
    /// to serde_json.
    fn skip_str(&mut self) -> Option<()> {
        self.i += 1;
        loop {
            self.i += self.string_body(self.i)?;
            match self.b[self.i] {
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                b'\\' => match self.b.get(self.i + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                    _ => return None,
                },
                _ => return None,
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        self.i - start
    }

    /// A number by JSON's grammar (the cursor on its first byte); returns whether it is an
    /// integer and whether it has an exponent.
    fn number_token(&mut self) -> Option<(bool, bool)> {
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek()? {
            b'0' => {
                self.i += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return None;
                }
            }
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        let mut integer = true;
        let mut exponent = false;
        if self.peek() == Some(b'.') {
            self.i += 1;
            integer = false;
            if self.digits() == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            integer = false;
            exponent = true;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some((integer, exponent))
    }

    /// A number's value as serde_json visits it: `U` for a non-negative integer, `I` for a
    /// negative one, `F` otherwise. `None` where serde_json would read it otherwise (`-0`, an
    /// integer past u64 or below i64::MIN, which it reads as a float) or refuse it, or for an
    /// exponent (left to serde_json).
    fn number(&mut self) -> Option<Num> {
        self.ws();
        let start = self.i;
        let (integer, exponent) = self.number_token()?;
        let text = &self.text[start..self.i];
        if integer {
            // Past u64 (or below i64::MIN) serde_json reads the integer as a float.
            return match text.strip_prefix('-') {
                // serde_json reads `-0` as the float -0.0.
                Some(digits) if digits.bytes().all(|c| c == b'0') => None,
                Some(_) => text.parse().ok().map(Num::I),
                None => text.parse().ok().map(Num::U),
            };
        }
        if exponent {
            return None;
        }
        let v: f64 = text.parse().ok()?;
        v.is_finite().then_some(Num::F(v))
    }

    /// Skips one value, checking its grammar.
    fn skip_value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match self.peek()? {
            b'"' => self.skip_str(),
            b'{' => {
                self.i += 1;
                self.members(b'}', |s| {
                    s.ws();
                    if s.peek()? != b'"' {
                        return None;
                    }
                    s.skip_str()?;
                    s.eat(b':')?;
                    s.skip_value(depth + 1)
                })
            }
            b'[' => {
                self.i += 1;
                self.members(b']', |s| s.skip_value(depth + 1))
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number_token().map(|_| ()),
        }
    }

    /// After a member: `Some(true)` on a comma, `Some(false)` on `close`.
    fn next_member(&mut self, close: u8) -> Option<bool> {
        self.ws();
        let c = self.peek()?;
        self.i += 1;
        match c {
            b',' => Some(true),
            c if c == close => Some(false),
            _ => None,
        }
    }

    /// The members of an object or array (the cursor after its opening bracket) up to
    /// `close`, each read by `member`.
    fn members(
        &mut self,
        close: u8,
        mut member: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        self.ws();
        if self.peek()? == close {
            self.i += 1;
            return Some(());
        }
        loop {
            member(self)?;
            if !self.next_member(close)? {
                return Some(());
            }
        }
    }

    /// The members of an object (the cursor before its `{`), each key (without escapes)
    /// handed to `member` with the cursor before its value, which `member` reads.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        self.members(b'}', |s| {
            s.ws();
            let key = s.plain_str()?;
            s.eat(b':')?;
            member(s, key)
        })
    }

    fn record(&mut self) -> Option<Record> {
        let mut metadata = None;
        let mut metrics = None;
        let mut error = None;
        self.object(|s, key| match key {
            "metadata" => once(&mut metadata, s.metadata()?),
            "metrics" => once(&mut metrics, s.metrics()?),
            "error" => once(&mut error, s.error()?),
            _ => s.skip_value(1),
        })?;
        Some(Record {
            metadata: metadata?,
            metrics: metrics.unwrap_or_default(),
            error: error.flatten(),
        })
    }

    fn opt_i64(&mut self) -> Option<Option<i64>> {
        if self.null() {
            return Some(None);
        }
        match self.number()? {
            Num::U(u) => i64::try_from(u).ok().map(Some),
            Num::I(i) => Some(Some(i)),
            Num::F(_) => None,
        }
    }

    fn opt_string(&mut self) -> Option<Option<String>> {
        if self.null() {
            return Some(None);
        }
        self.plain_str().map(|s| Some(s.to_string()))
    }

    fn opt_bool(&mut self) -> Option<Option<bool>> {
        if self.null() {
            return Some(None);
        }
        match self.peek()? {
            b't' => self.literal(b"true").map(|_| Some(true)),
            b'f' => self.literal(b"false").map(|_| Some(false)),
            _ => None,
        }
    }

    fn metadata(&mut self) -> Option<Metadata> {
        let mut md = Metadata {
            request_start_ns: None,
            timestamp_ns: None,
            request_end_ns: None,
            credit_issued_ns: None,
            benchmark_phase: None,
            credit_phase: None,
            was_cancelled: None,
            worker_id: None,
        };
        // serde refuses a field given twice, also as `null` the second time.
        let mut seen = 0u8;
        self.object(|s, key| {
            let bit = match key {
                "request_start_ns" => 0,
                "timestamp_ns" => 1,
                "request_end_ns" => 2,
                "credit_issued_ns" => 3,
                "benchmark_phase" => 4,
                "credit_phase" => 5,
                "was_cancelled" => 6,
                "worker_id" => 7,
                _ => return s.skip_value(1),
            };
            if seen & (1 << bit) != 0 {
                return None;
            }
            seen |= 1 << bit;
            match bit {
                0 => md.request_start_ns = s.opt_i64()?,
                1 => md.timestamp_ns = s.opt_i64()?,
                2 => md.request_end_ns = s.opt_i64()?,
                3 => md.credit_issued_ns = s.opt_i64()?,
                4 => md.benchmark_phase = s.opt_string()?,
                5 => md.credit_phase = s.opt_string()?,
                6 => md.was_cancelled = s.opt_bool()?,
                _ => md.worker_id = s.opt_string()?,
            }
            Some(())
        })?;
        Some(md)
    }

    fn metrics(&mut self) -> Option<Metrics> {
        let mut out = Metrics::default();
        if self.null() {
            return Some(out);
        }
        self.object(|s, key| match METRICS.iter().position(|m| *m == key) {
            Some(i) => {
                let entry = s.metric_entry()?;
                out.0[i].get_or_insert(entry);
                Some(())
            }
            None => s.skip_value(1),
        })?;
        Some(out)
    }

    /// `{"value": number | list | null, "unit": string}` (unit may be missing; other members
    /// skipped).
    fn metric_entry(&mut self) -> Option<MetricEntry> {
        let mut value: Option<Option<f64>> = None;
        let mut unit: Option<String> = None;
        self.object(|s, key| match key {
            "value" => {
                s.ws();
                let v = match s.peek()? {
                    b'n' => s.literal(b"null").map(|_| None)?,
                    b'[' => s.skip_value(1).map(|_| None)?,
                    _ => Some(match s.number()? {
                        Num::U(u) => u as f64,
                        Num::I(i) => i as f64,
                        Num::F(f) => f,
                    }),
                };
                once(&mut value, v)
            }
            "unit" => {
                s.ws();
                let u = s.plain_str()?.to_string();
                once(&mut unit, u)
            }
            _ => s.skip_value(1),
        })?;
        Some(MetricEntry {
            value: value?,
            unit: unit.unwrap_or_default(),
        })
    }

    /// `null` or `{"code": int | null, "type": string | null}`.
    fn error(&mut self) -> Option<Option<ErrorDetails>> {
        if self.null() {
            return Some(None);
        }
        let mut code: Option<Option<i32>> = None;
        let mut kind: Option<Option<String>> = None;
        self.object(|s, key| match key {
            "code" => {
                let c = match s.opt_i64()? {
                    Some(c) => Some(i32::try_from(c).ok()?),
                    None => None,
                };
                once(&mut code, c)
            }
            "type" => {
                let k = s.opt_string()?;
                once(&mut kind, k)
            }
            _ => s.skip_value(1),
        })?;
        Some(Some(ErrorDetails {
            code: code.flatten(),
            kind: kind.flatten(),
        }))
    }
}

/// Sets a field seen for the first time; `None` (serde_json's "duplicate field") otherwise.
fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value);
    Some(())
}

#[cfg(test)]
#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Rng;
    use proptest::prelude::*;

    fn pick<'x>(rng: &mut Rng, items: &[&'x str]) -> &'x str {
        items[rng.below(items.len())]
    }

    /// A JSON value of the kinds aiperf writes, and of the kinds it does not.
    fn value(rng: &mut Rng, depth: usize) -> String {
        match rng.below(if depth > 2 { 5 } else { 7 }) {
            0 if rng.below(5) == 0 => {
                pick(rng, &["01", "1.", ".5", "-", "+1", "1e", "nul", "tru"]).to_string()
            }
            0 => pick(
                rng,
                &[
                    "0",
                    "7",
                    "-3",
                    "-0",
                    "42.5",
                    "-0.0",
                    "1e3",
                    "2.5E-2",
                    "1.0e+400",
                    "18446744073709551615",
                    "18446744073709551616",
                    "9223372036854775808",
                    "-9223372036854775808",
                    "-9223372036854775809",
                    "123456789012345678",
                    "1796084776008747052",
                    "6.8533029999999995",
                ],
            )
            .to_string(),
            1 => pick(rng, &["null", "true", "false"]).to_string(),
            2 => pick(
                rng,
                &[
                    r#""ms""#,
                    r#""profiling""#,
                    r#""warmup""#,
                    r#""a\"b""#,
                    r#""\u0041""#,
                    r#""é""#,
                    r#""tab\there""#,
                    r#""bad\q""#,
                    r#""""#,
                    "\"ctl\u{1}\"",
                    r#""\ud800""#,
                ],
            )
            .to_string(),
            3 | 4 => format!("\"{}\"", pick(rng, &["s", "ns", "ms", "us", "tokens"])),
            5 => {
                let n = rng.below(4);
                let items: Vec<String> = (0..n).map(|_| value(rng, depth + 1)).collect();
                format!("[{}]", items.join(","))
            }
            _ => {
                let n = rng.below(3);
                let items: Vec<String> = (0..n)
                    .map(|_| format!(r#""k{}":{}"#, rng.below(3), value(rng, depth + 1)))
                    .collect();
                format!("{{{}}}", items.join(","))
            }
        }
    }

    /// An object of `n` members, keys from `keys` (now and then one twice), values from `val`.
    fn object(
        rng: &mut Rng,
        keys: &[&str],
        n: usize,
        val: &mut dyn FnMut(&mut Rng, &str) -> String,
    ) -> String {
        let mut order: Vec<&str> = keys.to_vec();
        rng.shuffle(&mut order);
        let members: Vec<String> = (0..n)
            .map(|i| {
                let k = if rng.below(12) == 0 {
                    pick(rng, keys)
                } else {
                    order[i % order.len()]
                };
                let ws = pick(rng, &["", "", "", " ", "\t", "\n "]);
                format!("\"{k}\"{ws}:{ws}{}", val(rng, k))
            })
            .collect();
        format!("{{{}}}", members.join(","))
    }

    fn number(rng: &mut Rng) -> String {
        match rng.below(10) {
            0 => (rng.next_u64() % 1_000_000_000).to_string(),
            1 => format!("{}", (rng.next_u64() % 100_000) as f64 / 977.0),
            2..=4 => "1796084776008747052".to_string(),
            5 => ((rng.next_u64() % 20_000) as f64 / 8.0).to_string(),
            _ => value(rng, 3),
        }
    }

    /// A record as aiperf writes it most of the time, with a chance of every odd thing.
    fn gen_record(rng: &mut Rng) -> String {
        let md_keys = [
            "request_start_ns",
            "timestamp_ns",
            "request_end_ns",
            "credit_issued_ns",
            "benchmark_phase",
            "credit_phase",
            "was_cancelled",
            "worker_id",
            "x_request_id",
            "turn_index",
        ];
        let n = 3 + rng.below(6);
        let metadata = object(rng, &md_keys, n, &mut |rng, k| match (k, rng.below(16)) {
            (_, 0) => value(rng, 1),
            (k, _) if k.ends_with("_ns") || k == "turn_index" => match rng.below(8) {
                0 => number(rng),
                1 => "null".to_string(),
                _ => (1_796_084_776_008_747_052 + rng.below(1 << 30) as u64).to_string(),
            },
            ("was_cancelled", _) => pick(rng, &["true", "false", "null"]).to_string(),
            _ => pick(
                rng,
                &[r#""profiling""#, r#""warmup""#, r#""worker_1""#, "null"],
            )
            .to_string(),
        });
        let mut metric_keys: Vec<&str> = METRICS.to_vec();
        metric_keys.extend([
            "inter_chunk_latency",
            "http_req_waiting",
            "output_token_throughput",
        ]);
        let n = rng.below(8);
        let metrics = object(rng, &metric_keys, n, &mut |rng, _| {
            if rng.below(6) > 0 {
                // As aiperf writes it.
                let v = match rng.below(4) {
                    0 => "[0.0,1.5,2]".to_string(),
                    _ => number(rng),
                };
                let u = pick(rng, &["ms", "tokens", "s", "ns"]);
                return format!(r#"{{"value":{v},"unit":"{u}"}}"#);
            }
            let mut entry_keys = vec!["value", "value", "unit", "unit"];
            if rng.below(6) == 0 {
                entry_keys.push("other");
            }
            let n = 1 + rng.below(3);
            object(rng, &entry_keys, n, &mut |rng, k| match (k, rng.below(5)) {
                (_, 0) => value(rng, 1),
                ("value", 1) => "[0.0,1.5,2]".to_string(),
                ("value", _) => number(rng),
                ("unit", _) => pick(rng, &[r#""ms""#, r#""tokens""#, r#""s""#]).to_string(),
                _ => value(rng, 2),
            })
        });
        let error =
            match rng.below(3) {
                0 => "null".to_string(),
                1 => {
                    let n = 1 + rng.below(3);
                    object(rng, &["code", "type", "message"], n, &mut |rng, k| match (
                        k,
                        rng.below(3),
                    ) {
                        (_, 0) => value(rng, 1),
                        ("code", _) => pick(rng, &["499", "500", "-1", "3000000000"]).to_string(),
                        _ => r#""RequestCancellationError""#.to_string(),
                    })
                }
                _ => value(rng, 1),
            };
        let mut members = vec![
            format!(r#""metadata":{metadata}"#),
            format!(r#""metrics":{metrics}"#),
            format!(r#""error":{error}"#),
        ];
        if rng.below(4) == 0 {
            members.push(format!(r#""extra":{}"#, value(rng, 0)));
        }
        if rng.below(8) == 0 {
            members.remove(rng.below(members.len()));
        }
        if rng.below(10) == 0 {
            let again = members[rng.below(members.len())].clone();
            members.push(again);
        }
        rng.shuffle(&mut members);
        format!("{{{}}}", members.join(","))
    }

    /// One byte edit: deleted, doubled, or a JSON-significant character put in.
    fn mutate(rng: &mut Rng, text: &str) -> String {
        let mut b = text.as_bytes().to_vec();
        if b.is_empty() {
            return String::new();
        }
        let at = rng.below(b.len());
        match rng.below(4) {
            0 => {
                b.remove(at);
            }
            1 => b.insert(at, b[at]),
            2 => b.truncate(at),
            _ => b.insert(at, b"{}[],:\"\\0-.eE n"[rng.below(15)]),
        }
        String::from_utf8_lossy(&b).into_owned()
    }

    fn compare(text: &str) -> bool {
        let fast = record(text);
        let serde = serde_json::from_str::<Record>(text);
        if let Some(f) = &fast {
            match &serde {
                Ok(s) => assert_eq!(format!("{f:?}"), format!("{s:?}"), "{text}"),
                Err(e) => panic!("the fast reader took what serde_json refuses ({e}): {text}"),
            }
        }
        fast.is_some()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// What the fast reader takes, serde_json takes and reads the same (Debug shows -0.0
        /// apart from 0.0); mutated records are mostly refused by one or both.
        #[test]
        fn the_fast_reader_agrees_with_serde_json(seed in any::<u64>(), edits in 0usize..3) {
            let mut rng = Rng::new(seed);
            let mut text = gen_record(&mut rng);
            for _ in 0..edits {
                text = mutate(&mut rng, &text);
            }
            compare(text.trim());
        }
    }

    /// The generator makes records serde_json takes and records it refuses, and of those it
    /// takes the fast reader reads most (the rest have a `\u`, an exponent or a `-0`).
    #[test]
    fn the_generator_exercises_both_paths() {
        let (mut fast, mut valid, total) = (0usize, 0usize, 2000u64);
        let total_n = total as usize;
        for seed in 0..total {
            let text = gen_record(&mut Rng::new(seed));
            valid += serde_json::from_str::<Record>(&text).is_ok() as usize;
            fast += compare(&text) as usize;
        }
        assert!(
            valid > total_n / 10 && valid < total_n * 9 / 10,
            "{valid} of {total} valid"
        );
        assert!(
            fast > valid * 8 / 10,
            "{fast} of {valid} valid records read fast"
        );
    }

    #[test]
    fn strings_numbers_and_nesting_follow_json() {
        let ok = r#"{"metadata":{"request_start_ns":5,"x":[1,{"y":[true,false,null]}],"s":"a\"b\\c\/\n"},"metrics":{}}"#;
        assert!(compare(ok));
        for bad in [
            r#"{"metadata":{"request_start_ns":5,"x":01}}"#,
            r#"{"metadata":{"request_start_ns":5,"x":1.}}"#,
            r#"{"metadata":{"request_start_ns":5,"x":"\q"}}"#,
            r#"{"metadata":{"request_start_ns":5,},"metrics":{}}"#,
            r#"{"metadata":{"request_start_ns":5}} x"#,
            r#"{"metadata":{"request_start_ns":5,"request_start_ns":6}}"#,
            r#"{"metadata":{"request_start_ns":5.0}}"#,
        ] {
            assert!(!compare(bad), "{bad}");
            assert!(serde_json::from_str::<Record>(bad).is_err(), "{bad}");
        }
        // Read by serde_json, left to it by the fast reader: an escape in a key, `-0`, a `\u`.
        for fallback in [
            r#"{"metad\u0061ta":{"request_start_ns":5}}"#,
            r#"{"metadata":{"request_start_ns":5},"metrics":{"ttft":{"value":-0,"unit":"ms"}}}"#,
            r#"{"metadata":{"request_start_ns":5,"x":"\u00e9"}}"#,
        ] {
            assert!(!compare(fallback), "{fallback}");
            assert!(
                serde_json::from_str::<Record>(fallback).is_ok(),
                "{fallback}"
            );
        }
        let deep = format!(
            r#"{{"metadata":{{"request_start_ns":5,"x":{}1{}}}}}"#,
            "[".repeat(120),
            "]".repeat(120)
        );
        assert!(!compare(&deep));
    }

    /// Every record of the bundled aiperf captures is read by the fast reader, as serde_json
    /// reads it.
    #[test]
    fn the_bundled_captures_are_read_fast() {
        use std::io::BufRead;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files: Vec<std::path::PathBuf> = glob::glob(&format!(
            "{}/datasets/dynamo-frontend/data/**/profile_export.jsonl.gz",
            root.display()
        ))
        .unwrap()
        .map(Result::unwrap)
        .collect();
        files.sort();
        assert!(!files.is_empty());
        let mut n = 0;
        for f in files {
            let gz = flate2::read::GzDecoder::new(std::fs::File::open(&f).unwrap());
            for line in std::io::BufReader::new(gz).lines() {
                let line = line.unwrap();
                if line.trim().is_empty() {
                    continue;
                }
                assert!(compare(line.trim()), "{}: {line}", f.display());
                n += 1;
            }
        }
        assert!(n > 1000, "{n} records");
    }
}
