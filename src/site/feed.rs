//! `feed.xml`: what changed as an Atom feed (RFC 4287), one entry per commit entry of
//! `query::alerts::by_commit` (every series that changed at that commit), newest first, so a
//! chat or mail bridge following it hears of every new change and every triage. An entry's id
//! is its commit's (`urn:perfhouse:commit:<sha>`, or `urn:perfhouse:run:<id>` without one), its
//! `updated` the latest triage time of its alerts or, while all are new, the start of the
//! first run at the new level; its link the entry's anchor on `alerts.html` (a closed entry:
//! its run's page).

use crate::present::html_escape as esc;
use crate::site::pages::alerts::CommitEntryView;

/// The most entries a feed carries.
const MAX_ENTRIES: usize = 200;

/// The entry's time: RFC 3339 already (Arrow writes stored timestamps so, and triage times
/// are formatted so); the epoch where there is none.
fn rfc3339(t: &str) -> String {
    if t.is_empty() {
        "1970-01-01T00:00:00Z".to_string()
    } else {
        t.to_string()
    }
}

pub fn atom(entries: &[CommitEntryView]) -> String {
    let mut entries: Vec<(&CommitEntryView, String)> = entries
        .iter()
        .map(|e| {
            let when = if e.updated.is_empty() {
                &e.started
            } else {
                &e.updated
            };
            (e, rfc3339(when))
        })
        .collect();
    entries.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.urn.cmp(&y.0.urn)));
    entries.truncate(MAX_ENTRIES);
    let updated = entries
        .first()
        .map_or_else(|| rfc3339(""), |(_, t)| t.clone());
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n<title>perfhouse: what changed</title>\n<id>urn:perfhouse:alerts</id>\n<updated>{updated}</updated>\n<link rel=\"alternate\" href=\"alerts.html\"/>\n"
    );
    for (e, when) in entries {
        let at = if e.commit.is_empty() {
            format!("run {}", e.run)
        } else {
            format!("commit {}", e.commit)
        };
        let title = format!(
            "{}: {} {} at {at} [{}]",
            e.suites, e.kind, e.change, e.state
        );
        let mut summary = format!(
            "{}; first run at the new level {}{}. {}.",
            e.moved,
            e.run,
            if e.date.is_empty() {
                String::new()
            } else {
                format!(" ({})", e.date)
            },
            e.why
        );
        for s in &e.series {
            summary.push_str(&format!("\n{} {} [{}", s.name, s.change, s.state));
            if !s.note.is_empty() {
                summary.push_str(&format!(": {}", s.note));
            }
            summary.push_str(&format!("] alert {}", s.id));
        }
        let link = if e.open {
            format!("alerts.html#{}", e.anchor)
        } else {
            e.run_href.clone()
        };
        let mut categories: Vec<&str> = e.series.iter().map(|s| s.state.as_str()).collect();
        categories.sort_unstable();
        categories.dedup();
        s.push_str(&format!(
            "<entry>\n<title>{}</title>\n<id>{}</id>\n<updated>{when}</updated>\n<link href=\"{}\"/>\n",
            esc(&title),
            esc(&e.urn),
            esc(&link),
        ));
        for c in categories {
            s.push_str(&format!("<category term=\"{}\"/>\n", esc(c)));
        }
        s.push_str(&format!("<summary>{}</summary>\n</entry>\n", esc(&summary)));
    }
    s.push_str("</feed>\n");
    s
}
