//! `compact` on an object store, where no rename can swap a partition's files at once.
//!
//! A compaction of one partition (`<table>/suite=<s>/`) merges its files into one new object,
//! `merged-<id>.parquet`, then commits with a **compaction record**: a create-only Parquet
//! object `compactions/suite=<s>/<table>-<generation>.parquet` that names the files merged
//! (`role = 'source'`) and the file that holds their rows now (`role = 'output'`). The record
//! is the switch: every reader (perfhouse's through [`VisibleStore`], other engines through
//! the `schema --ddl` views) hides
//!
//! * every file a record names as a source, and
//! * every `merged-*` file no record names as an output (a compaction that has not committed,
//!   or never will),
//!
//! so it sees the files before a compaction or after it, never both. The generation numbers
//! a partition's compactions: two compactions of one partition race for the same record name,
//! and the loser removes its output. `gc` removes a superseded source once its record is
//! older than the grace period (a reader that listed the partition before the record landed
//! reads it meanwhile), the output of a compaction that never committed once that output is
//! as old, and a record whose sources and outputs are all gone (its outputs merged again by a
//! later record).
//!
//! Only files whose rows all belong to committed runs are merged: rows of a run that never
//! committed stay where they are, for `gc`. A source whose record's output is missing is
//! never removed (`check` reports the record as damage).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use datafusion::arrow::array::{
    Array, ArrayRef, Int64Array, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::parquet::arrow::{ArrowWriter, AsyncArrowWriter};
use futures::{StreamExt, TryStreamExt};
use object_store::buffered::BufWriter;
use object_store::path::Path as Key;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};

use super::{Remote, store_err};
use crate::warehouse::checksum::{self, HashingAsyncWriter};
use crate::warehouse::layered::{Layer, Layered};
use crate::warehouse::{
    CompactReport, Result, Table, WarehouseError, check_schema, conform, encode_partition_value,
    part_props, read_parquet, utf8_column,
};

/// Where the compaction records live, under the warehouse prefix.
pub const RECORDS_DIR: &str = "compactions";
/// How a compaction's output file is named: `merged-<compaction id>.parquet`.
pub const MERGED_PREFIX: &str = "merged-";

/// One committed compaction of one partition.
#[derive(Debug, Clone)]
pub struct Record {
    /// The record object (for messages).
    pub key: Key,
    /// When the record landed (the object's last-modified time): the commit.
    pub at: DateTime<Utc>,
    pub table: Table,
    pub suite: String,
    pub generation: u64,
    /// File names (in the partition) the output replaces.
    pub sources: Vec<String>,
    pub outputs: Vec<String>,
}

/// The schema of a compaction record (Hive-partitioned by `suite`, like the tables).
pub fn record_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("compaction_id", DataType::Utf8, false),
        Field::new("table_name", DataType::Utf8, false),
        Field::new("generation", DataType::Int64, false),
        Field::new("role", DataType::Utf8, false),
        Field::new("file", DataType::Utf8, false),
        Field::new(
            "at",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            false,
        ),
    ]))
}

/// Which objects readers see, given the committed compaction records.
#[derive(Debug, Default)]
pub struct View {
    /// Sources of committed compactions.
    superseded: HashSet<Key>,
    /// Outputs of committed compactions.
    outputs: HashSet<Key>,
}

impl View {
    /// Whether readers skip `key`: a superseded source, or a `merged-*` file no record commits.
    pub fn hides(&self, key: &Key) -> bool {
        self.superseded.contains(key)
            || (key
                .filename()
                .is_some_and(|name| name.starts_with(MERGED_PREFIX))
                && !self.outputs.contains(key))
    }

    pub fn is_superseded(&self, key: &Key) -> bool {
        self.superseded.contains(key)
    }

    pub fn is_output(&self, key: &Key) -> bool {
        self.outputs.contains(key)
    }
}

/// An object store that lists only what a [`View`] shows: what perfhouse's readers (DataFusion)
/// read a bucket through. Everything else passes through.
pub type VisibleStore = Layered<Arc<View>>;

impl Layer for Arc<View> {
    const NAME: &'static str = "VisibleStore";

    fn shows(&self, location: &Key) -> bool {
        !self.hides(location)
    }
}

fn record_batch(
    id: &str,
    table: Table,
    generation: u64,
    sources: &[String],
    output: &str,
) -> RecordBatch {
    let files: Vec<&str> = sources.iter().map(String::as_str).chain([output]).collect();
    let n = files.len();
    let roles: Vec<&str> = (0..n)
        .map(|i| if i + 1 < n { "source" } else { "output" })
        .collect();
    let now = Utc::now().timestamp_micros();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![id; n])),
        Arc::new(StringArray::from(vec![table.name(); n])),
        Arc::new(Int64Array::from(vec![generation as i64; n])),
        Arc::new(StringArray::from(roles)),
        Arc::new(StringArray::from(files)),
        Arc::new(TimestampMicrosecondArray::from(vec![now; n]).with_timezone("UTC")),
    ];
    RecordBatch::try_new(record_schema(), columns).expect("columns match the record schema")
}

/// Parquet bytes of `batches` (as a local part file is written: Snappy).
pub(super) fn parquet_bytes(batches: &[RecordBatch], label: &str) -> Result<Vec<u8>> {
    let perr = |source| WarehouseError::Parquet {
        path: PathBuf::from(label),
        source,
    };
    let mut w =
        ArrowWriter::try_new(Vec::new(), batches[0].schema(), Some(part_props())).map_err(perr)?;
    for b in batches {
        w.write(b).map_err(perr)?;
    }
    w.into_inner().map_err(perr)
}

/// A partition's merged output, uploaded under its checksummed name, not yet committed.
struct Merged {
    table: Table,
    suite: String,
    /// The names of the files merged.
    sources: Vec<String>,
    /// The output's name, with its checksum.
    output: String,
    out_key: Key,
}

impl Remote {
    /// The key of a file in a table's partition.
    pub(super) fn part_key(&self, table: Table, suite: &str, name: &str) -> Key {
        self.key(&format!(
            "{}/suite={}/{name}",
            table.name(),
            encode_partition_value(suite)
        ))
    }

    /// Every committed compaction record, oldest generation first. `objects` is a listing of
    /// the whole prefix where the caller has one; else the records are listed. A record that
    /// cannot be read fails the call: which files it hides is unknown.
    pub async fn records(&self, objects: Option<&[ObjectMeta]>) -> Result<Vec<Record>> {
        let listed;
        let objects = match objects {
            Some(o) => o,
            None => {
                let dir = self.key(RECORDS_DIR);
                listed = self
                    .store
                    .list(Some(&dir))
                    .try_collect::<Vec<_>>()
                    .await
                    .map_err(store_err(format!("listing {}", self.show(&dir))))?;
                &listed[..]
            }
        };
        // Fetched 16 at a time (a bucket answers each GET in milliseconds, not microseconds).
        let wanted: Vec<&ObjectMeta> = objects
            .iter()
            .filter(|m| {
                self.rel(&m.location)
                    .is_some_and(|rel| rel.starts_with(&format!("{RECORDS_DIR}/")))
            })
            .collect();
        let bodies: Vec<Bytes> =
            futures::stream::iter(wanted.iter().map(|m| self.get(&m.location)))
                .buffered(16)
                .try_collect()
                .await?;
        let mut out = wanted
            .into_iter()
            .zip(bodies)
            .map(|(meta, body)| self.parse_record(meta, body))
            .collect::<Result<Vec<Record>>>()?;
        out.sort_by(|a, b| {
            (a.table.name(), &a.suite, a.generation).cmp(&(b.table.name(), &b.suite, b.generation))
        });
        Ok(out)
    }

    /// One compaction record, from its key (`compactions/suite=<s>/<table>-<generation>.parquet`)
    /// and its rows (each a file, as `source` or `output`).
    fn parse_record(&self, meta: &ObjectMeta, body: Bytes) -> Result<Record> {
        let rel = self.rel(&meta.location).expect("under the prefix");
        let rest = &rel[RECORDS_DIR.len() + 1..];
        let label = self.show(&meta.location);
        let bad = |what: String| WarehouseError::Schema {
            path: PathBuf::from(&label),
            what: format!(
                "{what} (a compaction record: compactions/suite=<s>/<table>-<generation>.parquet)"
            ),
        };
        let Some((dir, name)) = rest.split_once('/') else {
            return Err(bad("not in a suite= directory".into()));
        };
        let suite = crate::warehouse::decode_partition_value(
            dir.strip_prefix("suite=")
                .ok_or_else(|| bad("not in a suite= directory".into()))?,
        );
        let (table, generation) = name
            .strip_suffix(".parquet")
            .and_then(|s| s.rsplit_once('-'))
            .and_then(|(t, g)| {
                Some((
                    Table::ALL.into_iter().find(|x| x.name() == t)?,
                    g.parse::<u64>().ok()?,
                ))
            })
            .ok_or_else(|| bad("its name is not <table>-<generation>.parquet".into()))?;
        let path = PathBuf::from(&label);
        let (mut sources, mut outputs) = (Vec::new(), Vec::new());
        for b in &read_parquet(body, &path)? {
            let roles = utf8_column(b, "role", &path)?;
            let files = utf8_column(b, "file", &path)?;
            for i in 0..b.num_rows() {
                match roles.value(i) {
                    "source" => sources.push(files.value(i).to_string()),
                    "output" => outputs.push(files.value(i).to_string()),
                    other => {
                        return Err(bad(format!("role `{other}`, expected source or output")));
                    }
                }
            }
        }
        Ok(Record {
            key: meta.location.clone(),
            at: meta.last_modified,
            table,
            suite,
            generation,
            sources,
            outputs,
        })
    }

    /// What readers see, given `records`.
    pub fn view(&self, records: &[Record]) -> View {
        let mut view = View::default();
        for r in records {
            for s in &r.sources {
                view.superseded.insert(self.part_key(r.table, &r.suite, s));
            }
            for o in &r.outputs {
                view.outputs.insert(self.part_key(r.table, &r.suite, o));
            }
        }
        view
    }

    /// The store as perfhouse's readers see it: listings leave out what the compaction records
    /// hide (the records are read once, here: a session sees one state).
    pub async fn reader_store(&self) -> Result<Arc<dyn ObjectStore>> {
        let records = self.records(None).await?;
        Ok(Arc::new(VisibleStore::with(
            Arc::clone(&self.store),
            Arc::new(self.view(&records)),
        )))
    }

    /// Merges each partition's files of committed runs into one object per partition, and
    /// commits each merge with a compaction record (see the module docs).
    pub async fn compact(&self) -> Result<CompactReport> {
        let objects = self.list_all().await?;
        let records = self.records(Some(&objects)).await?;
        let view = self.view(&records);
        let mut problems = Vec::new();
        let (runs, _) = self.scan(&objects, &view, &mut problems).await?;
        if let Some(p) = problems.first() {
            return Err(WarehouseError::Location(format!(
                "{}: {p}; nothing was compacted",
                self.url
            )));
        }
        let committed: HashSet<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
        let mut next_generation: HashMap<(Table, String), u64> = HashMap::new();
        for r in &records {
            let g = next_generation
                .entry((r.table, r.suite.clone()))
                .or_default();
            *g = (*g).max(r.generation + 1);
        }
        let mut report = CompactReport::default();
        for ((_, suite), (table, mut files)) in self.visible_partitions(&objects, &view) {
            if files.len() < 2 {
                continue;
            }
            files.sort_by(|a, b| a.location.cmp(&b.location));
            let id = uuid::Uuid::now_v7().to_string();
            let Some(merged) = self
                .merge_partition(table, &suite, &id, files, &committed)
                .await?
            else {
                continue;
            };
            let generation = next_generation
                .get(&(table, suite.clone()))
                .copied()
                .unwrap_or(0);
            self.commit_merge(&id, generation, merged, &mut report)
                .await?;
        }
        Ok(report)
    }

    /// The visible parts of each partition, keyed by (table name, suite) so the partitions
    /// come in a stable order.
    #[allow(clippy::type_complexity)]
    fn visible_partitions<'a>(
        &self,
        objects: &'a [ObjectMeta],
        view: &View,
    ) -> BTreeMap<(&'static str, String), (Table, Vec<&'a ObjectMeta>)> {
        let mut partitions: BTreeMap<(&'static str, String), (Table, Vec<&ObjectMeta>)> =
            BTreeMap::new();
        for meta in objects {
            if view.hides(&meta.location) {
                continue;
            }
            if let Some((table, suite, _)) = self.part_of(&meta.location) {
                partitions
                    .entry((table.name(), suite))
                    .or_insert_with(|| (table, Vec::new()))
                    .1
                    .push(meta);
            }
        }
        partitions
    }

    /// Merges the partition's `files` whose rows all belong to `committed` runs into one
    /// object under its checksummed name; `None` where fewer than two are eligible (one
    /// alone is not merged).
    async fn merge_partition(
        &self,
        table: Table,
        suite: &str,
        id: &str,
        files: Vec<&ObjectMeta>,
        committed: &HashSet<&str>,
    ) -> Result<Option<Merged>> {
        let output = format!("{MERGED_PREFIX}{id}.parquet");
        let out_key = self.part_key(table, suite, &output);
        let label = PathBuf::from(self.show(&out_key));
        let perr = |source| WarehouseError::Parquet {
            path: label.clone(),
            source,
        };
        // Streamed: one source in memory at a time, the output uploaded in parts as it
        // grows (a multipart upload, invisible until complete). The first eligible file
        // waits for a second before anything is written: one alone is not merged.
        let mut first: Option<Vec<RecordBatch>> = None;
        let mut writer: Option<AsyncArrowWriter<HashingAsyncWriter<BufWriter>>> = None;
        let mut sources: Vec<String> = Vec::new();
        for meta in files {
            let Some(batches) = self.committed_batches(meta, table, committed).await? else {
                // A run that never committed: its rows are gc's, not ours to move.
                continue;
            };
            sources.push(
                meta.location
                    .filename()
                    .expect("a part has a name")
                    .to_string(),
            );
            let w = match (&mut writer, first.take()) {
                (None, None) => {
                    first = Some(batches);
                    continue;
                }
                (None, Some(earlier)) => {
                    let mut w = self.merged_writer(&out_key, table).map_err(perr)?;
                    for b in &earlier {
                        w.write(b).await.map_err(perr)?;
                    }
                    writer.insert(w)
                }
                (Some(w), _) => w,
            };
            for b in &batches {
                w.write(b).await.map_err(perr)?;
            }
        }
        let Some(mut w) = writer else {
            return Ok(None);
        };
        w.finish().await.map_err(perr)?;
        // The output's digest is known only once it is written: it is uploaded under a
        // name without one, then copied to its checksummed name, which the record commits
        // (the first is hidden as a merge no record names, and `gc` removes it with them).
        let output = checksum::name_with(&output, w.into_inner().digest());
        let staged_key = out_key;
        let out_key = self.part_key(table, suite, &output);
        self.store
            .copy(&staged_key, &out_key)
            .await
            .map_err(store_err(format!(
                "copying {} to {}",
                self.show(&staged_key),
                self.show(&out_key)
            )))?;
        let _ = self.store.delete(&staged_key).await;
        Ok(Some(Merged {
            table,
            suite: suite.to_string(),
            sources,
            output,
            out_key,
        }))
    }

    /// The batches of the part `meta`, checked against the table's schema and given it, or
    /// `None` where a row belongs to a run not in `committed`.
    async fn committed_batches(
        &self,
        meta: &ObjectMeta,
        table: Table,
        committed: &HashSet<&str>,
    ) -> Result<Option<Vec<RecordBatch>>> {
        let path = PathBuf::from(self.show(&meta.location));
        let batches = read_parquet(self.get(&meta.location).await?, &path)?;
        check_schema(table, &batches, &path)?;
        let mut all_committed = true;
        for b in &batches {
            let ids = utf8_column(b, "run_id", &path)?;
            all_committed &=
                (0..b.num_rows()).all(|i| ids.is_null(i) || committed.contains(ids.value(i)));
        }
        if !all_committed {
            return Ok(None);
        }
        let batches = batches
            .iter()
            .map(|b| conform(table, b))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|source| WarehouseError::Arrow {
                table: table.name(),
                source,
            })?;
        Ok(Some(batches))
    }

    /// A multipart upload of a merged output at `key`, hashed as it is written.
    fn merged_writer(
        &self,
        key: &Key,
        table: Table,
    ) -> std::result::Result<
        AsyncArrowWriter<HashingAsyncWriter<BufWriter>>,
        datafusion::parquet::errors::ParquetError,
    > {
        // PERFHOUSE_UPLOAD_PART_BYTES: the upload's part size (object_store's 10 MiB by
        // default; S3 refuses parts under 5 MiB but the last).
        let part_bytes = std::env::var("PERFHOUSE_UPLOAD_PART_BYTES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(10 << 20);
        AsyncArrowWriter::try_new(
            HashingAsyncWriter::new(BufWriter::with_capacity(
                Arc::clone(&self.store),
                key.clone(),
                part_bytes,
            )),
            table.schema(),
            Some(part_props()),
        )
    }

    /// Commits a merge with its compaction record of `generation`, create-only: where another
    /// compaction of the partition committed first, the output is removed and the race
    /// reported.
    async fn commit_merge(
        &self,
        id: &str,
        generation: u64,
        merged: Merged,
        report: &mut CompactReport,
    ) -> Result<()> {
        let Merged {
            table,
            suite,
            sources,
            output,
            out_key,
        } = merged;
        // A fault-test hook: hold the commit back so a test can read, race or kill the
        // compaction between its output and its record.
        if let Some(ms) = std::env::var("PERFHOUSE_COMPACT_DELAY_MS")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        }
        // A gc whose grace period this compaction outlived may have removed the output
        // as uncommitted: committing a record without it would hide the sources' rows.
        self.store.head(&out_key).await.map_err(store_err(format!(
            "{} vanished before its compaction committed (a gc with a grace period shorter than this compaction?); nothing was changed, compact again",
            self.show(&out_key)
        )))?;
        let record = record_batch(id, table, generation, &sources, &output);
        let record_key = self.key(&format!(
            "{RECORDS_DIR}/suite={}/{}-{generation:010}.parquet",
            encode_partition_value(&suite),
            table.name()
        ));
        let body = parquet_bytes(&[record], &self.show(&record_key))?;
        if self.create(&record_key, body).await? {
            report.merged.push((table.name(), suite, sources.len()));
        } else {
            // Another compaction of this partition committed first: ours is not needed.
            let _ = self.store.delete(&out_key).await;
            report.raced.push(format!(
                "{}/suite={suite}: another compaction committed first; left as it merged it",
                table.name()
            ));
        }
        Ok(())
    }

    /// Whether the `runs` object `key` committed: it is there, or a compaction merged it
    /// (every `runs` object is a commit, so one that was merged had committed).
    pub(super) async fn runs_object_committed(&self, key: &Key) -> Result<bool> {
        match self.store.head(key).await {
            Ok(_) => return Ok(true),
            Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(store_err(format!("reading {key}"))(e)),
        }
        let records = self.records(None).await?;
        Ok(self.view(&records).is_superseded(key))
    }

    /// Problems with the records: an output that is missing, unless a later compaction merged
    /// it (its rows are hidden with its sources: damage).
    pub(super) fn record_problems(
        &self,
        records: &[Record],
        present: &HashSet<&Key>,
        view: &View,
    ) -> Vec<String> {
        let mut out = Vec::new();
        for r in records {
            for o in &r.outputs {
                let key = self.part_key(r.table, &r.suite, o);
                if !present.contains(&key) && !view.is_superseded(&key) {
                    out.push(format!(
                        "{}: names {} as its output, which is missing: the rows of its {} sources are hidden (the sources are kept)",
                        self.show(&r.key),
                        self.show(&key),
                        r.sources.len()
                    ));
                }
            }
        }
        out
    }
}
