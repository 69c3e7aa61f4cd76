//! A real S3 API for the object-store tests: PyPI's `moto` in its standalone server mode on a
//! loopback port (tests/run.sh installs it into .venv), which implements conditional PutObject
//! (`If-None-Match: *`). It runs through tests/s3_server.py, which makes moto's writes atomic
//! as S3's are (moto alone lets two racing create-only PUTs of one key both win; see there).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::{skip, stderr, stdout};

/// A moto S3 server (tests/s3_server.py) on a loopback port, stopped when dropped.
pub struct S3 {
    child: Child,
    pub port: u16,
}

impl Drop for S3 {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Python that has moto (PERFHOUSE_MOTO names its `moto_server`; the venv's `python` is
/// beside it).
fn moto_python() -> Option<PathBuf> {
    let server = std::env::var_os("PERFHOUSE_MOTO")
        .map(PathBuf::from)
        .unwrap_or_else(|| super::repo().join(".venv/bin/moto_server"));
    let python = server.parent()?.join("python");
    (server.is_file() && python.is_file()).then_some(python)
}

impl S3 {
    /// Starts the server and creates `bucket`; `None` (the test says SKIPPED, or fails where
    /// PERFHOUSE_REQUIRE names moto) when moto is not installed.
    pub fn start(bucket: &str) -> Option<S3> {
        Self::start_with(bucket, &[])
    }

    /// [`S3::start`] with `env` set for the server.
    pub fn start_with(bucket: &str, env: &[(&str, &str)]) -> Option<S3> {
        let Some(python) = moto_python() else {
            skip(
                "moto",
                "moto_server is not installed (tests/run.sh installs it into .venv)",
            );
            return None;
        };
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(python)
            .arg(super::repo().join("tests/s3_server.py"))
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto_server starts");
        let s3 = S3 { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "tests/s3_server.py did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        // CreateBucket: moto takes it unsigned.
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            c,
            "PUT /{bucket} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut reply = String::new();
        c.read_to_string(&mut reply).unwrap();
        assert!(reply.starts_with("HTTP/1.1 200"), "CreateBucket: {reply}");
        Some(s3)
    }

    /// `perfhouse` with the store's credentials and endpoint in its environment.
    pub fn cmd(&self, tmp: &Path) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_perfhouse"));
        c.env_remove("PERFHOUSE_WAREHOUSE")
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ENDPOINT", format!("http://127.0.0.1:{}", self.port))
            .env("AWS_ALLOW_HTTP", "true")
            // Staging warehouses of killed writers stay here, not in /tmp.
            .env("TMPDIR", tmp);
        c
    }

    pub fn run(&self, tmp: &Path, url: &str, args: &[&str]) -> Output {
        self.cmd(tmp)
            .args(["--warehouse", url])
            .args(args)
            .output()
            .expect("perfhouse runs")
    }

    pub fn ok(&self, tmp: &Path, url: &str, args: &[&str]) -> Output {
        let o = self.run(tmp, url, args);
        assert!(
            o.status.success(),
            "perfhouse {args:?} on {url} failed:\n{}\n{}",
            stdout(&o),
            stderr(&o)
        );
        o
    }

    pub fn query(&self, tmp: &Path, url: &str, sql: &str) -> serde_json::Value {
        let o = self.ok(tmp, url, &["query", sql, "--format", "json"]);
        serde_json::from_slice(&o.stdout).unwrap()
    }
}
