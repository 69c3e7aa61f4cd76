//! A warehouse in object storage: `--warehouse s3://bucket/prefix` (also `gs://`, `az://`,
//! `file://`), through `object_store`, the crate DataFusion reads with.
//!
//! Same Hive layout and schema as a local warehouse (`<prefix>/<table>/suite=<s>/<file>.parquet`,
//! kept inputs under `<prefix>/artifacts/blobs/`), so DataFusion, DuckDB, Spark or Trino read
//! the bucket as they read a directory. What differs is how a run lands, since object stores
//! have no rename and no lock:
//!
//! * **Writers stage, then push.** `ingest` and `run` write into a local staging warehouse (a
//!   temporary directory, with every local rule: parts first, `runs` last), then
//!   [`Remote::push`] uploads it. Should the push fail, the staging directory is kept and named,
//!   and `perfhouse --warehouse URL import DIR` pushes it again: nothing is lost.
//! * **One claim per input.** Before any part of a run is uploaded, a create-only object
//!   `<prefix>/_claims/<input_digest>` (`PutMode::Create`: `If-None-Match: *` on S3) names
//!   the run. Of two machines racing on the same input exactly one creates it; the other is
//!   told which run holds the input and uploads nothing. That is the idempotency by digest
//!   across machines.
//! * **Parts first, `runs` last, all create-only.** Every part file and kept input is put
//!   with `PutMode::Create`; the run's `runs` object goes last, also create-only, so a run can
//!   be committed once and readers (who join through `runs`: every view does) never see half
//!   of one. Before putting `runs`, the writer checks that its parts are all still there (a
//!   `gc` whose grace period a writer outlived would otherwise leave a committed run missing
//!   rows).
//! * **`gc`** removes, once older than the grace period (default 1 h, longer than any push
//!   should take): parts of runs that never committed (a part's name starts with its run id),
//!   claims of runs that never committed (so the input can be ingested again), and kept inputs
//!   no committed run refers to. It never removes a `runs` object.
//! * **`compact`** merges a partition's files into one object and commits the merge with a
//!   create-only *compaction record* that names the files replaced; readers hide those files
//!   (and any merged file no record commits), so they see the files before or after, never
//!   both. `gc` removes the replaced files once the record is older than the grace period.
//!   See [`compact`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use datafusion::arrow::array::{BooleanArray, RecordBatch};
use futures::TryStreamExt;
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};

use super::{
    CheckReport, GcReport, Result, RunEntry, Table, Warehouse, WarehouseError,
    decode_partition_value, read_parquet, run_entries, utf8_column,
};

pub mod compact;

pub use compact::View;

/// URL schemes that name an object store rather than a directory.
const SCHEMES: [&str; 8] = ["s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "file"];

/// Whether `location` (a `--warehouse` value) is an object-store URL.
pub fn is_url(location: &str) -> bool {
    location
        .split_once("://")
        .is_some_and(|(scheme, _)| SCHEMES.contains(&scheme))
}

/// A warehouse in an object store.
pub struct Remote {
    /// `scheme://bucket/prefix`, as given (without a trailing slash).
    url: String,
    /// `scheme://bucket`: what DataFusion looks the store up by.
    base: url::Url,
    store: Arc<dyn ObjectStore>,
    prefix: Key,
}

/// A claim object's body: which run holds an input.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Claim {
    pub run_id: String,
    pub suite: String,
    /// The name of the `runs` object that commits the run (a batch's is named by its first run).
    pub runs_object: String,
    pub claimed_at: String,
}

/// A run a push left out: its input is claimed by another run.
#[derive(Debug)]
pub struct Duplicate {
    pub run_id: String,
    pub held: Claim,
    /// Whether the run holding the claim is committed. Where it is not, its writer is still
    /// pushing or died; `gc` clears the claim after its grace period.
    pub committed: bool,
}

/// What a push did.
#[derive(Debug, Default)]
pub struct PushReport {
    /// Runs committed by this push.
    pub committed: Vec<String>,
    /// Runs left out: their input is there already (or claimed by another writer).
    pub duplicates: Vec<Duplicate>,
    pub files: usize,
    pub bytes: u64,
}

fn store_err(what: impl Into<String>) -> impl FnOnce(object_store::Error) -> WarehouseError {
    let what = what.into();
    move |cause| WarehouseError::Store { what, cause }
}

/// The Content-Type a static website serves a site file with.
fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "svg" => "image/svg+xml",
        "json" => "application/json",
        "xml" => "application/atom+xml",
        "png" => "image/png",
        "txt" | "md" | "csv" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The committed runs of `local`, each with the name of the `runs` file that lists it.
fn local_runs(local: &Warehouse) -> Result<Vec<(RunEntry, String)>> {
    let mut runs: Vec<(RunEntry, String)> = Vec::new();
    for (suite, path) in local.table_files(Table::Runs)? {
        let name = path
            .file_name()
            .expect("a file")
            .to_string_lossy()
            .into_owned();
        let batches = read_parquet(
            bytes::Bytes::from(std::fs::read(&path).map_err(super::io_err(&path))?),
            &path,
        )?;
        for e in run_entries(&suite, &batches, &path)? {
            runs.push((e, name.clone()));
        }
    }
    Ok(runs)
}

/// One problem per input committed by more than one run (the claims should prevent it).
fn inputs_committed_twice(runs: &[RunEntry]) -> Vec<String> {
    let mut by_digest: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for r in runs {
        by_digest
            .entry(r.input_digest.as_str())
            .or_default()
            .push(r.run_id.as_str());
    }
    by_digest
        .iter()
        .filter(|(_, ids)| ids.len() > 1)
        .map(|(digest, ids)| {
            format!(
                "input {digest} is committed {} times (runs {})",
                ids.len(),
                ids.join(", ")
            )
        })
        .collect()
}

/// What a push decided before its parts go up: the local runs (with their `runs` file), their
/// ids, those it pushes (`keep`: all of them, or not), and the new names of the `runs` files
/// rewritten without the others.
struct Pushing<'a> {
    runs: &'a [(RunEntry, String)],
    ids: &'a HashSet<&'a str>,
    keep: &'a HashSet<String>,
    all_kept: bool,
    renamed: &'a HashMap<String, String>,
}

impl Pushing<'_> {
    /// The pushed runs that the `runs` object `name` commits.
    fn committed_by<'a>(&'a self, name: &'a str) -> impl Iterator<Item = String> + 'a {
        self.runs
            .iter()
            .filter(move |(r, file)| {
                self.renamed.get(file).unwrap_or(file) == name && self.keep.contains(&r.run_id)
            })
            .map(|(r, _)| r.run_id.clone())
    }
}

impl Remote {
    /// Connects to the store `url` names. Credentials and endpoints come from each cloud's
    /// standard environment: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
    /// `AWS_REGION`, `AWS_ENDPOINT` (an S3-compatible store), `AWS_ALLOW_HTTP`, web identity
    /// (`AWS_WEB_IDENTITY_TOKEN_FILE` + `AWS_ROLE_ARN`, GitHub's OIDC) and the instance
    /// metadata service; `GOOGLE_SERVICE_ACCOUNT` / `GOOGLE_APPLICATION_CREDENTIALS`;
    /// `AZURE_STORAGE_ACCOUNT_NAME` with `AZURE_STORAGE_ACCOUNT_KEY` or a federated token.
    pub fn open(location: &str) -> Result<Remote> {
        let trimmed = location.trim_end_matches('/');
        let parsed = url::Url::parse(trimmed)
            .map_err(|e| WarehouseError::Location(format!("{location}: {e}")))?;
        #[cfg(any(feature = "s3", feature = "gcs", feature = "azure"))]
        let bad = |cause: object_store::Error| WarehouseError::Store {
            what: format!("connecting to {location}"),
            cause,
        };
        let store: Arc<dyn ObjectStore> = match parsed.scheme() {
            #[cfg(feature = "s3")]
            "s3" | "s3a" => Arc::new(
                object_store::aws::AmazonS3Builder::from_env()
                    .with_url(trimmed)
                    .build()
                    .map_err(bad)?,
            ),
            #[cfg(feature = "gcs")]
            "gs" => Arc::new(
                object_store::gcp::GoogleCloudStorageBuilder::from_env()
                    .with_url(trimmed)
                    .build()
                    .map_err(bad)?,
            ),
            #[cfg(feature = "azure")]
            "az" | "azure" | "abfs" | "abfss" => Arc::new(
                object_store::azure::MicrosoftAzureBuilder::from_env()
                    .with_url(trimmed)
                    .build()
                    .map_err(bad)?,
            ),
            "file" => Arc::new(object_store::local::LocalFileSystem::new()),
            other => {
                return Err(WarehouseError::Location(format!(
                    "{location}: `{other}://` is not an object store this perfhouse knows (s3, gs, az, file; the cloud ones need a build with `--features cloud`, or s3, gcs, azure alone: `cargo install perfhouse --features cloud`; the release binaries have them)"
                )));
            }
        };
        let prefix = if parsed.scheme() == "file" {
            // A directory, as a local warehouse's: created if need be (the key is its
            // canonical path, which must exist).
            let dir = Path::new(parsed.path());
            std::fs::create_dir_all(dir).map_err(super::io_err(dir))?;
            Key::from_filesystem_path(dir)
                .map_err(|e| WarehouseError::Location(format!("{location}: {e}")))?
        } else {
            Key::from_url_path(parsed.path())
                .map_err(|e| WarehouseError::Location(format!("{location}: {e}")))?
        };
        if parsed.scheme() != "file" && parsed.host_str().is_none_or(str::is_empty) {
            return Err(WarehouseError::Location(format!(
                "{location}: expected {}://BUCKET/PREFIX",
                parsed.scheme()
            )));
        }
        let mut base = parsed.clone();
        base.set_path("");
        Ok(Remote {
            url: trimmed.to_string(),
            base,
            store,
            prefix,
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// The store, and the URL (`scheme://bucket`) to register it under in DataFusion.
    pub fn store(&self) -> (&url::Url, Arc<dyn ObjectStore>) {
        (&self.base, Arc::clone(&self.store))
    }

    /// A table's directory as DataFusion lists it: `scheme://bucket/prefix/<table>/`.
    pub fn table_url(&self, table: Table) -> String {
        if self.base.scheme() == "file" {
            format!("file:///{}/", self.key(table.name()))
        } else {
            format!("{}/{}/", self.url, table.name())
        }
    }

    /// A key as a URL, for messages.
    fn show(&self, key: &Key) -> String {
        format!("{}/{key}", self.base.as_str().trim_end_matches('/'))
    }

    /// The key of `rel` (`requests/suite=<encoded>/<file>`): each segment taken as it is, so
    /// the object is named as the local warehouse's file (`suite=odd%20suite`), not encoded a
    /// second time (`suite=odd%2520suite`, which other engines would decode to `odd%20suite`).
    fn key(&self, rel: &str) -> Key {
        let mut key = self.prefix.clone();
        for part in rel.split('/').filter(|p| !p.is_empty()) {
            key = key.join(
                object_store::path::PathPart::parse(part)
                    .unwrap_or_else(|_| object_store::path::PathPart::from(part)),
            );
        }
        key
    }

    /// The key relative to the prefix (`runs/suite=x/….parquet`).
    fn rel(&self, key: &Key) -> Option<String> {
        let parts: Vec<_> = key.prefix_match(&self.prefix)?.collect();
        Some(
            parts
                .iter()
                .map(|p| p.as_ref().to_string())
                .collect::<Vec<_>>()
                .join("/"),
        )
    }

    async fn get(&self, key: &Key) -> Result<bytes::Bytes> {
        let got = self
            .store
            .get(key)
            .await
            .map_err(store_err(format!("reading {key}")))?;
        got.bytes()
            .await
            .map_err(store_err(format!("reading {key}")))
    }

    /// Puts `bytes` at `key` only if nothing is there. `Ok(false)` where something is.
    async fn create(&self, key: &Key, bytes: Vec<u8>) -> Result<bool> {
        let opts = PutOptions {
            mode: PutMode::Create,
            ..Default::default()
        };
        match self
            .store
            .put_opts(key, PutPayload::from(bytes), opts)
            .await
        {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
            Err(e) => Err(store_err(format!("writing {key}"))(e)),
        }
    }

    /// Every object under the prefix, with its size and age.
    async fn list_all(&self) -> Result<Vec<object_store::ObjectMeta>> {
        self.store
            .list(Some(&self.prefix))
            .try_collect()
            .await
            .map_err(store_err(format!("listing {}", self.url)))
    }

    /// Uploads the files of a built site (relative path, file: `site::writer::files`) under
    /// the prefix, overwriting what is there, each object with its content type; `index.html`
    /// last, so the index never links to a page not up yet. Returns (files, bytes).
    pub async fn upload_site(&self, mut files: Vec<(String, PathBuf)>) -> Result<(usize, u64)> {
        files.sort_by_key(|(rel, _)| (rel == "index.html", rel.clone()));
        let mut bytes = 0u64;
        for (rel, path) in &files {
            let body = std::fs::read(path).map_err(super::io_err(path))?;
            bytes += body.len() as u64;
            let mut attributes = object_store::Attributes::new();
            attributes.insert(
                object_store::Attribute::ContentType,
                content_type(rel).into(),
            );
            let opts = PutOptions {
                attributes,
                ..Default::default()
            };
            let key = self.key(rel);
            self.store
                .put_opts(&key, PutPayload::from(body), opts)
                .await
                .map_err(store_err(format!("writing {}", self.show(&key))))?;
        }
        Ok((files.len(), bytes))
    }

    /// The tables that have at least one Parquet file.
    pub async fn tables_with_files(&self) -> Result<Vec<Table>> {
        let objects = self.list_all().await?;
        Ok(Table::ALL
            .into_iter()
            .filter(|t| {
                objects
                    .iter()
                    .any(|m| self.part_of(&m.location).is_some_and(|(pt, _, _)| pt == *t))
            })
            .collect())
    }

    /// (table, suite, file name) of a table's Parquet file.
    fn part_of(&self, key: &Key) -> Option<(Table, String, String)> {
        let rel = self.rel(key)?;
        let mut parts = rel.split('/');
        let first = parts.next()?;
        let table = Table::ALL.into_iter().find(|t| t.name() == first)?;
        let suite = decode_partition_value(parts.next()?.strip_prefix("suite=")?);
        let name = parts.next()?.to_string();
        (parts.next().is_none() && name.ends_with(".parquet")).then_some((table, suite, name))
    }

    /// Uploads the committed runs of `local` this bucket lacks (see the module docs): claims
    /// first, then kept inputs and parts, each run's `runs` object last, all create-only.
    /// Files hold whole runs (a staging warehouse, or a bundle), as for `import`.
    pub async fn push(&self, local: &Warehouse) -> Result<PushReport> {
        let mut report = PushReport::default();
        let runs = local_runs(local)?;
        let keep = self.claim_runs(&runs, &mut report).await?;
        if keep.is_empty() {
            return Ok(report);
        }
        let ids: HashSet<&str> = runs.iter().map(|(r, _)| r.run_id.as_str()).collect();
        let all_kept = keep.len() == ids.len();
        let renamed = if all_kept {
            HashMap::new()
        } else {
            self.reclaim_rewritten(local, &runs, &keep).await?
        };
        self.push_blobs(local, &mut report).await?;
        let pushing = Pushing {
            runs: &runs,
            ids: &ids,
            keep: &keep,
            all_kept,
            renamed: &renamed,
        };
        self.push_parts(local, &pushing, &mut report).await?;
        Ok(report)
    }

    /// Claims the input of each of `runs`, to that run or to whoever has it; returns the runs
    /// to push (the others are listed in `report` as duplicates). Runs held by another writer
    /// are waited for up to `PERFHOUSE_CLAIM_WAIT` seconds (default 60), all of them together.
    async fn claim_runs(
        &self,
        runs: &[(RunEntry, String)],
        report: &mut PushReport,
    ) -> Result<HashSet<String>> {
        let wait = std::env::var("PERFHOUSE_CLAIM_WAIT")
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(60.0);
        let deadline = std::time::Instant::now() + Duration::from_secs_f64(wait.max(0.0));
        let mut keep: HashSet<String> = HashSet::new();
        for (r, runs_object) in runs {
            let key = self.key(&format!("_claims/{}", r.input_digest));
            let claim = Claim {
                run_id: r.run_id.clone(),
                suite: r.suite.clone(),
                runs_object: runs_object.clone(),
                claimed_at: now_rfc3339(),
            };
            let body = serde_json::to_vec(&claim).expect("plain strings");
            let Some(held) = self.claim(&key, body).await? else {
                keep.insert(r.run_id.clone());
                continue;
            };
            let committed_at = self.part_key(Table::Runs, &held.suite, &held.runs_object);
            if held.run_id == r.run_id && !self.runs_object_committed(&committed_at).await? {
                // Our own claim, from a push that stopped before its commit: go on with it.
                keep.insert(r.run_id.clone());
            } else {
                // Another run's, or ours committed already (a retry of a push that finished:
                // its parts may have been compacted since, so putting them again would
                // count their rows twice).
                let committed = self.await_commit(&committed_at, deadline).await?;
                report.duplicates.push(Duplicate {
                    run_id: r.run_id.clone(),
                    held,
                    committed,
                });
            }
        }
        Ok(keep)
    }

    /// A `runs` file rewritten without the runs left out has other bytes, so another
    /// checksum in its name: the claims of the runs it commits are put again naming it
    /// (they are ours: no other writer reads a name from them before it exists). Returns the
    /// new name of each rewritten `runs` file, by its local name.
    async fn reclaim_rewritten(
        &self,
        local: &Warehouse,
        runs: &[(RunEntry, String)],
        keep: &HashSet<String>,
    ) -> Result<HashMap<String, String>> {
        let mut renamed: HashMap<String, String> = HashMap::new();
        for (suite, path) in local.table_files(Table::Runs)? {
            let name = path.file_name().expect("a file").to_string_lossy();
            if let Some(bytes) = self.part_bytes(&path, keep, false)? {
                renamed.insert(
                    name.to_string(),
                    super::checksum::name_with(&name, super::checksum::digest_of(&bytes)),
                );
            }
            for (r, runs_object) in runs {
                let Some(new) = renamed.get(runs_object.as_str()) else {
                    continue;
                };
                if r.suite != suite || !keep.contains(&r.run_id) {
                    continue;
                }
                let claim = Claim {
                    run_id: r.run_id.clone(),
                    suite: r.suite.clone(),
                    runs_object: new.clone(),
                    claimed_at: now_rfc3339(),
                };
                let key = self.key(&format!("_claims/{}", r.input_digest));
                self.store
                    .put(
                        &key,
                        PutPayload::from(serde_json::to_vec(&claim).expect("plain strings")),
                    )
                    .await
                    .map_err(store_err(format!("writing {}", self.show(&key))))?;
            }
        }
        Ok(renamed)
    }

    /// Uploads `local`'s kept inputs: content-addressed, so one already there is the same
    /// bytes.
    async fn push_blobs(&self, local: &Warehouse, report: &mut PushReport) -> Result<()> {
        let blobs = local.root().join("artifacts").join("blobs");
        for entry in walkdir::WalkDir::new(&blobs).into_iter().flatten() {
            if !entry.file_type().is_file() || entry.path().extension().is_some() {
                continue;
            }
            let rel = entry
                .path()
                .strip_prefix(local.root())
                .expect("under the root")
                .to_string_lossy()
                .into_owned();
            let bytes = std::fs::read(entry.path()).map_err(super::io_err(entry.path()))?;
            report.bytes += bytes.len() as u64;
            report.files += 1;
            self.create(&self.key(&rel), bytes).await?;
        }
        Ok(())
    }

    /// Uploads the parts of the runs pushed, table by table; `Table::ALL` ends with `runs`,
    /// which lands last, once every other part is verified in place.
    async fn push_parts(
        &self,
        local: &Warehouse,
        p: &Pushing<'_>,
        report: &mut PushReport,
    ) -> Result<()> {
        let mut landed: Vec<Key> = Vec::new();
        for table in Table::ALL {
            let files = local.files_of_runs(table, |id| p.ids.contains(id))?;
            for (suite, path, name) in files {
                let bytes = self.part_bytes(&path, p.keep, p.all_kept)?;
                let Some(bytes) = bytes else { continue };
                // Rewritten without the runs left out: other bytes, another checksum.
                let name = if p.all_kept {
                    name
                } else {
                    super::checksum::name_with(&name, super::checksum::digest_of(&bytes))
                };
                let key = self.part_key(table, &suite, &name);
                if table == Table::Runs {
                    // A fault-test hook: hold the commit back so a test can kill the writer
                    // between its parts and its `runs` object.
                    if let Some(ms) = std::env::var("PERFHOUSE_PUSH_DELAY_MS")
                        .ok()
                        .and_then(|v| v.parse().ok())
                    {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                    }
                    self.verify_landed(&landed).await?;
                }
                report.bytes += bytes.len() as u64;
                report.files += 1;
                self.create_or_same(&key, bytes).await?;
                if table == Table::Runs {
                    report.committed.extend(p.committed_by(&name));
                } else {
                    landed.push(key);
                }
            }
        }
        Ok(())
    }

    /// Puts `bytes` at `key` create-only. Already there from an earlier push of these same
    /// files (a retry): the same object only if the same size; anything else is not ours to
    /// replace.
    async fn create_or_same(&self, key: &Key, bytes: Vec<u8>) -> Result<()> {
        let len = bytes.len() as u64;
        if !self.create(key, bytes).await? {
            let there = self
                .store
                .head(key)
                .await
                .map_err(store_err(format!("reading {key}")))?;
            if there.size != len {
                return Err(WarehouseError::Exists(PathBuf::from(key.to_string())));
            }
        }
        Ok(())
    }

    /// Puts the claim `body` at `key` create-only: `None` where it went in, else the claim
    /// there. S3 answers a create that raced another in flight with 409 (which object_store
    /// reports as "exists" too), and that other write may then fail, or gc may remove a stale
    /// claim between our PUT and our GET: a claim that is not there when read is tried again.
    async fn claim(&self, key: &Key, body: Vec<u8>) -> Result<Option<Claim>> {
        let (mut pause, mut attempt) = (Duration::from_millis(20), 0);
        loop {
            attempt += 1;
            if self.create(key, body.clone()).await? {
                return Ok(None);
            }
            match self.store.get(key).await {
                Ok(got) => {
                    let bytes = got
                        .bytes()
                        .await
                        .map_err(store_err(format!("reading {key}")))?;
                    let held = serde_json::from_slice(&bytes).map_err(|e| {
                        WarehouseError::Location(format!("{key}: not a perfhouse claim: {e}"))
                    })?;
                    return Ok(Some(held));
                }
                Err(object_store::Error::NotFound { .. }) if attempt < 5 => {
                    tokio::time::sleep(pause).await;
                    pause *= 2;
                }
                Err(e) => return Err(store_err(format!("reading {key}"))(e)),
            }
        }
    }

    /// Whether the `runs` object `key` committed, waiting for it until `deadline` while another
    /// writer may be pushing it (as a local ingest waits on the warehouse lock).
    async fn await_commit(&self, key: &Key, deadline: std::time::Instant) -> Result<bool> {
        // A `runs` object merged by a compaction committed long ago (gc waits out its grace
        // period), so the records are read once; then only the object is waited for.
        if self.runs_object_committed(key).await? {
            return Ok(true);
        }
        let mut pause = Duration::from_millis(50);
        loop {
            if std::time::Instant::now() >= deadline {
                return Ok(false);
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(1));
            match self.store.head(key).await {
                Ok(_) => return Ok(true),
                Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(store_err(format!("reading {key}"))(e)),
            }
        }
    }

    /// The bytes to upload for a local part file: as it is when every run in it is kept,
    /// rewritten without the rows of runs left out (their input is in the bucket already),
    /// `None` when none is kept.
    fn part_bytes(
        &self,
        path: &Path,
        keep: &HashSet<String>,
        all_kept: bool,
    ) -> Result<Option<Vec<u8>>> {
        let raw = std::fs::read(path).map_err(super::io_err(path))?;
        if all_kept {
            // Uploaded as it is: checked first, so a damaged file is not copied on.
            super::checksum::verify_bytes(path, &raw).map_err(|what| WarehouseError::Damaged {
                path: path.to_path_buf(),
                what,
            })?;
            return Ok(Some(raw));
        }
        let batches = read_parquet(bytes::Bytes::from(raw), path)?;
        let mut kept: Vec<RecordBatch> = Vec::new();
        for b in &batches {
            let ids = utf8_column(b, "run_id", path)?;
            let mask: BooleanArray = (0..b.num_rows())
                .map(|i| Some(keep.contains(ids.value(i))))
                .collect();
            let f =
                datafusion::arrow::compute::filter_record_batch(b, &mask).map_err(|source| {
                    WarehouseError::Arrow {
                        table: "push",
                        source,
                    }
                })?;
            if f.num_rows() > 0 {
                kept.push(f);
            }
        }
        if kept.is_empty() {
            return Ok(None);
        }
        Ok(Some(compact::parquet_bytes(
            &kept,
            &path.display().to_string(),
        )?))
    }

    /// Fails when a part this push put is gone (a `gc` outlived: see the module docs), before
    /// the `runs` object would commit a run without it.
    async fn verify_landed(&self, landed: &[Key]) -> Result<()> {
        for key in landed {
            self.store.head(key).await.map_err(store_err(format!(
                "{key} vanished before its run committed (a gc with a grace period shorter than this push?); nothing was committed, push again"
            )))?;
        }
        Ok(())
    }

    /// The committed runs, and the kept inputs they refer to, read from the objects `view`
    /// shows (a merged `runs` object and the ones it replaced hold the same runs).
    pub(super) async fn scan(
        &self,
        objects: &[object_store::ObjectMeta],
        view: &View,
        problems: &mut Vec<String>,
    ) -> Result<(Vec<RunEntry>, HashSet<String>)> {
        let visible = || objects.iter().filter(|m| !view.hides(&m.location));
        let mut runs = Vec::new();
        for meta in visible() {
            if let Some((Table::Runs, suite, _)) = self.part_of(&meta.location) {
                let label = PathBuf::from(meta.location.to_string());
                match self.get(&meta.location).await.and_then(|b| {
                    read_parquet(b, &label).and_then(|bs| run_entries(&suite, &bs, &label))
                }) {
                    Ok(entries) => runs.extend(entries),
                    Err(e) => problems.push(format!("unreadable runs object: {e}")),
                }
            }
        }
        let committed: HashSet<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
        let mut referenced = HashSet::new();
        for meta in visible() {
            // Every artifacts part, whatever its name: a batch whose first run was left out as a
            // duplicate is named by that run, yet holds committed rows.
            if let Some((Table::Artifacts, _, _)) = self.part_of(&meta.location) {
                let label = PathBuf::from(meta.location.to_string());
                let batches = read_parquet(self.get(&meta.location).await?, &label)?;
                for b in &batches {
                    let ids = utf8_column(b, "run_id", &label)?;
                    let stored = utf8_column(b, "stored_path", &label)?;
                    for i in 0..b.num_rows() {
                        if committed.contains(ids.value(i)) {
                            referenced.insert(stored.value(i).to_string());
                        }
                    }
                }
            }
        }
        Ok((runs, referenced))
    }

    /// Sorts every object under the prefix into live or leftover (with why, and since when it
    /// is one), given the committed runs, the kept inputs they refer to and the compaction
    /// records. A part is live when its name's run is committed, or failing that when any of
    /// its rows is (a batch whose first run was left out as a duplicate keeps that run's
    /// name); one that cannot be read is left alone. A part a compaction replaced is a
    /// leftover from its record's commit on, unless that record's output is missing.
    async fn leftovers<'a>(
        &self,
        objects: &'a [object_store::ObjectMeta],
        runs: &[RunEntry],
        referenced: &HashSet<String>,
        records: &[compact::Record],
        view: &View,
    ) -> Vec<(
        &'a object_store::ObjectMeta,
        &'static str,
        chrono::DateTime<chrono::Utc>,
    )> {
        let committed: HashSet<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
        let digests: HashSet<&str> = runs.iter().map(|r| r.input_digest.as_str()).collect();
        let present: HashSet<&Key> = objects.iter().map(|m| &m.location).collect();
        // A replaced part, and when its replacement committed (outputs all there, or merged
        // again since).
        let mut replaced: HashMap<Key, chrono::DateTime<chrono::Utc>> = HashMap::new();
        for r in records {
            let whole = r.outputs.iter().all(|o| {
                let key = self.part_key(r.table, &r.suite, o);
                present.contains(&key) || view.is_superseded(&key)
            });
            if whole {
                for src in &r.sources {
                    replaced.insert(self.part_key(r.table, &r.suite, src), r.at);
                }
            }
        }
        let mut out = Vec::new();
        for meta in objects {
            let Some(rel) = self.rel(&meta.location) else {
                continue;
            };
            let since = meta.last_modified;
            if let Some(digest) = rel.strip_prefix("_claims/") {
                if !digests.contains(digest) {
                    out.push((meta, "claim of a run that never committed", since));
                }
            } else if rel.starts_with("artifacts/blobs/") {
                if !referenced.contains(&rel) {
                    out.push((meta, "kept input no committed run refers to", since));
                }
            } else if view.is_superseded(&meta.location) {
                if let Some(at) = replaced.get(&meta.location) {
                    out.push((meta, "replaced by a compaction", *at));
                }
            } else if view.hides(&meta.location) {
                out.push((meta, "output of a compaction that never committed", since));
            } else if let Some((table, _, name)) = self.part_of(&meta.location)
                && table != Table::Runs
                && !view.is_output(&meta.location)
                && name.get(..36).is_none_or(|id| !committed.contains(id))
                && !self.holds_committed_rows(meta, &committed).await
            {
                out.push((meta, "rows of a run that never committed", since));
            }
        }
        out
    }

    async fn holds_committed_rows(
        &self,
        meta: &object_store::ObjectMeta,
        committed: &HashSet<&str>,
    ) -> bool {
        let label = PathBuf::from(meta.location.to_string());
        let Ok(batches) = self
            .get(&meta.location)
            .await
            .and_then(|b| read_parquet(b, &label))
        else {
            return true;
        };
        batches.iter().any(|b| {
            utf8_column(b, "run_id", &label).map_or(true, |ids| {
                (0..b.num_rows()).any(|i| committed.contains(ids.value(i)))
            })
        })
    }

    /// Removes what writers that died left, and what compactions replaced (see the module
    /// docs), once older than `grace`.
    pub async fn gc(&self, grace: Duration, dry_run: bool) -> Result<GcReport> {
        let mut report = GcReport::default();
        let objects = self.list_all().await?;
        let records = self.records(Some(&objects)).await?;
        let view = self.view(&records);
        let mut problems = Vec::new();
        let (runs, referenced) = self.scan(&objects, &view, &mut problems).await?;
        if !problems.is_empty() {
            // A runs object that cannot be read may be what makes a part live: remove nothing.
            report.spared.extend(problems);
            return Ok(report);
        }
        let now = chrono::Utc::now();
        let mut gone: HashSet<&Key> = HashSet::new();
        for (meta, why, since) in self
            .leftovers(&objects, &runs, &referenced, &records, &view)
            .await
        {
            let age = (now - since).to_std().unwrap_or_default();
            if age < grace {
                report.spared.push(format!(
                    "{}: {why}, younger than the grace period ({grace:?})",
                    self.show(&meta.location)
                ));
                continue;
            }
            self.remove(meta, why, dry_run, &mut report).await?;
            gone.insert(&meta.location);
        }
        // A record whose files are all gone, its outputs merged again by a later record, says
        // nothing any more: remove it, so the records a reader reads stay about one per
        // partition. (The newest record of a partition keeps its output, so it stays, and the
        // generations keep counting up.)
        let present: HashSet<&Key> = objects
            .iter()
            .map(|m| &m.location)
            .filter(|k| !gone.contains(k))
            .collect();
        for r in &records {
            let key = |f: &String| self.part_key(r.table, &r.suite, f);
            let done = r.sources.iter().all(|f| !present.contains(&key(f)))
                && r.outputs.iter().all(|f| {
                    let k = key(f);
                    !present.contains(&k) && view.is_superseded(&k)
                });
            if done && let Some(meta) = objects.iter().find(|m| m.location == r.key) {
                self.remove(
                    meta,
                    "compaction record whose files are all gone",
                    dry_run,
                    &mut report,
                )
                .await?;
            }
        }
        Ok(report)
    }

    async fn remove(
        &self,
        meta: &object_store::ObjectMeta,
        why: &str,
        dry_run: bool,
        report: &mut GcReport,
    ) -> Result<()> {
        if !dry_run {
            match self.store.delete(&meta.location).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(store_err(format!("removing {}", meta.location))(e)),
            }
        }
        report.bytes += meta.size;
        report
            .removed
            .push(format!("{} ({why})", self.show(&meta.location)));
        Ok(())
    }

    /// Verifies the bucket: every `runs` object readable, no input committed twice, every kept
    /// input a committed run refers to present; lists what `gc` would remove.
    /// `rows` counts the committed runs and the kept inputs they refer to (what it reads).
    pub async fn check(&self) -> Result<CheckReport> {
        let mut report = CheckReport::default();
        let objects = self.list_all().await?;
        let records = self.records(Some(&objects)).await?;
        let view = self.view(&records);
        let (runs, referenced) = self.scan(&objects, &view, &mut report.problems).await?;
        report.runs = runs.len();
        report.rows = runs.len() + referenced.len();
        report.files = objects
            .iter()
            .filter(|m| self.part_of(&m.location).is_some() && !view.hides(&m.location))
            .count();
        // Every other visible part read whole and checked against its name's digest (the
        // `runs` and `artifacts` parts were read by the scan, through the same check).
        self.verify_parts(&objects, &view, &mut report.problems)
            .await;
        let keys: HashSet<&Key> = objects.iter().map(|m| &m.location).collect();
        report
            .problems
            .extend(self.record_problems(&records, &keys, &view));
        report.problems.extend(inputs_committed_twice(&runs));
        let present: HashMap<String, u64> = objects
            .iter()
            .filter_map(|m| Some((self.rel(&m.location)?, m.size)))
            .collect();
        for blob in &referenced {
            if !present.contains_key(blob) {
                report.problems.push(format!(
                    "{}/{blob}: a committed run's kept input is missing",
                    self.url
                ));
            }
        }
        for (meta, why, _) in self
            .leftovers(&objects, &runs, &referenced, &records, &view)
            .await
        {
            report
                .leftovers
                .push(format!("{}: {why}", self.show(&meta.location)));
        }
        Ok(report)
    }

    /// Reads every visible part but `runs` and `artifacts` whole and checks it against the
    /// digest its name carries, each mismatch or unreadable part pushed to `problems`.
    async fn verify_parts(
        &self,
        objects: &[object_store::ObjectMeta],
        view: &View,
        problems: &mut Vec<String>,
    ) {
        for meta in objects.iter().filter(|m| !view.hides(&m.location)) {
            let Some((table, _, name)) = self.part_of(&meta.location) else {
                continue;
            };
            let Some(want) = super::checksum::expected(&name) else {
                continue;
            };
            if matches!(table, Table::Runs | Table::Artifacts) {
                continue;
            }
            match super::checksum::digest_of_object(self.store.as_ref(), &meta.location).await {
                Ok(found) if found == want => {}
                Ok(found) => problems.push(format!(
                    "{}: damaged ({})",
                    self.show(&meta.location),
                    super::checksum::mismatch(found, want)
                )),
                Err(e) => problems.push(format!(
                    "{}: cannot be read to verify it: {e}",
                    self.show(&meta.location)
                )),
            }
        }
    }
}
