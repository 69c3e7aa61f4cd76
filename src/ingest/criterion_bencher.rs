//! criterion's bencher-style output (`cargo bench -- --output-format bencher`, criterion's
//! `BencherReport`: `test <id> ... bench: <median> ns/iter (+/- <std dev>)`), the text
//! github-action-benchmark's `cargo` tool reads. Its lines imitate libtest's, so one parser
//! reads both (`super::libtest_bench`, which says how they are told apart); this format is
//! the file that holds criterion's lines only: the ids keep their spaces and `/`
//! (`text ops/to upper`), `+/-` is criterion's standard deviation (`time_per_iter_std_dev`),
//! and cargo's lines, compiler warnings and criterion's own (`Warning: Unable to complete 100
//! samples in 5.0s…`, printed between results) are read past.

/// criterion's bencher-style output as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::Document {
    name: "criterion-bencher",
    description: "criterion's `cargo bench -- --output-format bencher` text: each `bench:` line is a trial",
    hint: "criterion `--output-format bencher` text",
    claims: super::adapter::no_name,
    walks: super::adapter::text_file,
    sniff: |input| {
        input.doc().is_none() && input.text().is_some_and(super::libtest_bench::sniff_criterion)
    },
    parse: super::adapter::Reader::Text(super::libtest_bench::parse),
};
