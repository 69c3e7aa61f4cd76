//! A warehouse in object storage, against a real S3 API: PyPI's `moto` in its standalone
//! server mode on loopback (tests/run.sh installs it into .venv), which implements conditional
//! PutObject (`If-None-Match: *`), run through tests/s3_server.py so that its writes are atomic
//! as S3's are. Each test starts its own server on a free port.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::s3::S3;
use common::{our_aiperf, stderr, stdout};

/// Files of a built site, less the builder's cache.
fn walkdir_files(dir: &std::path::Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            if e.file_name() != ".perfhouse-cache" {
                n += walkdir_files(&p);
            }
        } else {
            n += 1;
        }
    }
    n
}

fn aiperf_jsonl(n: usize, salt: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        let start = 1_700_000_000_000_000_000u64 + (i as u64) * 1_000_000 + salt as u64;
        out.push_str(&format!(
            r#"{{"metadata":{{"request_start_ns":{start},"benchmark_phase":"profiling"}},"metrics":{{"request_latency":{{"value":{},"unit":"ms"}},"output_sequence_length":{{"value":5,"unit":"tokens"}}}},"error":null}}"#,
            10 + (i * 7 + salt) % 13
        ));
        out.push('\n');
    }
    out
}

const PER_TRIAL: &str = "SELECT trial_id, requests, latency_p50_ms, latency_p99_ms, throughput_rps \
                         FROM trial_figures ORDER BY trial_id";

#[cfg_attr(
    not(feature = "s3"),
    ignore = "needs the s3 feature: tests/run.sh --ci"
)]
#[test]
fn a_bucket_warehouse_ingests_queries_and_builds_the_site_as_a_directory_does() {
    let Some(s3) = S3::start("bench") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let url = "s3://bench/team/perf";
    let sample = our_aiperf();
    let sample = sample.to_str().unwrap();
    let o = s3.ok(t, url, &["ingest", "--suite", "llm", sample]);
    assert!(
        stderr(&o).contains("pushed 1 run(s) to s3://bench/team/perf"),
        "{}",
        stderr(&o)
    );
    // The same input again: claimed by the first run, nothing pushed.
    let o = s3.ok(t, url, &["ingest", "--suite", "llm", sample]);
    assert!(
        stderr(&o).contains("its input is in s3://bench/team/perf already as run"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("pushed 0 run(s)"), "{}", stderr(&o));
    // The same figures as a local warehouse of the same input.
    let local = t.join("local");
    common::ok(&local, &["ingest", "--suite", "llm", sample]);
    let want = common::query(&local, PER_TRIAL);
    let got = s3.query(t, url, PER_TRIAL);
    assert_eq!(
        got,
        serde_json::Value::Array(want.into_iter().map(Into::into).collect())
    );
    assert_eq!(
        s3.query(t, url, "SELECT count(*) AS n FROM runs")[0]["n"],
        1
    );
    let requests = common::scalar(&local, "SELECT count(*) FROM requests");
    assert_eq!(
        s3.query(t, url, "SELECT count(*) AS n FROM requests")[0]["n"],
        requests
    );
    // History, report and site read the bucket directly.
    let history = stdout(&s3.ok(t, url, &["history", "--suite", "llm", "--format", "csv"]));
    assert!(history.contains("throughput_rps"), "{history}");
    let site = t.join("site");
    s3.ok(t, url, &["site", "--out", site.to_str().unwrap()]);
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("llm"), "{index}");
    let run_id = s3.query(t, url, "SELECT run_id FROM runs")[0]["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(site.join(format!("runs/{run_id}/index.html")).is_file());
    // The site goes to a bucket prefix for static hosting: every page, with its content type.
    let o = s3.ok(
        t,
        url,
        &[
            "publish",
            "--site",
            site.to_str().unwrap(),
            "--to",
            "s3://bench/site",
        ],
    );
    let published = stdout(&o);
    let local_files = walkdir_files(&site);
    assert!(
        published.contains(&format!("({} files,", local_files)),
        "{published} vs {local_files} files"
    );
    if let Some(python) = std::env::var_os("PERFHOUSE_PYTHON") {
        let got = Command::new(python)
            .arg("-c")
            .arg(format!(
                "import boto3\ns3 = boto3.client('s3', endpoint_url='http://127.0.0.1:{}', aws_access_key_id='test', aws_secret_access_key='test', region_name='us-east-1')\n\
                 o = s3.get_object(Bucket='bench', Key='site/index.html')\nprint(o['ContentType'])\nprint(len(o['Body'].read()))\n\
                 print(s3.list_objects_v2(Bucket='bench', Prefix='site/')['KeyCount'])",
                s3.port
            ))
            .output()
            .unwrap();
        assert!(got.status.success(), "{}", stderr(&got));
        let lines: Vec<String> = stdout(&got).lines().map(String::from).collect();
        assert_eq!(lines[0], "text/html; charset=utf-8");
        assert_eq!(lines[1], index.len().to_string());
        assert_eq!(lines[2], local_files.to_string());
    }
    // The kept raw input is in the bucket, where check finds it.
    let check = stdout(&s3.ok(t, url, &["check"]));
    assert!(check.contains("1 runs: 0 problems, 0 leftovers"), "{check}");
    // What needs a directory says so, naming the command.
    let o = s3.run(t, url, &["annotate", &run_id, "note"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("`perfhouse annotate` works on a warehouse directory only"),
        "{}",
        stderr(&o)
    );
    // A PR report from the bucket: the same input as arm `b` is a second run to compare with.
    s3.ok(t, url, &["ingest", "--suite", "llm", "--arm", "b", sample]);
    let ids = s3.query(t, url, "SELECT run_id FROM runs ORDER BY run_no");
    let (a, b) = (
        ids[0]["run_id"].as_str().unwrap(),
        ids[1]["run_id"].as_str().unwrap(),
    );
    let report = stdout(&s3.ok(t, url, &["report", "--baseline", a, "--candidate", b]));
    assert!(report.contains("throughput"), "{report}");
    let o = s3.run(
        t,
        url,
        &[
            "report",
            "--baseline",
            a,
            "--candidate",
            b,
            "--record-alerts",
        ],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("works on a warehouse directory only"),
        "{}",
        stderr(&o)
    );
    // A local warehouse moves into the bucket with import: its run is there already, by input.
    let o = s3.ok(t, "s3://bench/other", &["import", local.to_str().unwrap()]);
    assert!(stderr(&o).contains("pushed 1 run(s)"), "{}", stderr(&o));
    assert_eq!(s3.query(t, "s3://bench/other", PER_TRIAL), got);
}

/// The commit protocol rests on the store letting one create-only PUT of a key win. The test
/// server (tests/s3_server.py) must give that as S3 does; moto alone does not (its check and its
/// store are two steps on a threaded server). The server switches threads every microsecond
/// here, so that moto's race, were the server's lock gone, shows within these rounds (it did in
/// 2 of 200 rounds of 8 when measured; here 300 rounds).
#[cfg(feature = "s3")]
#[test]
fn the_test_server_lets_one_of_eight_racing_creates_of_a_key_win() {
    use object_store::{ObjectStore, PutMode, PutOptions, PutPayload, path::Path as Key};
    let Some(s3) = S3::start_with("atomic", &[("S3_SERVER_SWITCH_INTERVAL", "1e-6")]) else {
        return;
    };
    let store = object_store::aws::AmazonS3Builder::new()
        .with_bucket_name("atomic")
        .with_region("us-east-1")
        .with_access_key_id("test")
        .with_secret_access_key("test")
        .with_endpoint(format!("http://127.0.0.1:{}", s3.port))
        .with_allow_http(true)
        .build()
        .unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(8)
        .enable_all()
        .build()
        .unwrap();
    let store = std::sync::Arc::new(store);
    let rounds = 300;
    let mut not_one: Vec<(usize, usize)> = Vec::new();
    for round in 0..rounds {
        let key = Key::from(format!("k{round}"));
        let wins = rt.block_on(async {
            let puts = (0..8).map(|w| {
                let (store, key) = (store.clone(), key.clone());
                tokio::spawn(async move {
                    let opts = PutOptions {
                        mode: PutMode::Create,
                        ..Default::default()
                    };
                    let body = PutPayload::from(format!("writer {w}").into_bytes());
                    match store.put_opts(&key, body, opts).await {
                        Ok(_) => true,
                        Err(object_store::Error::AlreadyExists { .. }) => false,
                        Err(e) => panic!("round {round}, writer {w}: {e}"),
                    }
                })
            });
            let mut wins = 0;
            for p in futures::future::join_all(puts).await {
                wins += usize::from(p.unwrap());
            }
            wins
        });
        if wins != 1 {
            not_one.push((round, wins));
        }
    }
    assert!(
        not_one.is_empty(),
        "(round, creates that succeeded) where not exactly one of 8 did: {not_one:?}"
    );
}

#[cfg_attr(
    not(feature = "s3"),
    ignore = "needs the s3 feature: tests/run.sh --ci"
)]
#[test]
fn eight_writers_racing_on_a_bucket_land_every_input_once() {
    let Some(s3) = S3::start("race") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let url = "s3://race/wh";
    let (rounds, inputs, per_input) = (10, 4, 2);
    let mut expected_requests = 0i64;
    for round in 0..rounds {
        // Four new inputs a round, each ingested by two processes at once: eight writers.
        let files: Vec<PathBuf> = (0..inputs)
            .map(|i| {
                let f = t.join(format!("r{round}-{i}.jsonl"));
                std::fs::write(&f, aiperf_jsonl(50 + i, round * 10 + i)).unwrap();
                expected_requests += (50 + i) as i64;
                f
            })
            .collect();
        let children: Vec<Child> = files
            .iter()
            .flat_map(|f| std::iter::repeat_n(f, per_input))
            .map(|f| {
                s3.cmd(t)
                    .args(["--warehouse", url, "ingest", "--suite", "race"])
                    .arg(f)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        for o in &outs {
            assert!(o.status.success(), "{}", stderr(o));
        }
        let pushed = outs
            .iter()
            .filter(|o| stderr(o).contains("pushed 1 run(s)"))
            .count();
        let left_out = outs
            .iter()
            .filter(|o| stderr(o).contains("already as run"))
            .count();
        assert_eq!((pushed, left_out), (inputs, inputs), "round {round}");
    }
    let counts = s3.query(
        t,
        url,
        "SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(DISTINCT input_digest) FROM runs) AS inputs, \
         (SELECT count(*) FROM requests) AS requests, (SELECT count(*) FROM raw_requests) AS raw",
    );
    let c = &counts[0];
    assert_eq!(c["runs"], (rounds * inputs) as i64, "{counts}");
    assert_eq!(c["inputs"], (rounds * inputs) as i64, "{counts}");
    assert_eq!(c["requests"], expected_requests, "{counts}");
    // Losers upload nothing: no row outside a committed run.
    assert_eq!(c["raw"], expected_requests, "{counts}");
    let check = stdout(&s3.ok(t, url, &["check"]));
    assert!(check.contains("0 problems, 0 leftovers"), "{check}");
}

#[cfg_attr(
    not(feature = "s3"),
    ignore = "needs the s3 feature: tests/run.sh --ci"
)]
#[test]
fn a_writer_killed_mid_push_leaves_no_run_visible_and_gc_lets_the_input_land_again() {
    let Some(s3) = S3::start("kill") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let url = "s3://kill/wh";
    let first = t.join("first.jsonl");
    std::fs::write(&first, aiperf_jsonl(200, 1)).unwrap();
    s3.ok(t, url, &["ingest", "--suite", "k", first.to_str().unwrap()]);
    let input = t.join("killed.jsonl");
    std::fs::write(&input, aiperf_jsonl(3_000, 2)).unwrap();
    let mut writer = s3
        .cmd(t)
        .env("PERFHOUSE_PUSH_DELAY_MS", "60000")
        .args(["--warehouse", url, "ingest", "--suite", "k"])
        .arg(&input)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Its parts are up (check lists them as leftovers) while its `runs` object is held back.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let check = stderr(&s3.ok(t, url, &["check"]));
        if check.contains("rows of a run that never committed") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the writer's parts never appeared: {check}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    writer.kill().unwrap(); // SIGKILL
    writer.wait().unwrap();
    // No partial run is visible: the first run alone, its 200 requests.
    let c = &s3.query(
        t,
        url,
        "SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM requests) AS requests, \
         (SELECT count(*) FROM trial_figures) AS trials",
    )[0];
    assert_eq!(
        (
            c["runs"].as_i64(),
            c["requests"].as_i64(),
            c["trials"].as_i64()
        ),
        (Some(1), Some(200), Some(1))
    );
    // The input is claimed by a run that will never commit: refused (exit 1) until gc clears
    // the claim, and this writer's results are kept too.
    let o = s3
        .cmd(t)
        .env("PERFHOUSE_CLAIM_WAIT", "1")
        .args([
            "--warehouse",
            url,
            "ingest",
            "--suite",
            "k",
            input.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("which has not committed"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("pushes them again"), "{}", stderr(&o));
    // Both writers' staging warehouses still hold their results (nothing lost).
    let staged = staging_dirs(t);
    assert_eq!(staged.len(), 2, "{staged:?}");
    // gc within the grace period spares everything; past it, removes the leftovers and the claim.
    let o = s3.ok(t, url, &["gc"]);
    assert!(stdout(&o).contains("removed 0 leftovers"), "{}", stdout(&o));
    let o = s3.ok(t, url, &["gc", "--grace", "0s"]);
    assert!(
        stdout(&o).contains("claim of a run that never committed"),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("rows of a run that never committed"),
        "{}",
        stdout(&o)
    );
    let check = stdout(&s3.ok(t, url, &["check"]));
    assert!(check.contains("1 runs: 0 problems, 0 leftovers"), "{check}");
    // Pushing both kept staging directories again lands the input once.
    let mut pushed = 0;
    for dir in &staged {
        let o = s3.ok(t, url, &["import", dir.to_str().unwrap()]);
        pushed += usize::from(stderr(&o).contains("pushed 1 run(s)"));
    }
    assert_eq!(pushed, 1);
    let c = &s3.query(
        t,
        url,
        "SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM requests) AS requests",
    )[0];
    assert_eq!(
        (c["runs"].as_i64(), c["requests"].as_i64()),
        (Some(2), Some(3_200))
    );
    let check = stdout(&s3.ok(t, url, &["check"]));
    assert!(check.contains("2 runs: 0 problems, 0 leftovers"), "{check}");
}

#[cfg_attr(
    not(feature = "s3"),
    ignore = "needs the s3 feature: tests/run.sh --ci"
)]
#[test]
fn a_plan_run_lands_in_the_bucket_with_every_trial() {
    let Some(s3) = S3::start("runner") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let url = "s3://runner/wh";
    let plan = t.join("plan.toml");
    std::fs::write(
        &plan,
        "suite = \"tiny\"\n[run]\nrepeats = 2\ncommand = \"true\"\n[[arm]]\nname = \"A\"\n[[arm]]\nname = \"B\"\n",
    )
    .unwrap();
    let o = s3.ok(t, url, &["run", plan.to_str().unwrap()]);
    assert!(stderr(&o).contains("pushed 1 run(s)"), "{}", stderr(&o));
    let c = &s3.query(
        t,
        url,
        "SELECT (SELECT count(*) FROM runs WHERE source = 'runner') AS runs, \
         (SELECT count(*) FROM trials WHERE status = 'ok') AS trials, \
         (SELECT count(DISTINCT arm) FROM trials) AS arms",
    )[0];
    assert_eq!(
        (c["runs"].as_i64(), c["trials"].as_i64(), c["arms"].as_i64()),
        (Some(1), Some(4), Some(2)),
        "{c}"
    );
    // No staging directory is left behind once pushed.
    let left = staging_dirs(t).len();
    assert_eq!(left, 0);
}

#[cfg_attr(
    not(feature = "s3"),
    ignore = "needs the s3 feature: tests/run.sh --ci"
)]
#[test]
fn a_batch_whose_first_run_is_already_in_the_bucket_keeps_the_rest_through_gc() {
    let Some(s3) = S3::start("batch") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let full = common::repo().join("tests/fixtures/asv/results");
    let results: Vec<PathBuf> = std::fs::read_dir(full.join("m1"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap() != "machine.json")
        .collect();
    assert_eq!(results.len(), 3);
    // Whichever run the batch of three leads with, one of these has it in the bucket already.
    for (i, first) in results.iter().enumerate() {
        let url = format!("s3://batch/p{i}");
        let one = t.join(format!("one{i}"));
        std::fs::create_dir_all(one.join("m1")).unwrap();
        std::fs::copy(full.join("benchmarks.json"), one.join("benchmarks.json")).unwrap();
        std::fs::copy(full.join("m1/machine.json"), one.join("m1/machine.json")).unwrap();
        std::fs::copy(first, one.join("m1").join(first.file_name().unwrap())).unwrap();
        s3.ok(
            t,
            &url,
            &["ingest", "--suite", "asv", one.to_str().unwrap()],
        );
        let o = s3.ok(
            t,
            &url,
            &["ingest", "--suite", "asv", full.to_str().unwrap()],
        );
        assert!(stderr(&o).contains("pushed 2 run(s)"), "{}", stderr(&o));
        let counts =
            "SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM metrics) AS metrics";
        let before = s3.query(t, &url, counts);
        assert_eq!(before[0]["runs"], 3, "{before}");
        s3.ok(t, &url, &["gc", "--grace", "0s"]);
        assert_eq!(
            s3.query(t, &url, counts),
            before,
            "gc removed committed rows"
        );
        let check = stdout(&s3.ok(t, &url, &["check"]));
        assert!(check.contains("3 runs: 0 problems, 0 leftovers"), "{check}");
    }
}

#[test]
fn a_file_url_is_an_object_store_warehouse_with_the_same_protocol() {
    // `file://` goes through object_store's local store: claims, create-only puts, no locks.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("bucket");
    let url = format!("file://{}", dir.display());
    let sample = our_aiperf();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_perfhouse"))
            .env_remove("PERFHOUSE_WAREHOUSE")
            .env("TMPDIR", tmp.path())
            .args(["--warehouse", &url])
            .args(args)
            .output()
            .unwrap()
    };
    for _ in 0..2 {
        let o = run(&["ingest", "--suite", "llm", sample.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = run(&[
        "query",
        "SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM requests) AS requests",
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let local = tmp.path().join("local");
    common::ok(
        &local,
        &["ingest", "--suite", "llm", sample.to_str().unwrap()],
    );
    let requests = common::scalar(&local, "SELECT count(*) FROM requests");
    assert_eq!(stdout(&o).lines().nth(1).unwrap(), format!("1,{requests}"));
    // The same layout as a directory: the files read as a local warehouse too.
    assert_eq!(
        common::scalar(&dir, "SELECT count(*) FROM requests"),
        requests
    );
    assert!(dir.join("_claims").is_dir());
    let check = stdout(&run(&["check"]));
    assert!(check.contains("1 runs: 0 problems, 0 leftovers"), "{check}");
}

/// What a reader of the bucket sees: counts of runs, trials, requests (committed and raw) and
/// the per-trial figures, as one value to compare.
fn bucket_state(s3: &S3, t: &Path, url: &str) -> serde_json::Value {
    let counts = s3.query(
        t,
        url,
        "SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM trials) AS trials, \
         (SELECT count(*) FROM requests) AS requests, (SELECT count(*) FROM raw_requests) AS raw, \
         (SELECT count(*) FROM raw_runs) AS raw_runs",
    );
    let trials = s3.query(
        t,
        url,
        "SELECT run_id, trial_id, requests, latency_p50_ms, latency_p99_ms, throughput_rps \
         FROM trial_figures ORDER BY run_id, trial_id",
    );
    serde_json::json!({"counts": counts, "trials": trials})
}

/// The `checked N files, …` line of `check`: (files, leftovers), and the whole output.
fn check_files(s3: &S3, t: &Path, url: &str) -> (usize, usize, String) {
    let o = s3.ok(t, url, &["check"]);
    let out = format!("{}{}", stdout(&o), stderr(&o));
    let line = out
        .lines()
        .find(|l| l.starts_with("checked "))
        .unwrap_or_default();
    let n = |after: &str| -> usize {
        line.split(after)
            .next()
            .unwrap()
            .rsplit(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(line.contains(" 0 problems"), "{out}");
    (n(" files"), n(" leftovers"), out)
}

#[cfg_attr(
    not(feature = "s3"),
    ignore = "needs the s3 feature: tests/run.sh --ci"
)]
#[test]
fn compact_on_a_bucket_keeps_every_row_for_readers_through_kill_9_races_and_gc() {
    let Some(s3) = S3::start("compact") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let url = "s3://compact/wh";
    // Six runs in two suites, one from a local warehouse moved in with import.
    let local = t.join("local");
    let mut inputs = Vec::new();
    for i in 0..6 {
        let f = t.join(format!("in{i}.jsonl"));
        std::fs::write(&f, aiperf_jsonl(40 + i, i)).unwrap();
        inputs.push(f);
    }
    common::ok(
        &local,
        &["ingest", "--suite", "a", inputs[0].to_str().unwrap()],
    );
    s3.ok(t, url, &["import", local.to_str().unwrap()]);
    for (i, f) in inputs.iter().enumerate().skip(1) {
        let suite = if i < 4 { "a" } else { "b" };
        s3.ok(t, url, &["ingest", "--suite", suite, f.to_str().unwrap()]);
    }
    let before = bucket_state(&s3, t, url);
    assert_eq!(before["counts"][0]["runs"], 6, "{before}");
    let (files_before, leftovers, _) = check_files(&s3, t, url);
    assert_eq!(leftovers, 0);

    // kill -9 between a merged file and its record: nothing changes for readers.
    let mut killed = s3
        .cmd(t)
        .args(["--warehouse", url, "compact"])
        .env("PERFHOUSE_COMPACT_DELAY_MS", "60000")
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let out = stderr(&s3.ok(t, url, &["check"]));
        if out.contains("output of a compaction that never committed") {
            break;
        }
        assert!(Instant::now() < deadline, "no merged file appeared: {out}");
        std::thread::sleep(Duration::from_millis(100));
    }
    killed.kill().unwrap();
    killed.wait().unwrap();
    assert_eq!(bucket_state(&s3, t, url), before);
    let (files, leftovers, out) = check_files(&s3, t, url);
    assert_eq!((files, leftovers), (files_before, 1), "{out}");

    // A compaction while readers read: every read sees every row once.
    let mut compact = s3
        .cmd(t)
        .args(["--warehouse", url, "compact"])
        .env("PERFHOUSE_COMPACT_DELAY_MS", "400")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reads = 0;
    while compact.try_wait().unwrap().is_none() {
        assert_eq!(bucket_state(&s3, t, url), before, "read {reads}");
        reads += 1;
    }
    let out = compact.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(reads >= 2, "only {reads} reads during the compaction");
    let merged = stdout(&out);
    // Suite a: 4 runs; suite b: 2. Every table with a file per run merges.
    assert!(
        merged.contains("requests/suite=a: merged 4 files"),
        "{merged}"
    );
    assert!(merged.contains("runs/suite=b: merged 2 files"), "{merged}");
    assert_eq!(bucket_state(&s3, t, url), before);
    let (files_after, leftovers, out) = check_files(&s3, t, url);
    assert!(
        files_after < files_before,
        "{files_after} vs {files_before}"
    );
    assert!(out.contains("replaced by a compaction"), "{out}");
    assert!(leftovers > 1, "{out}");
    assert!(stdout(&s3.ok(t, url, &["compact"])).contains("nothing to compact"));

    // gc inside the grace period removes nothing; past it, what compactions replaced and the
    // killed compaction's output.
    s3.ok(t, url, &["gc"]);
    assert_eq!(check_files(&s3, t, url).1, leftovers);
    let gc = stdout(&s3.ok(t, url, &["gc", "--grace", "0s"]));
    assert!(gc.contains("removed"), "{gc}");
    let (files, leftovers, out) = check_files(&s3, t, url);
    assert_eq!((files, leftovers), (files_after, 0), "{out}");
    assert_eq!(bucket_state(&s3, t, url), before);

    // An input whose runs object was merged and removed is still known, at once.
    let started = Instant::now();
    let o = s3.ok(
        t,
        url,
        &["ingest", "--suite", "a", inputs[2].to_str().unwrap()],
    );
    assert!(stderr(&o).contains("already as run"), "{}", stderr(&o));
    assert!(started.elapsed() < Duration::from_secs(30));
    // Importing the same local warehouse again puts none of its parts back.
    let o = s3.ok(t, url, &["import", local.to_str().unwrap()]);
    assert!(stderr(&o).contains("pushed 0 run(s)"), "{}", stderr(&o));
    assert_eq!(bucket_state(&s3, t, url), before);

    // Two compactions at once: each partition is merged by one of them.
    for i in 0..2 {
        let f = t.join(format!("more{i}.jsonl"));
        std::fs::write(&f, aiperf_jsonl(30, 100 + i)).unwrap();
        s3.ok(t, url, &["ingest", "--suite", "b", f.to_str().unwrap()]);
    }
    let more = bucket_state(&s3, t, url);
    assert_eq!(more["counts"][0]["runs"], 8, "{more}");
    let racers: Vec<Child> = (0..2)
        .map(|_| {
            s3.cmd(t)
                .args(["--warehouse", url, "compact"])
                .env("PERFHOUSE_COMPACT_DELAY_MS", "300")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<Output> = racers
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let runs_merged = outs
        .iter()
        .inspect(|o| assert!(o.status.success(), "{}", stderr(o)))
        .filter(|o| stdout(o).contains("runs/suite=b: merged 3 files"))
        .count();
    let runs_raced = outs
        .iter()
        .filter(|o| stderr(o).contains("runs/suite=b: another compaction committed first"))
        .count();
    assert_eq!((runs_merged, runs_raced), (1, 1), "{outs:?}");
    assert_eq!(bucket_state(&s3, t, url), more);
    // Suite b's partitions were merged twice: the first record's files are all gone after
    // this gc, so the record goes too; the second stays.
    let o = s3.ok(t, url, &["gc", "--grace", "0s"]);
    let gc = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        gc.contains("compactions/suite=b/runs-0000000000.parquet (compaction record whose files are all gone)"),
        "{gc}"
    );
    assert!(!gc.contains("runs-0000000001.parquet"), "{gc}");
    assert_eq!(check_files(&s3, t, url).1, 0);
    assert_eq!(bucket_state(&s3, t, url), more);
    assert!(stdout(&s3.ok(t, url, &["compact"])).contains("nothing to compact"));
    assert_eq!(bucket_state(&s3, t, url), more);
    // The site reads the compacted bucket.
    let site = t.join("site");
    s3.ok(t, url, &["site", "--out", site.to_str().unwrap()]);
    assert!(site.join("index.html").is_file());
}

/// The staging warehouses writers left in `tmp` (`perfhouse-push-*`).
fn staging_dirs(tmp: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("perfhouse-push-")
        })
        .map(|e| e.path())
        .collect()
}
