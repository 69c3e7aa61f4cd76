//! `feed.xml`: the alerts as an Atom feed (RFC 4287), newest change first, so a chat or mail
//! bridge following it hears of every new alert and every triage. An entry's id is the
//! alert's (`urn:perfhouse:alert:<id>`), its `updated` the triage time or, while new, the
//! start of the first run at the new level.

use crate::present::html_escape as esc;
use crate::site::AlertView;

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

pub fn atom(alerts: &[AlertView]) -> String {
    let mut entries: Vec<(&AlertView, String)> = alerts
        .iter()
        .map(|a| {
            let when = if a.updated.is_empty() {
                &a.started
            } else {
                &a.updated
            };
            (a, rfc3339(when))
        })
        .collect();
    entries.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.id.cmp(&y.0.id)));
    entries.truncate(MAX_ENTRIES);
    let updated = entries
        .first()
        .map_or_else(|| rfc3339(""), |(_, t)| t.clone());
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n<title>perfhouse alerts</title>\n<id>urn:perfhouse:alerts</id>\n<updated>{updated}</updated>\n<link rel=\"alternate\" href=\"index.html\"/>\n"
    );
    for (a, when) in entries {
        let title = format!(
            "{} {} {}: {} at run {} [{}]",
            a.suite, a.series, a.kind, a.change, a.run, a.state
        );
        let mut summary = format!(
            "{} of {} in suite {}; first run at the new level {}",
            a.kind, a.series, a.suite, a.run
        );
        if !a.commit.is_empty() {
            summary.push_str(&format!(", commit {}", a.commit));
        }
        summary.push_str(&format!("; state {}", a.state));
        if !a.note.is_empty() {
            summary.push_str(&format!(": {}", a.note));
        }
        s.push_str(&format!(
            "<entry>\n<title>{}</title>\n<id>urn:perfhouse:alert:{}</id>\n<updated>{when}</updated>\n<link href=\"{}\"/>\n<category term=\"{}\"/>\n<summary>{}</summary>\n</entry>\n",
            esc(&title),
            a.id,
            esc(if a.href.is_empty() { &a.run_href } else { &a.href }),
            esc(&a.state),
            esc(&summary)
        ));
    }
    s.push_str("</feed>\n");
    s
}
