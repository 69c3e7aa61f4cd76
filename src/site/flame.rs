//! Flamegraphs (inferno SVG, with its search) and the profile tables beside them.
//!
//! On-CPU: inferno's `hot` palette, weights in samples. Off-CPU: its `io` (blue) palette,
//! weights in µs. Differential: inferno's `differential` (before = baseline, after =
//! candidate), drawn by the flamegraph with red = grew, blue = shrank. Colours are hashed from
//! frame names (`hash`, `deterministic`), so the same warehouse gives byte-identical SVGs.

use std::collections::BTreeMap;

use inferno::flamegraph::{self, Options, color::BasicPalette, color::Palette};

use crate::model::StackKind;

/// Folded lines (`stack weight`) sorted by stack, for inferno.
fn folded(stacks: &[(String, f64)]) -> String {
    let mut merged: BTreeMap<&str, f64> = BTreeMap::new();
    for (s, w) in stacks {
        *merged.entry(s.as_str()).or_insert(0.0) += w;
    }
    merged
        .into_iter()
        .map(|(s, w)| {
            if w.fract() == 0.0 {
                format!("{s} {}\n", w as i64)
            } else {
                format!("{s} {w}\n")
            }
        })
        .collect()
}

fn options(title: &str, kind: StackKind) -> Options<'static> {
    let mut o = Options::default();
    o.title = title.to_string();
    o.hash = true;
    o.deterministic = true;
    if kind == StackKind::Offcpu {
        o.colors = Palette::Basic(BasicPalette::Io);
        o.count_name = "µs".to_string();
    } else {
        o.colors = Palette::Basic(BasicPalette::Hot);
        o.count_name = "samples".to_string();
    }
    o
}

/// inferno's script sizes the frames to the SVG's width less its padding; in an `<object>`
/// not laid out yet (a phone page, a frame still loading) that width is 0, and the browser
/// logs `attribute width: A negative value is not valid ("-20")`, then `attribute x:
/// Expected length, "Infinity%"` for every label. The resize waits until there is a width.
const FLUID_WIDTH: &str = "frames.attributes.width.value = svg.width.baseVal.value - xpad * 2;";
const FLUID_WIDTH_FIXED: &str = "if (svg.width.baseVal.value <= xpad * 2) return; // not laid out yet (perfhouse)\n            frames.attributes.width.value = svg.width.baseVal.value - xpad * 2;";

fn mend_script(svg: Vec<u8>) -> Vec<u8> {
    match String::from_utf8(svg) {
        Ok(text) => text.replace(FLUID_WIDTH, FLUID_WIDTH_FIXED).into_bytes(),
        Err(e) => e.into_bytes(),
    }
}

/// An inferno flamegraph of merged stacks.
pub fn svg(title: &str, kind: StackKind, stacks: &[(String, f64)]) -> std::io::Result<Vec<u8>> {
    let text = folded(stacks);
    let mut out = Vec::new();
    flamegraph::from_lines(&mut options(title, kind), text.lines(), &mut out)?;
    Ok(mend_script(out))
}

/// A differential flamegraph: frames sized by the candidate, coloured by the change from the
/// baseline (red grew, blue shrank).
pub fn differential(
    title: &str,
    kind: StackKind,
    before: &[(String, f64)],
    after: &[(String, f64)],
) -> std::io::Result<Vec<u8>> {
    let (b, a) = (folded(before), folded(after));
    let mut diff = Vec::new();
    inferno::differential::from_readers(
        inferno::differential::Options::default(),
        b.as_bytes(),
        a.as_bytes(),
        &mut diff,
    )?;
    let text = String::from_utf8_lossy(&diff).into_owned();
    let mut o = options(title, kind);
    o.colors = Palette::Basic(BasicPalette::Hot);
    let mut out = Vec::new();
    flamegraph::from_lines(&mut o, text.lines(), &mut out)?;
    Ok(mend_script(out))
}

/// One row of a profile table.
#[derive(Debug, Clone, PartialEq)]
pub struct Share {
    pub name: String,
    pub weight: f64,
    /// Fraction of the total weight.
    pub share: f64,
}

fn shares(map: BTreeMap<String, f64>, top: usize) -> Vec<Share> {
    let total: f64 = map.values().sum();
    let mut v: Vec<Share> = map
        .into_iter()
        .map(|(name, weight)| Share {
            share: if total > 0.0 { weight / total } else { 0.0 },
            name,
            weight,
        })
        .collect();
    v.sort_by(|a, b| {
        b.weight
            .total_cmp(&a.weight)
            .then_with(|| a.name.cmp(&b.name))
    });
    v.truncate(top);
    v
}

/// On-CPU: the leaf frame of each stack (where the samples landed), top `top`.
pub fn top_self(stacks: &[(String, f64)], top: usize) -> Vec<Share> {
    let mut m: BTreeMap<String, f64> = BTreeMap::new();
    for (s, w) in stacks {
        let leaf = s.rsplit(';').next().unwrap_or(s);
        *m.entry(leaf.to_string()).or_insert(0.0) += w;
    }
    shares(m, top)
}

/// Whether a frame is kernel code: inferno's `_[k]` annotation, or below bcc's `-` separator.
fn is_kernel(frame: &str) -> bool {
    frame.ends_with("_[k]") || frame == "-" || frame == "[kernel.kallsyms]"
}

/// The innermost user-space frame: the last frame before the kernel part of the stack.
pub fn innermost_user(stack: &str) -> &str {
    let frames: Vec<&str> = stack.split(';').collect();
    let first_kernel = frames
        .iter()
        .position(|f| is_kernel(f))
        .unwrap_or(frames.len());
    frames[..first_kernel].last().copied().unwrap_or(stack)
}

/// What an off-CPU stack was waiting for, from its frames: the breakdown that tells idle
/// waiting (parked workers, epoll, sleep) from contention (allocator and application locks).
pub fn offcpu_category(stack: &str) -> &'static str {
    let has = |needle: &str| stack.contains(needle);
    if has("__lll_lock_wait") {
        "allocator/glibc lock (__lll_lock_wait)"
    } else if has("parking_lot")
        || has("Mutex")
        || has("RwLock")
        || has("pthread_mutex_lock")
        || has("pthread_rwlock")
    {
        "app locks (parking_lot / Mutex / RwLock)"
    } else if has("rayon") {
        "rayon idle"
    } else if has("epoll_wait") || has("epoll_pwait") {
        "epoll wait (idle I/O loop)"
    } else if has("futex") || has("park") || has("pthread_cond") || has("Condvar") {
        "worker park / futex"
    } else if has("nanosleep") || has("sleep") {
        "sleep"
    } else if has("read")
        || has("recv")
        || has("write")
        || has("send")
        || has("poll")
        || has("select")
    {
        "I/O"
    } else {
        "other"
    }
}

/// Off-CPU time by category and by innermost user frame.
pub fn offcpu_breakdown(stacks: &[(String, f64)], top: usize) -> (Vec<Share>, Vec<Share>) {
    let mut cats: BTreeMap<String, f64> = BTreeMap::new();
    let mut frames: BTreeMap<String, f64> = BTreeMap::new();
    for (s, w) in stacks {
        *cats.entry(offcpu_category(s).to_string()).or_insert(0.0) += w;
        *frames.entry(innermost_user(s).to_string()).or_insert(0.0) += w;
    }
    (shares(cats, 20), shares(frames, top))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(v: &[(&str, f64)]) -> Vec<(String, f64)> {
        v.iter().map(|(s, w)| (s.to_string(), *w)).collect()
    }

    #[test]
    fn tables_by_hand() {
        let on = st(&[("a;b;c", 6.0), ("a;c", 2.0), ("a;b", 2.0)]);
        let t = top_self(&on, 5);
        assert_eq!(
            t[0],
            Share {
                name: "c".into(),
                weight: 8.0,
                share: 0.8
            }
        );
        assert_eq!(t[1].name, "b");
        let off = st(&[
            (
                "app;main;pthread_mutex_lock;__lll_lock_wait;futex_wait_[k];schedule_[k]",
                300.0,
            ),
            (
                "app;tokio::park;epoll_wait;do_epoll_wait_[k];schedule_[k]",
                600.0,
            ),
            ("app;worker;std::sync::Mutex::lock;futex_wait_[k]", 100.0),
        ]);
        let (cats, frames) = offcpu_breakdown(&off, 5);
        let got: Vec<(&str, f64)> = cats.iter().map(|s| (s.name.as_str(), s.share)).collect();
        assert_eq!(
            got,
            vec![
                ("epoll wait (idle I/O loop)", 0.6),
                ("allocator/glibc lock (__lll_lock_wait)", 0.3),
                ("app locks (parking_lot / Mutex / RwLock)", 0.1)
            ]
        );
        assert_eq!(frames[0].name, "epoll_wait");
        assert_eq!(innermost_user("u;v;-;k1;k2"), "v");
    }

    #[test]
    fn flamegraphs_are_deterministic_svg_with_search() {
        let s = st(&[("main;work", 3.0), ("main;idle", 1.0)]);
        let a = svg("t", StackKind::Oncpu, &s).unwrap();
        assert_eq!(a, svg("t", StackKind::Oncpu, &s).unwrap());
        let text = String::from_utf8(a).unwrap();
        assert!(text.starts_with("<?xml") && text.contains("search") && text.contains("work"));
        // The frames' width is never set negative (inferno's line is found and mended).
        assert!(text.contains(FLUID_WIDTH_FIXED));
        assert_eq!(
            text.matches(FLUID_WIDTH).count(),
            1,
            "only the guarded line"
        );
        let d = differential(
            "d",
            StackKind::Oncpu,
            &s,
            &st(&[("main;work", 6.0), ("main;idle", 1.0)]),
        )
        .unwrap();
        assert!(String::from_utf8(d).unwrap().contains("work"));
    }
}
