//! The structure drawing in the book's development chapter holds: data flows one way, so no
//! module uses another that uses it back. Read from the source text (`crate::` and `super::`
//! paths, comments and unit tests left out), at the depth of the drawing's boxes and one
//! below (`site::pages`, `query::alerts`, `ingest::adapter`): a module may use its own
//! parent (where a folder's shared types live), never a sibling that uses it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::repo;

type Module = Vec<String>;

/// `src/a/b.rs` and `src/a/b/mod.rs` → `a::b`.
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The production text of a file: without its `#[cfg(test)] mod tests` and its comments.
fn production_text(text: &str) -> String {
    let cut = regex::Regex::new(r"#\[cfg\(test\)\]\s*\n\s*mod tests").unwrap();
    let text = match cut.find(text) {
        Some(m) => &text[..m.start()],
        None => text,
    };
    let comment = regex::Regex::new(r"//[^\n]*").unwrap();
    comment.replace_all(text, "").into_owned()
}

/// The modules a file's text names: `crate::a::b::…` and `super::…` paths, resolved, and the
/// paths in braces after them (`use super::{pages::run, Chrome}`), each to its first level.
fn references(me: &Module, text: &str) -> Vec<Module> {
    let anchor = regex::Regex::new(r"\b(crate|(?:super::)*super)::").unwrap();
    let path = regex::Regex::new(r"^(?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*").unwrap();
    let mut found = Vec::new();
    for c in anchor.captures_iter(text) {
        let base: Module = match &c[1] {
            "crate" => Vec::new(),
            ups => me[..me.len().saturating_sub(ups.matches("super").count())].to_vec(),
        };
        let rest = &text[c.get(0).unwrap().end()..];
        let items = match rest.strip_prefix('{') {
            Some(group) => top_level_items(group),
            None => vec![rest],
        };
        for item in items {
            if let Some(m) = path.find(item.trim_start()) {
                let mut module = base.clone();
                module.extend(m.as_str().split("::").map(String::from));
                found.push(module);
            }
        }
    }
    found
}

/// The comma-separated items of a brace group up to its closing brace (`text` starts after
/// the opening one), nested groups kept inside their item.
fn top_level_items(text: &str) -> Vec<&str> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, ch) in text.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&text[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items
}

/// The module graph at `depth` segments: an edge a → b where a file of a names b, leaving out
/// a module's uses of itself and of its ancestors.
fn graph(depth: usize) -> BTreeMap<Module, BTreeSet<Module>> {
    let src = repo().join("src");
    let mut files = BTreeMap::new();
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "rs") && path != src.join("main.rs") {
            let text = std::fs::read_to_string(path).unwrap();
            files.insert(module_of(&src, path), production_text(&text));
        }
    }
    let known: BTreeSet<Module> = files.keys().cloned().collect();
    // The longest known module a path starts with, cut to `depth`.
    let unit = |path: &Module| -> Module {
        (1..=path.len())
            .rev()
            .map(|i| path[..i].to_vec())
            .find(|p| known.contains(p))
            .map(|p| p[..p.len().min(depth)].to_vec())
            .unwrap_or_default()
    };
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (me, text) in &files {
        let from = unit(me);
        for to in references(me, text).iter().map(unit) {
            if !to.is_empty() && to != from && !from.starts_with(&to) {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

/// Every cycle's modules (Tarjan's strongly connected components of more than one module).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, (usize, usize)>,
        stack: Vec<&'a Module>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a Module) -> usize {
            let n = self.index.len();
            self.index.insert(v, (n, n));
            self.stack.push(v);
            let mut low = n;
            for w in self.edges.get(v).into_iter().flatten() {
                match self.index.get(w) {
                    None => low = low.min(self.visit(w)),
                    Some(&(i, _)) if self.stack.contains(&w) => low = low.min(i),
                    Some(_) => {}
                }
            }
            self.index.insert(v, (n, low));
            if low == n {
                let at = self.stack.iter().position(|m| *m == v).unwrap();
                let component: Vec<String> = self.stack.drain(at..).map(|m| m.join("::")).collect();
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
            low
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}

#[test]
fn no_module_uses_a_module_that_uses_it_back() {
    for depth in [1, 2] {
        let edges = graph(depth);
        let found = cycles(&edges);
        let shown: Vec<String> = found
            .iter()
            .map(|c| {
                let arrows: Vec<String> = c
                    .iter()
                    .flat_map(|a| {
                        edges[&a.split("::").map(String::from).collect::<Module>()]
                            .iter()
                            .map(|b| b.join("::"))
                            .filter(|b| c.contains(b))
                            .map(move |b| format!("{a} → {b}"))
                    })
                    .collect();
                arrows.join(", ")
            })
            .collect();
        assert!(
            found.is_empty(),
            "module cycles at depth {depth}:\n{}",
            shown.join("\n")
        );
    }
}

#[test]
fn the_graph_sees_a_cycle_planted_in_literal_text() {
    // The reader itself, on text written here: `a` names `b`, `b` names `a` through `super::`.
    let a: Module = vec!["site".into(), "a".into()];
    let b: Module = vec!["site".into(), "b".into()];
    let a_text = production_text("use crate::site::b::Thing; // crate::query::x in a comment\n");
    let b_text = production_text(
        "fn f() { super::a::g() }\n#[cfg(test)]\nmod tests { use crate::report::x; }\n",
    );
    assert_eq!(references(&a, &a_text), vec![b.clone()]);
    assert_eq!(
        references(&b, &b_text),
        vec![vec!["site".to_string(), "a".into(), "g".into()]]
    );
    let grouped = references(&a, "use super::{b::Thing, Chrome, trend::{ticks, x}};");
    assert_eq!(
        grouped,
        vec![b.clone(), vec!["site".to_string(), "trend".into()]],
        "a group's paths, each resolved (a nested group read to its first level)"
    );
    let edges = BTreeMap::from([
        (a.clone(), BTreeSet::from([b.clone()])),
        (b.clone(), BTreeSet::from([a.clone()])),
    ]);
    let found = cycles(&edges);
    assert_eq!(found.len(), 1);
    let mut members = found[0].clone();
    members.sort();
    assert_eq!(members, ["site::a", "site::b"]);
}
